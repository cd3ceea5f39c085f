//! What a route module needs to document the operations it serves: `operation()` and the shared
//! parts of their answers, security and error codes. `api/openapi.ts` collects the operations
//! and turns each one's `codes` into its problem answers.
import type { ErrorCode } from '../../contracts/errors.js';
import { ANSWER_HEADERS, json, paramRef, RATE_LIMIT_HEADERS, type Json, type Tag } from './openapi-parts.js';
import { ref, type JsonSchema } from './schema-parts.js';
import { LIMIT_DEFAULT, LIMIT_MAX } from '../paging.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A code this operation answers with another status than the code's own (ServiceErrorOptions.status). */
export interface CodeAtStatus {
  code: ErrorCode;
  status: number;
}

/** An operation's OpenAPI fields, with its tag, its success answers and the error codes it may answer. */
export type OperationSpec = Json & { tag: Tag; ok: Record<string, Json>; codes: readonly (ErrorCode | CodeAtStatus)[] };

/** One documented operation: the method and OpenAPI path a router serves. */
export interface RouteOperation {
  method: Method;
  path: string;
  spec: OperationSpec;
}

export const operation = (method: Method, path: string, spec: OperationSpec): RouteOperation => ({ method, path, spec });

/** Codes of an API key's check and the rate limit (reading asynchronous calls). */
export const KEY_CODES: readonly ErrorCode[] = ['unauthorized', 'forbidden', 'rate_limited', 'unavailable', 'internal_error'];
/** Codes of the account API's owner-token or session check, its role check (domain/teams/permissions.ts) and rate limit. */
export const OWNER_CODES: readonly ErrorCode[] = [
  'unauthorized',
  'unauthenticated',
  'forbidden',
  'forbidden_for_role',
  'csrf_rejected',
  'rate_limited',
  'unavailable',
  'internal_error',
];
/** A signed-in person's routes: no session, or a change from another site. */
export const SESSION_CODES: readonly ErrorCode[] = ['unauthenticated', 'csrf_rejected', 'unavailable', 'internal_error'];
/** The operator API answers 404 while ADMIN_TOKEN is unset. */
export const ADMIN_CODES: readonly ErrorCode[] = ['unauthorized', 'not_found', 'unavailable', 'internal_error'];
/** Reading a JSON body (`api/body.ts`) and validating it. */
export const BODY_CODES: readonly ErrorCode[] = ['invalid_json', 'validation_failed', 'payload_too_large', 'unsupported_media_type'];

/** Security requirements, spread into an operation. */
/** The account API: the owner token from scripts, or a signed-in dashboard session. */
export const owner = () => ({ security: [{ ownerToken: [] }, { sessionCookie: [] }] });
/** A signed-in person's own routes: the session cookie only. */
export const session = () => ({ security: [{ sessionCookie: [] }] });
/** A route that takes a session when there is one and answers the same without (sign-out). */
export const optionalSession = () => ({ security: [{}, { sessionCookie: [] }] });
export const admin = () => ({ security: [{ adminToken: [] }] });
export const open = () => ({ security: [] });

/** A success answer behind the per-account rate limit. */
export const withRateLimit = (description: string, content?: Json, status = '200') => ({
  [status]: { description, headers: { ...ANSWER_HEADERS, ...RATE_LIMIT_HEADERS }, ...(content ? { content } : {}) },
});

/** A success answer without rate-limit headers. */
export const plain = (description: string, content?: Json, status = '200') => ({
  [status]: { description, headers: { ...ANSWER_HEADERS }, ...(content ? { content } : {}) },
});

/**
 * OpenAPI links from one answer to the operations that take what it returns (by operationId:
 * path parameters, or `requestBody` for the whole body), so clients and stateful fuzzers can
 * follow a created resource to the operations on it.
 */
// Links carry parameters only: generators read a link's requestBody as one runtime expression
// string (OpenAPI Generator refuses the document otherwise), and no body here is a single value.
export const linked = (ok: Record<string, Json>, targets: Record<string, Record<string, string>>) =>
  Object.fromEntries(
    Object.entries(ok).map(([status, response]) => [
      status,
      {
        ...response,
        links: Object.fromEntries(Object.entries(targets).map(([operationId, parameters]) => [operationId, { operationId, parameters }])),
      },
    ]),
  );

/** Who may call an operation: its security requirements and the codes their check answers with. */
export interface Access {
  security: Json[];
  codes: readonly ErrorCode[];
}
export const OWNER: Access = { ...owner(), codes: OWNER_CODES };
export const KEY: Access = { security: [{ apiKey: [] }], codes: KEY_CODES };
export const ADMIN: Access = { ...admin(), codes: ADMIN_CODES };
export const SESSION: Access = { ...session(), codes: SESSION_CODES };

/** An operation of a resource: what is its own, the resource adding its tag, credential and id. */
export type ResourceSpec = Json & { ok: Record<string, Json>; codes?: readonly (ErrorCode | CodeAtStatus)[] };

/**
 * The operations of one resource under one tag and one credential: each gets the tag, the
 * security, the credential's codes before its own (if any), and, when its path takes `{id}`, the `id`
 * parameter (a component's name, `EndpointId`) before its own parameters.
 */
export function resource(tag: Tag, access: Access, id?: string) {
  return (method: Method, path: string, spec: ResourceSpec): RouteOperation => {
    const { parameters = [], codes = [], ...rest } = spec;
    const all = id && path.includes('{id}') ? [paramRef(id), ...(parameters as Json[])] : (parameters as Json[]);
    return operation(method, path, {
      tag,
      security: access.security,
      ...rest,
      ...(all.length ? { parameters: all } : {}),
      codes: [...access.codes, ...codes],
    });
  };
}

/** The size and cursor of a page of a list (`<Name>Page` answers). */
export const PAGE_PARAMETERS: readonly Json[] = [paramRef('UsageLimit'), paramRef('UsageCursor')];

/** The same for a list with a size of its own (api/paging.ts): `noun` per page. */
export const pageParameters = (noun: string, max = LIMIT_MAX, fallback = LIMIT_DEFAULT): Json[] => [
  {
    name: 'limit',
    in: 'query',
    required: false,
    description: `${noun} per page.`,
    schema: { type: 'integer', minimum: 1, maximum: max, default: fallback },
  },
  paramRef('UsageCursor'),
];

/** A JSON answer behind the rate limit: a component by its name (`'Batch'`) or a schema; none for a 204. */
export const answer = (description: string, schema?: string | Json, status = '200') =>
  withRateLimit(description, schema === undefined ? undefined : json(typeof schema === 'string' ? ref(schema) : schema), status);

/** A list of one component, whole (not paged). */
export const listOf = (name: string) => ({ type: 'array', items: ref(name) });

/** A JSON request body with one example; `required` false when the body may be left out. */
export const jsonBody = (schema: unknown, value?: Json, required = true) => ({
  required,
  content: json(schema, value === undefined ? {} : example(value)),
});

/** `linked` to operations that each take the new resource's `id` from the answer. */
export const linkedById = (ok: Record<string, Json>, operationIds: readonly string[]) =>
  linked(ok, Object.fromEntries(operationIds.map((operationId) => [operationId, { id: '$response.body#/id' }])));

/** The path and query of a signed link to a file (api/signed-file-links.ts): the file, its expiry and its signature. */
export const signedLinkParameters = (file: RegExp, noun: string): Json[] => [
  {
    name: 'file',
    in: 'path',
    required: true,
    schema: { type: 'string', pattern: file.source },
    description: `The ${noun}, as the link names it.`,
  },
  {
    name: 'expires',
    in: 'query',
    required: true,
    schema: { type: 'integer' },
    description: `When the link stops opening the ${noun} (Unix seconds).`,
  },
  {
    name: 'signature',
    in: 'query',
    required: true,
    schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    description: "The link's signature: the last parameter.",
  },
];

/** One media-type example (the request bodies' schemas are shared with validation and carry none). */
export const example = (value: Json) => ({ examples: { example: { value } } });

/** JSON Schema `examples` (an array of instances) as OpenAPI media-type examples, which renderers show. */
export function mediaExamples(schema: JsonSchema): Json {
  const list = Array.isArray(schema.examples) ? schema.examples : [];
  if (list.length === 0) return {};
  return { examples: Object.fromEntries(list.map((value, i) => [list.length === 1 ? 'example' : `example${i + 1}`, { value }])) };
}

/**
 * A tool schema as the document embeds it, under `components.schemas/<name>`. Its own `#/...`
 * references get that prefix, or they would resolve against the document's root. Its
 * descriptions are plain text, which OpenAPI reads as CommonMark: a placeholder such as
 * `<salt>` would be taken for an HTML tag and vanish, so `<` is escaped outside code spans.
 */
export function embedToolSchema(schema: unknown, name: string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => embedToolSchema(s, name));
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#')) return [k, `#/components/schemas/${name}${v.slice(1)}`];
      if (k === 'description' && typeof v === 'string') return [k, escapeHtmlOutsideCode(v)];
      return [k, embedToolSchema(v, name)];
    }),
  );
}

/** Escapes `<` in the text between code spans (odd pieces of a split on backticks are code). */
function escapeHtmlOutsideCode(text: string): string {
  return text
    .split('`')
    .map((piece, i) => (i % 2 === 0 ? piece.replaceAll('<', '&lt;') : piece))
    .join('`');
}
