//! The OpenAPI 3.1 document, generated from the same schemas that validate requests.
import { CATALOGUE, GROUPS } from '../lib/catalogue.js';
import type { ToolSchemas } from '../lib/tool-schemas.js';

export function buildOpenApi(deps: { baseUrl: string; schemas: Map<string, ToolSchemas> }) {
  const paths: Record<string, unknown> = {};
  for (const tool of CATALOGUE.values()) {
    const s = deps.schemas.get(tool.name)!;
    paths[`/api/v1/tools/${tool.name}`] = {
      post: {
        operationId: tool.name,
        tags: [tool.group],
        summary: `${tool.name} (${tool.cost} credit${tool.cost === 1 ? '' : 's'})`,
        security: [{ apiKey: [] }],
        requestBody: { required: true, content: { 'application/json': { schema: s.input } } },
        responses: {
          '200': { description: 'The tool output.', content: { 'application/json': { schema: s.output } } },
          default: { $ref: '#/components/responses/Problem' },
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Utility Tools API', version: '1.0.0' },
    servers: [{ url: deps.baseUrl }],
    tags: Object.entries(GROUPS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (utk_...).' },
        ownerToken: { type: 'http', scheme: 'bearer', description: 'An owner token (uto_...).' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'The operator token (ADMIN_TOKEN).' },
      },
      responses: {
        Problem: {
          description: 'An RFC 9457 problem.',
          content: { 'application/problem+json': { schema: { type: 'object' } } },
        },
      },
    },
  };
}
