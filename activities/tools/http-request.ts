//! http-request: one request exactly as described, through the guarded client, and the whole
//! response: every header, the body as text (first 5 MiB), redirects returned rather than followed.
import {
  METHODS_WITHOUT_BODY,
  precheck,
  requestHeaders,
  type HttpRequestInput,
  type HttpRequestOutput,
} from '../../domain/tools/http-request.js';
import type { GuardedHttp } from '../../lib/guarded-http.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import { decodeBody, headersFromRaw } from '../network/http-message.js';

export interface HttpRequestDeps {
  http: Pick<GuardedHttp, 'request'>;
  /**
   * Deadline for the whole exchange, body included, milliseconds.
   * @default 15000 (docs/API.md). Lower only in tests.
   */
  timeoutMs?: number;
  /** Body bytes returned (after undoing a content coding). @default 5 MiB (docs/API.md) */
  maxBodyBytes?: number;
}

export const HTTP_REQUEST_TIMEOUT_MS = 15_000;
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

/** What fetch sends for a string body without a type; a server may refuse a body with none. */
const DEFAULT_BODY_TYPE = 'text/plain;charset=UTF-8';

export function createHttpRequest(deps: HttpRequestDeps): ToolHandler<HttpRequestInput, HttpRequestOutput> {
  const timeoutMs = deps.timeoutMs ?? HTTP_REQUEST_TIMEOUT_MS;
  const maxBytes = deps.maxBodyBytes ?? MAX_BODY_BYTES;
  return async (input, ctx) => {
    precheck(input);
    const headers = requestHeaders(input.headers);
    const sendsBody = input.body !== undefined && !METHODS_WITHOUT_BODY.includes(input.method);
    if (sendsBody) {
      headers['content-type'] ??= DEFAULT_BODY_TYPE;
      // Node frames a body by itself only for methods it expects one with: DELETE and OPTIONS
      // bodies would go out unframed and the server would read them as the next request.
      headers['content-length'] = String(Buffer.byteLength(input.body!));
    }
    const res = await deps.http.request({
      url: input.url,
      method: input.method,
      headers,
      body: sendsBody ? input.body : undefined,
      timeoutMs,
      maxBytes,
      maxRedirects: 0,
      // The body is returned as text: a gzip body would be unreadable. The headers still say how
      // it travelled (Content-Encoding, Content-Length of the encoded bytes).
      decompress: true,
      signal: ctx.signal,
    });
    return {
      statusCode: res.statusCode,
      statusText: res.statusMessage,
      headers: headersFromRaw(res.rawHeaders),
      body: decodeBody(res.body, res.headers['content-type']),
      bodyTruncated: res.truncated,
      elapsedMs: res.elapsedMs,
    };
  };
}
