//! http-request: one HTTP request exactly as described, and the whole response. Its precheck
//! needs no I/O: the URL, a method that may carry the body given, and the request headers, given
//! as an object or as the same object encoded in a JSON string. The header rules are what lets a
//! caller's request through unchanged without letting it alter how the request is framed or routed.
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject, Defaulted, StringEnum, StringMap, type Validated } from '../../lib/schema-types.js';
import { invalidField } from '../../contracts/errors.js';
import { defineTool, FAILURES } from './definition.js';
import { checkHttpUrl, HttpUrlField } from './http-url.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** GET and HEAD requests carry no body: servers and proxies may ignore or reject one. */
export const METHODS_WITHOUT_BODY: readonly HttpMethod[] = ['GET', 'HEAD'];

export const MAX_HEADERS = 100;
export const MAX_HEADER_NAME_LENGTH = 256;
export const MAX_HEADER_VALUE_LENGTH = 8192;

export const HttpRequestInput = ClosedObject(
  {
    url: HttpUrlField(
      'Absolute http or https URL, at most 2048 characters. Credentials in the URL are refused (send an Authorization header instead).',
    ),
    method: Defaulted(
      StringEnum(HTTP_METHODS, {
        description: `One of ${HTTP_METHODS.join(', ')}.`,
      }),
      'GET',
    ),
    headers: Type.Optional(
      Type.Union(
        [
          StringMap(Type.String({ maxLength: MAX_HEADER_VALUE_LENGTH }), {
            maxProperties: MAX_HEADERS,
            propertyNames: { maxLength: MAX_HEADER_NAME_LENGTH },
          }),
          Type.String({ maxLength: 900000 }),
        ],
        {
          description:
            'Request headers as an object of names to string values, or the same object encoded as a JSON string. At most 100 headers; names are HTTP tokens of at most 256 characters, values at most 8192 characters without line breaks; a name may appear once (case-insensitively). Host, Content-Length, Transfer-Encoding, Connection, Keep-Alive, Proxy-Connection, TE, Trailer, Upgrade, HTTP2-Settings and Expect are set by the service and refused (400). User-Agent defaults to UtilityTools/1.0 and Accept-Encoding to gzip, deflate, br when not given.',
        },
      ),
    ),
    body: Type.Optional(
      Type.String({
        description:
          'Request body, sent as-is (UTF-8) with POST, PUT, PATCH, DELETE or OPTIONS; a non-empty body with GET or HEAD is refused (400). Without a Content-Type header, text/plain;charset=UTF-8 is sent, as fetch does.',
      }),
    ),
  },
  {
    description:
      'One HTTP request to a public address, sent as described. Private, loopback, link-local and other non-public targets are refused (422 target_not_allowed), also when a name resolves to one. Redirects are returned, not followed.',
    examples: [
      {
        url: 'https://httpbin.org/post',
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: '{"hello":"world"}',
      },
    ],
  },
);
export type HttpRequestInput = Validated<typeof HttpRequestInput>;
export const HttpRequestOutput = ClosedObject(
  {
    statusCode: Type.Integer({ minimum: 100, maximum: 999, description: 'Status returned by the target.' }),
    statusText: Type.String({ description: 'Additive: the reason phrase the target sent (may be empty).' }),
    headers: StringMap(Type.Union([Type.String(), Type.Array(Type.String())]), {
      description:
        'Every response header by lower-case name, as received. A repeated header is joined with ", "; set-cookie is always an array of its values.',
    }),
    body: Type.String({
      description:
        'Response body as text, decoded from the charset the response declares (UTF-8 when none); a gzip, deflate or br content coding is undone first. Invalid bytes (a binary body) appear as U+FFFD. Empty for HEAD.',
    }),
    bodyTruncated: Type.Boolean({
      description:
        'Additive: true when the body was longer than 5 MiB (after undoing its content coding) and only the first 5 MiB are returned.',
    }),
    elapsedMs: Type.Integer({ minimum: 0, description: 'Round-trip time in milliseconds: DNS, connection, request and the whole body.' }),
  },
  {
    description:
      "The target's response. Any status the target sends (a 404 or a 500 included) is an answer (200); 502 upstream_error means no usable response came (DNS failure, refused connection, TLS failure, no answer within 15 s).",
    examples: [
      {
        statusCode: 200,
        statusText: 'OK',
        headers: { 'content-type': 'application/json', 'content-length': '17', 'set-cookie': ['a=1; Path=/', 'b=2; Path=/'] },
        body: '{"hello":"world"}',
        bodyTruncated: false,
        elapsedMs: 142,
      },
    ],
  },
);
export type HttpRequestOutput = Static<typeof HttpRequestOutput>;

/**
 * Headers the service sets itself. Host follows the URL (a caller's Host would address another
 * site on the checked server); Content-Length and Transfer-Encoding frame the body and must agree
 * with what is sent (a caller's value would allow request smuggling); the rest are hop-by-hop
 * (RFC 9110 7.6.1) or switch protocols (Upgrade, HTTP2-Settings) or wait for an interim answer
 * the service does not handle (Expect).
 */
export const FORBIDDEN_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
  'http2-settings',
  'expect',
]);

/** RFC 9110 5.1: a header name is a token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What Node's HTTP client accepts in a value: tab, visible ASCII and Latin-1; no line breaks. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** JSON pointer to one header (RFC 6901 escapes). */
const pointer = (name: string) => `/headers/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;

/** The headers of the input as an object, parsing the JSON-string form; 400 for any other shape. */
function headerObject(headers: HttpRequestInput['headers']): Record<string, unknown> {
  if (headers === undefined) return {};
  let value: unknown = headers;
  if (typeof headers === 'string') {
    try {
      value = JSON.parse(headers);
    } catch {
      throw invalidField(
        '/headers',
        'must be an object of header names to string values, or that object encoded as a JSON string; the string is not valid JSON',
      );
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidField('/headers', 'must be an object of header names to string values (as an object or a JSON string of one)');
  }
  return value as Record<string, unknown>;
}

/**
 * The request headers to send, names in lower case, or a 400 naming the header at fault: a
 * valid name and value, at most 100 headers, none the service sets itself, no name twice.
 */
export function requestHeaders(headers: HttpRequestInput['headers']): Record<string, string> {
  const entries = Object.entries(headerObject(headers));
  if (entries.length > MAX_HEADERS) throw invalidField('/headers', `must hold at most ${MAX_HEADERS} headers`);
  const out: Record<string, string> = {};
  for (const [name, value] of entries) {
    const field = pointer(name);
    if (!TOKEN.test(name) || name.length > MAX_HEADER_NAME_LENGTH) {
      throw invalidField(
        field,
        `is not a valid header name (letters, digits and !#$%&'*+-.^_\`|~, at most ${MAX_HEADER_NAME_LENGTH} characters)`,
      );
    }
    if (typeof value !== 'string') throw invalidField(field, 'must be a string');
    if (value.length > MAX_HEADER_VALUE_LENGTH) throw invalidField(field, `must be at most ${MAX_HEADER_VALUE_LENGTH} characters`);
    if (!FIELD_VALUE.test(value))
      throw invalidField(field, 'must be text without line breaks or control characters (visible ASCII and Latin-1 only)');
    const lower = name.toLowerCase();
    if (FORBIDDEN_HEADERS.has(lower))
      throw invalidField(field, 'is set by the service and cannot be sent: it follows from the URL and the body');
    if (Object.hasOwn(out, lower)) throw invalidField(field, 'is given twice (header names are case-insensitive)');
    out[lower] = value;
  }
  return out;
}

export function precheck(input: HttpRequestInput): void {
  checkHttpUrl('/url', input.url);
  if (!HTTP_METHODS.includes(input.method)) throw invalidField('/method', `must be one of ${HTTP_METHODS.join(', ')}`);
  if (input.body !== undefined) {
    if (typeof input.body !== 'string') throw invalidField('/body', 'must be a string');
    if (input.body !== '' && METHODS_WITHOUT_BODY.includes(input.method))
      throw invalidField('/body', `cannot be sent with ${input.method}; use POST, PUT, PATCH, DELETE or OPTIONS`);
  }
  requestHeaders(input.headers);
}

export const httpRequest = defineTool<HttpRequestInput, HttpRequestOutput>()({
  name: 'http-request',
  group: 'network',
  cost: 2,
  pool: 'network',
  schemas: { input: HttpRequestInput, output: HttpRequestOutput },
  timeoutMs: 25_000,
  failures: FAILURES.connects,
  precheck,
  targets: (input) => [{ url: input.url }],
});
