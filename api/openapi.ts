//! The OpenAPI 3.1 document of everything the API serves, built once per process. Each route
//! module documents the operations it serves in its sibling (`api/routes/<name>.openapi.ts`,
//! `<name>Operations()`); this file assembles them with the overview, the tags, the shared
//! components and the webhook events.
//! `/api/v1/openapi.json` serves it and `/docs` renders it.
import { readFileSync } from 'node:fs';
import { CATALOGUE, GROUPS, type Group, type ToolDefinition, type ToolSchemas } from '../domain/tools/index.js';
import { GROUP_DESCRIPTIONS, HEADERS, PARAMETERS, SECURITY_SCHEMES, TAGS, problemResponses, type Json } from './docs/openapi-parts.js';
import type { RouteOperation } from './docs/operations.js';
import type { JsonSchema } from './docs/schema-parts.js';
import { COMPONENT_SCHEMAS } from './docs/schemas.js';
import { DELIVERY_FACTS, webhookEvents } from './docs/webhook-events.js';
import { accountOperations } from './routes/account.openapi.js';
import { adminOperations } from './routes/admin.openapi.js';
import { auditLogOperations } from './routes/audit-log.openapi.js';
import { renderOperations } from './routes/render.openapi.js';
import { renderLinkOperations } from './routes/render-links.openapi.js';
import { batchOperations } from './routes/batches.openapi.js';
import { callOperations } from './routes/calls.openapi.js';
import { dashboardOperations } from './routes/dashboard.openapi.js';
import { docsOperations } from './routes/docs.openapi.js';
import { eventOperations } from './routes/events.openapi.js';
import { planOperations } from './routes/plans.openapi.js';
import { serviceOperations } from './routes/service.openapi.js';
import { catalogueOperations, toolOperations } from './routes/tools.openapi.js';
import { webhookOperations } from './routes/webhooks.openapi.js';
import { monitorOperations } from './routes/monitors.openapi.js';
import { destinationOperations } from './routes/destinations.openapi.js';
import { billingOperations } from './routes/billing.openapi.js';
import { authOperations } from './routes/auth.openapi.js';
import { teamOperations } from './routes/teams.openapi.js';
import { oidcOperations } from './routes/oidc.openapi.js';
import { mcpOperations } from './routes/mcp.openapi.js';
import { oauthOperations } from './routes/oauth.openapi.js';
import { connectedAppOperations } from './routes/connected-apps.openapi.js';
import { GROUPS as ROLE_GROUPS, groupFor } from '../domain/teams/index.js';

export interface OpenApiOptions {
  /** PUBLIC_BASE_URL: the server in the document and the base of every problem `type` link. */
  baseUrl: string;
  /** Input and output schemas of every catalogue tool (`publishedCatalogueSchemas()`). */
  schemas: Map<string, ToolSchemas>;
}

type Operation = Json & { responses: Record<string, Json> };

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: Json;
  servers: Json[];
  externalDocs: Json;
  tags: Json[];
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: Json }>;
  components: Json & { schemas: Record<string, JsonSchema>; responses: Record<string, Json> };
  [extension: `x-${string}`]: unknown;
}

const OVERVIEW = readFileSync(new URL('./docs/overview.md', import.meta.url), 'utf8');

/** The overview with its `{{name}}` placeholders filled in; an unknown one is a bug here. */
function overview(values: Record<string, string>): string {
  return OVERVIEW.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`api/docs/overview.md: no value for {{${name}}}`);
    return values[name]!;
  });
}

/**
 * Every operation the API serves, from the route modules that serve them, with the component
 * schemas of the tools. Their order is the document's: of its paths and its shared answers.
 */
function routeOperations(schemas: Map<string, ToolSchemas>): { operations: RouteOperation[]; schemas: Record<string, JsonSchema> } {
  const tools = toolOperations(schemas);
  const operations = [
    ...tools.operations,
    ...callOperations(),
    ...batchOperations(),
    ...authOperations(),
    ...oidcOperations(),
    ...accountOperations(),
    ...teamOperations(),
    ...billingOperations(),
    ...renderLinkOperations(),
    ...renderOperations(),
    ...monitorOperations(),
    ...webhookOperations(),
    ...destinationOperations(),
    ...eventOperations(),
    ...auditLogOperations(),
    ...adminOperations(),
    ...planOperations(),
    ...catalogueOperations(),
    ...mcpOperations(),
    ...oauthOperations(),
    ...connectedAppOperations(),
    ...serviceOperations(),
    ...docsOperations(),
    ...dashboardOperations(),
  ];
  return { operations, schemas: tools.schemas };
}

export function buildOpenApi(options: OpenApiOptions): OpenApiDocument {
  const { baseUrl, schemas } = options;
  const { problems, responses } = problemResponses(baseUrl);
  const routes = routeOperations(schemas);
  const paths: Record<string, Record<string, Operation>> = {};
  for (const { method, path, spec } of routes.operations) {
    const { tag, ok, codes, ...rest } = spec;
    (paths[path] ??= {})[method] = {
      tags: [tag],
      ...rest,
      ...rolesOf(method, path, rest.description),
      responses: { ...ok, ...problems(codes) },
    };
  }
  const tools = [...CATALOGUE.values()];

  return {
    openapi: '3.1.0',
    info: {
      title: 'Utility Tools API',
      version: '1.0.0',
      description: overview({ baseUrl, toolTable: toolTable(tools), ...DELIVERY_FACTS }),
    },
    servers: [{ url: baseUrl }],
    externalDocs: { description: 'Error reference', url: `${baseUrl}/docs/errors` },
    tags: [
      ...usedGroups(tools).map((g) => ({ name: g, 'x-displayName': GROUPS[g], description: GROUP_DESCRIPTIONS[g] })),
      ...Object.entries(TAGS).map(([name, tag]) => ({ name, ...tag })),
    ],
    'x-tagGroups': [
      { name: 'Tools', tags: [...usedGroups(tools), 'calls'] },
      {
        name: 'Account',
        tags: ['auth', 'account', 'team', 'billing', 'api-keys', 'render-links', 'destinations', 'monitors', 'webhook-endpoints'],
      },
      { name: 'Webhooks', tags: ['webhook-events'] },
      { name: 'Operator', tags: ['operator'] },
      { name: 'Service', tags: ['service'] },
    ],
    paths,
    webhooks: webhookEvents(),
    components: {
      securitySchemes: SECURITY_SCHEMES,
      schemas: { ...COMPONENT_SCHEMAS, ...routes.schemas },
      responses,
      headers: HEADERS,
      parameters: PARAMETERS,
    },
  };
}

/** An account operation's roles, from the role table (domain/teams/permissions.ts): `x-roles` and a line of its description. */
function rolesOf(method: string, path: string, description: unknown): Json {
  if (!isAccountPath(path)) return {};
  const roles = ROLE_GROUPS[groupFor(method, path)];
  const line = `**Roles:** ${roles.join(', ')}${roles.length === 5 ? ' (every role)' : ''}.`;
  return { 'x-roles': [...roles], description: typeof description === 'string' && description ? `${description}\n\n${line}` : line };
}

const isAccountPath = (path: string) => path === '/api/v1/account' || path.startsWith('/api/v1/account/');

function usedGroups(tools: ToolDefinition[]): Group[] {
  return (Object.keys(GROUPS) as Group[]).filter((g) => tools.some((t) => t.group === g));
}

function toolTable(tools: ToolDefinition[]): string {
  const rows = usedGroups(tools).flatMap((g) =>
    tools.filter((t) => t.group === g).map((t) => `| [${t.name}](#tag/${g}/operation/${t.name}) | ${GROUPS[g]} | ${t.cost} |`),
  );
  return ['| tool | group | credits |', '|---|---|---|', ...rows].join('\n');
}
