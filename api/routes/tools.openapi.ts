//! The OpenAPI operations of the tool calls and the catalogue (`api/routes/tools.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import type { ErrorCode } from '../../contracts/errors.js';
import { CATALOGUE, type ToolDefinition, type ToolSchemas } from '../../domain/tools/index.js';
import { DEFAULT_BODY_LIMIT } from '../body.js';
import { ANSWER_HEADERS, headerRef, json, paramRef, pascal, RATE_LIMIT_HEADERS } from '../docs/openapi-parts.js';
import { embedToolSchema, mediaExamples, open, operation, plain, type RouteOperation } from '../docs/operations.js';
import { ref, type JsonSchema } from '../docs/schema-parts.js';

/** Codes every tool call can answer with; a tool's definition adds its own (`failures`). */
const TOOL_CALL_CODES: readonly ErrorCode[] = [
  'invalid_json',
  'validation_failed',
  'unauthorized',
  'insufficient_credits',
  'key_credit_limit',
  'forbidden',
  'tool_not_allowed',
  'ip_not_allowed',
  'idempotency_conflict',
  // A repeat of a call its MCP client cancelled: REST and MCP share idempotency keys.
  'cancelled',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'unavailable',
  'tool_timeout',
  'internal_error',
];

/** Headers of a capture's answer through the render cache (a `POST` with `Cache-Control`). */
const RENDER_CACHE_HEADERS = {
  'X-Cache': headerRef('X-Cache'),
  Age: headerRef('Age'),
  ETag: headerRef('ETag'),
  'Cache-Control': {
    description: 'Through the render cache: `private, max-age=<seconds>`, what is left of the age the request accepted.',
    schema: { type: 'string' },
  },
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Each catalogue tool's operation, and its input and output schemas as the document's components. */
export function toolOperations(schemas: Map<string, ToolSchemas>): { operations: RouteOperation[]; schemas: Record<string, JsonSchema> } {
  const components: Record<string, JsonSchema> = {};
  const operations = [...CATALOGUE.values()].map((tool) => {
    const s = schemas.get(tool.name);
    if (!s) throw new Error(`no schemas for tool ${tool.name}`);
    const input = `${pascal(tool.name)}Input`;
    const output = `${pascal(tool.name)}Output`;
    components[input] = embedToolSchema(s.input, input) as JsonSchema;
    components[output] = embedToolSchema(s.output, output) as JsonSchema;
    const stored = tool.fileField ? `${pascal(tool.name)}StoredOutput` : undefined;
    if (stored) components[stored] = storedOutputSchema(components[output]!, tool.fileField!, stored);
    return operation('post', `/api/v1/tools/${tool.name}`, {
      tag: tool.group,
      operationId: tool.name,
      summary: `${tool.name} · ${plural(tool.cost, 'credit')}`,
      description: toolDescription(tool, s.input),
      'x-credits': tool.cost,
      security: [{ apiKey: [] }],
      parameters: [
        paramRef('Idempotency-Key'),
        paramRef('Prefer'),
        ...(stored ? [paramRef('Output-Destination')] : []),
        ...(tool.image ? [paramRef('Cache-Control'), paramRef('If-None-Match')] : []),
      ],
      // The answer with Output-Destination. Not a second schema of the 200 (an anyOf there makes
      // generated clients wrap every tool's output); named here and in the 200's description.
      ...(stored ? { 'x-stored-output': ref(stored) } : {}),
      requestBody: { required: true, content: json(ref(input), mediaExamples(s.input)) },
      ok: {
        '202': {
          description:
            'With `Prefer: respond-async`: the call runs; read it at `Location`. Nothing is charged yet.' +
            (tool.image
              ? ' With `Cache-Control`, a stored render is answered 200 at once instead, and a fresh one is stored once the call succeeded.'
              : ''),
          headers: {
            ...ANSWER_HEADERS,
            Location: headerRef('Location'),
            'Preference-Applied': headerRef('Preference-Applied'),
            'Retry-After': headerRef('Retry-After'),
            ...RATE_LIMIT_HEADERS,
            'Idempotent-Replayed': headerRef('Idempotent-Replayed'),
          },
          content: json(ref('CallAccepted')),
        },
        '200': {
          description: stored
            ? `The tool's output, unwrapped. The call is charged. With \`Output-Destination\` it is \`${stored}\` instead: \`stored\` in place of \`${tool.fileField}\`.`
            : "The tool's output, unwrapped. The call is charged.",
          headers: {
            ...ANSWER_HEADERS,
            'X-Credits-Charged': headerRef('X-Credits-Charged'),
            'X-Credits-Remaining': headerRef('X-Credits-Remaining'),
            ...RATE_LIMIT_HEADERS,
            'Idempotent-Replayed': headerRef('Idempotent-Replayed'),
            ...(tool.image ? RENDER_CACHE_HEADERS : {}),
          },
          content: json(ref(output), mediaExamples(s.output)),
        },
        ...(tool.image
          ? {
              '304': {
                description: "With `Cache-Control` and `If-None-Match` naming the stored render's ETag: not modified, free.",
                headers: { ...ANSWER_HEADERS, ...RENDER_CACHE_HEADERS },
              },
            }
          : {}),
      },
      codes: [...TOOL_CALL_CODES, ...tool.failures, ...(stored ? ['destination_error' as const] : [])],
    });
  });
  return { operations, schemas: components };
}

/** The output of a call with `Output-Destination`: `stored` in place of the file's base64, every other field as it was. */
function storedOutputSchema(output: JsonSchema, field: string, title: string): JsonSchema {
  const { [field]: _file, ...properties } = output.properties as Record<string, JsonSchema>;
  const required = (output.required as string[]).filter((name) => name !== field);
  return { ...output, title, properties: { stored: ref('StoredFile'), ...properties }, required: ['stored', ...required] };
}

function toolDescription(tool: ToolDefinition, input: JsonSchema): string {
  const limit = tool.maxBodyBytes ?? DEFAULT_BODY_LIMIT;
  const parts = [
    typeof input.description === 'string' ? input.description : '',
    `**Cost: ${plural(tool.cost, 'credit')}**, charged only when the call answers 200; any other answer leaves the balance as it was.`,
    `The request body may be up to ${limit / (1024 * 1024)} MiB. The call answers \`504 tool_timeout\` when the tool needs more than ${tool.timeoutMs / 1000} s.`,
  ];
  if (tool.fileField) {
    parts.push(
      "With `Output-Destination: dst_...` the file goes to that destination's bucket, at `{prefix}/{requestId}/0.{ext}`, and the answer carries `stored` " +
        `in place of \`${tool.fileField}\`; the call is charged only once the bucket accepted the file.`,
    );
  }
  if (tool.secretFields?.length) {
    parts.push(
      `${tool.secretFields.map((f) => `\`${f}\``).join(', ')} ${tool.secretFields.length === 1 ? 'is' : 'are'} used for this call only: never stored or logged.`,
    );
  }
  return parts.filter(Boolean).join('\n\n');
}

/** The catalogue, listed among the service's operations. */
export function catalogueOperations(): RouteOperation[] {
  return [
    operation('get', '/api/v1/tools', {
      tag: 'service',
      operationId: 'listTools',
      ...open(),
      summary: 'List the tools',
      description: 'The catalogue: every tool with its group, cost, path and input schema.',
      ok: plain('The catalogue.', json(ref('Catalogue'))),
      codes: ['internal_error'],
    }),
  ];
}
