//! HTTP(S) requests that reach only addresses the target guard checked: the name is resolved once
//! by the guard and the socket is pinned to that address, while Host, SNI and certificate checks
//! keep using the name. Every redirect hop is re-checked. (Raw TCP and TLS: guarded-sockets.ts.)
import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';
import { pipeline, type Readable, type Transform } from 'node:stream';
import { ServiceError } from '../contracts/errors.js';
import type { CheckedUrl, ResolvedTarget, TargetGuard } from './target-guard.js';
import { Deadline, pinnedLookup, sameAddress, withRoots, type CaOption } from './upstream.js';
import { spanFailed, startSpan } from './trace-context.js';

export interface GuardedHttpOptions {
  /** The guard every hop goes through. */
  guard: TargetGuard;
  /**
   * Extra CA certificates (PEM) to trust besides Node's bundled roots. Note that Node then no
   * longer adds `NODE_EXTRA_CA_CERTS`: pass those here too if both are needed.
   * @default none (Node's roots plus `NODE_EXTRA_CA_CERTS`). Set for private PKI or tests.
   */
  ca?: CaOption;
  /**
   * `User-Agent` sent when the caller sets none.
   * @default 'UtilityTools/1.0'
   */
  userAgent?: string;
}

export interface GuardedRequestOptions {
  url: string | URL;
  /** @default 'GET' */
  method?: string;
  /** Request headers. `Host` follows the URL unless set here (it cannot change where we connect). */
  headers?: Record<string, string | string[] | number | undefined>;
  /** Sent as-is. Dropped when a redirect turns the request into a GET. */
  body?: string | Uint8Array;
  /**
   * Deadline for the whole call (DNS, every hop, the body), milliseconds.
   * @default 15000 (http-request's contract limit). Webhook delivery uses 10000.
   */
  timeoutMs?: number;
  /**
   * Body bytes kept (after decompression when `decompress` is on); the rest is not read and
   * `truncated` is set. @default 5 MiB. Raise for image (10 MiB) and document (20 MiB) downloads.
   */
  maxBytes?: number;
  /**
   * Redirects followed, each hop re-checked by the guard. 0 returns a 3xx response as it is
   * (http-request, webhooks); page fetchers and downloads follow a few. @default 0
   */
  maxRedirects?: number;
  /**
   * Ask for and undo gzip, deflate and br content codings. Off, the body is the bytes on the wire.
   * @default false
   */
  decompress?: boolean;
  /** Aborts the call (the activity was cancelled); the abort reason is thrown. */
  signal?: AbortSignal;
  /** URL schemes accepted, for the first URL and every redirect. @default ['http', 'https'] */
  schemes?: readonly string[];
}

export interface GuardedResponse {
  statusCode: number;
  statusMessage: string;
  httpVersion: string;
  /** Every response header as Node gives them (repeated ones joined, `set-cookie` an array). */
  headers: http.IncomingHttpHeaders;
  /** The headers exactly as received: name, value, name, value ... */
  rawHeaders: string[];
  body: Buffer;
  /** True when the body was cut at `maxBytes`. */
  truncated: boolean;
  /** True when `body` was decoded from the response's content coding. */
  decompressed: boolean;
  /** URL of the response returned (after any redirects followed). */
  finalUrl: string;
  /** Every redirect target followed, in order. */
  redirects: string[];
  elapsedMs: number;
  /** The checked address the final response came from. */
  remoteAddress: string;
}

export interface GuardedHttp {
  request(options: GuardedRequestOptions): Promise<GuardedResponse>;
}

export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

// ---------------------------------------------------------------------------------------------
// Small pure helpers

/** Decoders for a Content-Encoding value, outermost last; `undefined` for codings we cannot undo. */
export function decodersFor(contentEncoding: string | undefined): (() => Transform)[] | undefined {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
  const lenient = { finishFlush: zlib.constants.Z_SYNC_FLUSH }; // accept a stream cut at a flush point, as browsers do
  const make: Record<string, () => Transform> = {
    gzip: () => zlib.createGunzip(lenient),
    'x-gzip': () => zlib.createGunzip(lenient),
    deflate: () => zlib.createInflate(lenient),
    br: () => zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }),
  };
  if (!codings.every((c) => make[c])) return undefined;
  return codings.reverse().map((c) => make[c]!);
}

const STRIP_ON_CROSS_ORIGIN = ['authorization', 'cookie', 'proxy-authorization'];
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'transfer-encoding'];

interface Hop {
  url: URL;
  method: string;
  headers: Record<string, string | string[] | number>;
  body?: string | Uint8Array;
}

/** The request for the next hop, as browsers do it: 303 (and 301/302 after POST) become GET. */
export function nextHop(previous: Hop, status: number, next: URL): Hop {
  const toGet = (status === 303 && previous.method !== 'HEAD') || ((status === 301 || status === 302) && previous.method === 'POST');
  const headers = { ...previous.headers };
  if (toGet) for (const h of BODY_HEADERS) delete headers[h];
  if (next.origin !== previous.url.origin) for (const h of STRIP_ON_CROSS_ORIGIN) delete headers[h];
  delete headers.host; // a Host chosen for the first URL does not belong to the next one
  return { url: next, method: toGet ? 'GET' : previous.method, headers, body: toGet ? undefined : previous.body };
}

function lowerCaseHeaders(headers: GuardedRequestOptions['headers']): Record<string, string | string[] | number> {
  const out: Record<string, string | string[] | number> = {};
  for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined) out[name.toLowerCase()] = value;
  return out;
}

/** One hop's request on a socket pinned to `target`, the address the guard checked. */
function send(
  hop: Hop,
  checked: CheckedUrl,
  target: ResolvedTarget,
  signal: AbortSignal,
  ca: ReturnType<typeof withRoots>,
): Promise<http.IncomingMessage> {
  const secure = hop.url.protocol === 'https:' || hop.url.protocol === 'wss:';
  const requestOptions: https.RequestOptions = {
    method: hop.method,
    host: checked.hostname,
    port: checked.port,
    path: `${hop.url.pathname}${hop.url.search}`,
    headers: hop.headers,
    agent: false, // no pooled sockets: every connection is made to this hop's checked address
    lookup: pinnedLookup(target),
    signal,
    ...(secure ? { servername: checked.ip ? undefined : checked.hostname, ca } : {}),
  };
  return new Promise((resolve, reject) => {
    let req: http.ClientRequest;
    try {
      req = (secure ? https : http).request(requestOptions);
    } catch (err) {
      // Node validates header names and values synchronously.
      const message = err instanceof Error ? err.message : 'invalid request';
      reject(
        new ServiceError('validation_failed', `Invalid request: ${message}`, { errors: [{ field: '/headers', message }] }, { cause: err }),
      );
      return;
    }
    req.on('error', reject); // stays attached: a late socket error must not go unhandled
    req.once('response', (res) => {
      if (!sameAddress(res.socket?.remoteAddress, target.address)) {
        res.destroy();
        reject(new Error(`pinned connection reached ${res.socket?.remoteAddress}, expected ${target.address}`));
        return;
      }
      resolve(res);
    });
    req.end(hop.body);
  });
}

/** The body, decoded when asked, cut at `maxBytes`. */
async function readBody(res: http.IncomingMessage, maxBytes: number, decompress: boolean, signal: AbortSignal) {
  const decoders = decompress ? decodersFor(res.headers['content-encoding']) : undefined;
  let source: Readable = res;
  if (decoders?.length) {
    const streams = decoders.map((make) => make());
    source = pipeline([res, ...streams], () => {}) as unknown as Readable;
  }
  const onAbort = () => source.destroy(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      const room = maxBytes - size;
      if (chunk.length > room) {
        if (room > 0) chunks.push(chunk.subarray(0, room));
        size = maxBytes;
        truncated = true;
        break; // leaving the loop destroys the stream (and the socket): the rest is never read
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    res.destroy();
  }
  return { body: Buffer.concat(chunks, size), truncated, decompressed: Boolean(decoders?.length) };
}

// ---------------------------------------------------------------------------------------------
// The client

export function createGuardedHttp(options: GuardedHttpOptions): GuardedHttp {
  const { guard } = options;
  const userAgent = options.userAgent ?? 'UtilityTools/1.0';
  const ca = withRoots(options.ca);

  async function request(opts: GuardedRequestOptions): Promise<GuardedResponse> {
    const started = performance.now();
    const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
    const maxRedirects = opts.maxRedirects ?? 0;
    const schemes = opts.schemes ?? ['http', 'https'];
    const headers = lowerCaseHeaders(opts.headers);
    headers['user-agent'] ??= userAgent;
    if (opts.decompress) headers['accept-encoding'] ??= 'gzip, deflate, br';

    let checked = guard.checkUrl(opts.url, { schemes });
    const deadline = new Deadline(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, opts.signal);
    let hop: Hop = { url: checked.url, method: (opts.method ?? 'GET').toUpperCase(), headers, body: opts.body };
    const redirects: string[] = [];
    try {
      for (;;) {
        // One span per hop: where it went (host, port, checked address) and what came back; never
        // the path, the query or a header, which may carry credentials.
        const span = startSpan('upstream http', {
          'server.address': checked.hostname,
          'server.port': checked.port,
          'http.request.method': hop.method,
        });
        let res: http.IncomingMessage;
        let target: ResolvedTarget;
        try {
          target = await deadline.race(guard.resolveTarget(checked.hostname, checked.port));
          span.setAttribute('network.peer.address', target.address);
          res = await send(hop, checked, target, deadline.signal, ca);
          span.setAttribute('http.response.status_code', res.statusCode ?? 0);
        } catch (err) {
          spanFailed(span, err);
          span.end();
          throw err;
        }
        const location = res.headers.location;
        if (maxRedirects > 0 && REDIRECT_STATUSES.has(res.statusCode ?? 0) && location) {
          span.end();
          res.destroy();
          if (redirects.length >= maxRedirects) {
            throw new ServiceError('upstream_error', `More than ${maxRedirects} redirects from ${checked.url.host}`, {
              reason: 'too_many_redirects',
            });
          }
          let next: URL;
          try {
            next = new URL(location, hop.url);
          } catch (err) {
            throw new ServiceError(
              'upstream_error',
              `${checked.url.host} sent an invalid redirect`,
              { reason: 'bad_redirect' },
              { cause: err },
            );
          }
          try {
            checked = guard.checkUrl(next, { schemes });
          } catch (err) {
            throw redirectRefused(err);
          }
          hop = nextHop(hop, res.statusCode!, checked.url);
          redirects.push(checked.url.href);
          continue;
        }
        const remoteAddress = res.socket?.remoteAddress ?? target.address;
        const { body, truncated, decompressed } = await readBody(res, maxBytes, Boolean(opts.decompress), deadline.signal).then(
          (read) => {
            span.setAttribute('http.response.body.size', read.body.length);
            span.end();
            return read;
          },
          (err: unknown) => {
            spanFailed(span, err);
            span.end();
            throw err;
          },
        );
        return {
          statusCode: res.statusCode ?? 0,
          statusMessage: res.statusMessage ?? '',
          httpVersion: res.httpVersion,
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          body,
          truncated,
          decompressed,
          finalUrl: checked.url.href,
          redirects,
          elapsedMs: Math.round(performance.now() - started),
          remoteAddress,
        };
      }
    } catch (err) {
      const translated = deadline.translate(err, checked.hostname, checked.port);
      throw redirects.length && translated instanceof ServiceError && translated.code === 'target_not_allowed'
        ? redirectRefused(translated)
        : translated;
    } finally {
      deadline.clear();
    }
  }

  return { request };
}

function redirectRefused(err: unknown): unknown {
  if (!(err instanceof ServiceError) || err.message.startsWith('Redirect refused')) return err;
  return new ServiceError(err.code, `Redirect refused: ${err.message}`, err.extras, { cause: err.cause });
}
