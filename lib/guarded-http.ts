//! HTTP(S) requests and raw TCP/TLS connections that reach only addresses the target guard
//! checked: the name is resolved once by the guard and the socket is pinned to that address,
//! while Host, SNI and certificate checks keep using the name. Every redirect hop is re-checked.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import zlib from 'node:zlib';
import { pipeline, type Readable, type Transform } from 'node:stream';
import { ToolError } from './errors.js';
import { canonicalAddress, type CheckedUrl, type ResolvedTarget, type TargetGuard } from './target-guard.js';

type CaOption = string | Buffer | ReadonlyArray<string | Buffer>;

export interface GuardedHttpOptions {
  /** The guard every hop and connection goes through. */
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

export interface GuardedConnectOptions {
  /** Host as the user typed it; resolved and checked by the guard. Give this or `target`. */
  host?: string;
  /** Port to connect to (ignored when `target` is given; the target carries its port). */
  port?: number;
  /** A target this guard already resolved, e.g. for repeated probes of the same address. */
  target?: ResolvedTarget;
  /** Implicit TLS right after connecting. @default false */
  tls?: boolean;
  /** SNI and certificate name. @default the target's hostname (none for an IP literal) */
  servername?: string;
  /**
   * Fail the handshake on an invalid certificate. Turn off only to report on certificates
   * (ssl-check): the result then carries `authorized` and `authorizationError`. @default true
   */
  rejectUnauthorized?: boolean;
  /** Extra trusted CAs for this connection, on top of the client's. */
  ca?: CaOption;
  /**
   * Connect (and handshake) deadline, milliseconds. The returned socket has no timeout and no
   * 'error' listener: the caller owns it from then on and must handle both.
   */
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface GuardedConnection<S extends net.Socket = net.Socket> {
  socket: S;
  target: ResolvedTarget;
  /** Time to the TCP handshake (or the TLS one, with `tls`), milliseconds. */
  connectMs: number;
  /** With TLS: whether the certificate chain and name verified, and why not. */
  authorized?: boolean;
  authorizationError?: string;
}

export interface StartTlsOptions {
  /** Name for SNI and the certificate check (the target's hostname). */
  hostname: string;
  rejectUnauthorized?: boolean;
  ca?: CaOption;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface UpgradedSocket {
  socket: tls.TLSSocket;
  handshakeMs: number;
  authorized: boolean;
  authorizationError?: string;
}

export interface GuardedHttp {
  request(options: GuardedRequestOptions): Promise<GuardedResponse>;
  /** A TCP (or TLS) connection to a guard-checked address (smtp-test, ssl-check, ping over TCP). */
  connect(options: GuardedConnectOptions & { tls: true }): Promise<GuardedConnection<tls.TLSSocket>>;
  connect(options: GuardedConnectOptions): Promise<GuardedConnection>;
  /** Upgrades a connected socket to TLS (SMTP STARTTLS). */
  startTls(socket: net.Socket, options: StartTlsOptions): Promise<UpgradedSocket>;
}

export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

// ---------------------------------------------------------------------------------------------
// Error mapping (pure)

/** Why an upstream could not be used. Stable strings: clients see them as the problem's `reason`. */
export type UpstreamReason =
  | 'timeout'
  | 'connection_refused'
  | 'connection_reset'
  | 'unreachable'
  | 'tls'
  | 'protocol'
  | 'bad_encoding'
  | 'bad_redirect'
  | 'too_many_redirects'
  | 'network';

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|EPROTO$)/;

export function upstreamReason(err: unknown): UpstreamReason {
  const code = String((err as { code?: unknown })?.code ?? '');
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE') return 'connection_reset';
  if (code === 'ETIMEDOUT') return 'timeout';
  if (['EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EHOSTDOWN', 'EADDRNOTAVAIL'].includes(code)) return 'unreachable';
  if (TLS_CODE.test(code)) return 'tls';
  if (code.startsWith('HPE_')) return 'protocol';
  // zlib: Z_DATA_ERROR ...; brotli: ERR__ERROR_FORMAT_PADDING_1 ... (the decoder's error name).
  if (code.startsWith('Z_') || code.startsWith('ERR__ERROR_') || code.startsWith('ERR_BROTLI')) return 'bad_encoding';
  return 'network';
}

/** System (errno) errors and the TLS, HTTP-parser and zlib failures `upstreamReason` knows. */
function isNetworkError(err: unknown): boolean {
  return typeof (err as { syscall?: unknown })?.syscall === 'string' || upstreamReason(err) !== 'network';
}

const hostPort = (host: string, port: number) => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/**
 * Turns a socket, TLS, HTTP-parser or zlib error into the client-safe `upstream_error`. The
 * message names only the user's own target; Node's text (which may carry addresses) stays in
 * `cause` for the logs.
 */
export function upstreamError(err: unknown, host: string, port: number): ToolError {
  const reason = upstreamReason(err);
  const where = hostPort(host, port);
  const code = String((err as { code?: unknown })?.code ?? '');
  const messages: Record<UpstreamReason, string> = {
    timeout: `${where} did not answer in time`,
    connection_refused: `Could not connect to ${where}: connection refused`,
    connection_reset: `The connection to ${where} was closed unexpectedly`,
    unreachable: `${where} is unreachable`,
    tls: `TLS with ${where} failed${code ? ` (${code})` : ''}`,
    protocol: `${where} sent a malformed HTTP response`,
    bad_encoding: `The response from ${where} could not be decompressed`,
    bad_redirect: `${where} sent an invalid redirect`,
    too_many_redirects: `Too many redirects from ${where}`,
    network: `Could not talk to ${where}`,
  };
  const extras = reason === 'tls' && code ? { reason, tlsError: code } : { reason };
  return new ToolError('upstream_error', messages[reason], extras, { cause: err });
}

// ---------------------------------------------------------------------------------------------
// Small pure helpers

/** The `lookup` that makes Node connect to the checked address whatever name it was given. */
function pinnedLookup(target: ResolvedTarget): net.LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as unknown as net.LookupFunction;
}

function sameAddress(a: string | undefined, b: string): boolean {
  try {
    return a !== undefined && canonicalAddress(a) === canonicalAddress(b);
  } catch {
    return false;
  }
}

function withRoots(ca: CaOption | undefined, extra?: CaOption): Array<string | Buffer> | undefined {
  if (!ca && !extra) return undefined;
  const list = (x?: CaOption) => (x === undefined ? [] : Array.isArray(x) ? [...x] : [x as string | Buffer]);
  return [...tls.rootCertificates, ...list(ca), ...list(extra)];
}

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

// ---------------------------------------------------------------------------------------------
// Deadline and cancellation

class Deadline {
  readonly controller = new AbortController();
  timedOut = false;
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort = () => this.controller.abort(this.caller?.reason);

  constructor(
    readonly ms: number,
    private readonly caller?: AbortSignal,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new Error('deadline'));
    }, ms);
    if (caller?.aborted) this.onAbort();
    else caller?.addEventListener('abort', this.onAbort, { once: true });
  }

  get signal() {
    return this.controller.signal;
  }

  /** Settles `work` early when the deadline passes or the caller aborts. */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.signal.aborted) return Promise.reject(this.signal.reason);
    return new Promise<T>((resolve, reject) => {
      const stop = () => reject(this.signal.reason);
      this.signal.addEventListener('abort', stop, { once: true });
      work.then(resolve, reject).finally(() => this.signal.removeEventListener('abort', stop));
    });
  }

  /** What to throw for `err`, given how the call ended. */
  translate(err: unknown, host: string, port: number): unknown {
    if (this.timedOut) {
      return new ToolError('upstream_error', `${hostPort(host, port)} did not answer within ${this.ms} ms`, { reason: 'timeout' }, { cause: err });
    }
    if (this.caller?.aborted) return this.caller.reason ?? err;
    if (err instanceof ToolError || !isNetworkError(err)) return err; // bugs stay internal errors
    return upstreamError(err, host, port);
  }

  clear() {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onAbort);
  }
}

// ---------------------------------------------------------------------------------------------
// The client

export function createGuardedHttp(options: GuardedHttpOptions): GuardedHttp {
  const { guard } = options;
  const userAgent = options.userAgent ?? 'UtilityTools/1.0';
  const ca = withRoots(options.ca);

  function send(hop: Hop, checked: CheckedUrl, target: ResolvedTarget, signal: AbortSignal): Promise<http.IncomingMessage> {
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
        reject(new ToolError('validation_failed', `Invalid request: ${message}`, { errors: [{ field: '/headers', message }] }, { cause: err }));
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
        const target = await deadline.race(guard.resolveTarget(checked.hostname, checked.port));
        const res = await send(hop, checked, target, deadline.signal);
        const location = res.headers.location;
        if (maxRedirects > 0 && REDIRECT_STATUSES.has(res.statusCode ?? 0) && location) {
          res.destroy();
          if (redirects.length >= maxRedirects) {
            throw new ToolError('upstream_error', `More than ${maxRedirects} redirects from ${checked.url.host}`, { reason: 'too_many_redirects' });
          }
          let next: URL;
          try {
            next = new URL(location, hop.url);
          } catch (err) {
            throw new ToolError('upstream_error', `${checked.url.host} sent an invalid redirect`, { reason: 'bad_redirect' }, { cause: err });
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
        const { body, truncated, decompressed } = await readBody(res, maxBytes, Boolean(opts.decompress), deadline.signal);
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
      throw redirects.length && translated instanceof ToolError && translated.code === 'target_not_allowed' ? redirectRefused(translated) : translated;
    } finally {
      deadline.clear();
    }
  }

  async function connect(opts: GuardedConnectOptions): Promise<GuardedConnection<any>> {
    const deadline = new Deadline(opts.timeoutMs, opts.signal);
    const where = { host: opts.target?.hostname ?? opts.host ?? '', port: opts.target?.port ?? opts.port ?? 0 };
    let socket: net.Socket | undefined;
    try {
      let target: ResolvedTarget;
      if (opts.target) {
        if (!guard.issued(opts.target)) throw new TypeError('connect() takes only targets resolved by its own guard');
        target = opts.target;
      } else {
        if (opts.host === undefined || opts.port === undefined) throw new TypeError('connect() needs host and port, or target');
        target = await deadline.race(guard.resolveHost(opts.host, opts.port));
      }
      where.host = target.hostname;
      const started = performance.now();
      const base = { host: target.hostname, port: target.port, lookup: pinnedLookup(target), autoSelectFamily: false };
      const isIp = net.isIP(target.hostname) !== 0;
      socket = opts.tls
        ? tls.connect({
            ...base,
            servername: opts.servername ?? (isIp ? undefined : target.hostname),
            rejectUnauthorized: opts.rejectUnauthorized ?? true,
            ca: withRoots(options.ca, opts.ca),
          })
        : net.connect(base);
      await deadline.race(settleOn(socket, opts.tls ? 'secureConnect' : 'connect'));
      if (!sameAddress(socket.remoteAddress, target.address)) throw new Error(`pinned connection reached ${socket.remoteAddress}`);
      const connectMs = performance.now() - started;
      if (!opts.tls) return { socket, target, connectMs };
      const secure = socket as tls.TLSSocket;
      return { socket: secure, target, connectMs, authorized: secure.authorized, authorizationError: errorText(secure.authorizationError) };
    } catch (err) {
      socket?.destroy();
      throw deadline.translate(err, where.host, where.port);
    } finally {
      deadline.clear();
    }
  }

  async function startTls(socket: net.Socket, opts: StartTlsOptions): Promise<UpgradedSocket> {
    const deadline = new Deadline(opts.timeoutMs, opts.signal);
    const started = performance.now();
    const isIp = net.isIP(opts.hostname) !== 0;
    const secure = tls.connect({
      socket,
      host: opts.hostname,
      servername: isIp ? undefined : opts.hostname,
      rejectUnauthorized: opts.rejectUnauthorized ?? true,
      ca: withRoots(options.ca, opts.ca),
    });
    try {
      await deadline.race(settleOn(secure, 'secureConnect'));
      return {
        socket: secure,
        handshakeMs: performance.now() - started,
        authorized: secure.authorized,
        authorizationError: errorText(secure.authorizationError),
      };
    } catch (err) {
      secure.destroy();
      throw deadline.translate(err, opts.hostname, socket.remotePort ?? 0);
    } finally {
      deadline.clear();
    }
  }

  return { request, connect, startTls } as GuardedHttp;
}

function redirectRefused(err: unknown): unknown {
  if (!(err instanceof ToolError) || err.message.startsWith('Redirect refused')) return err;
  return new ToolError(err.code, `Redirect refused: ${err.message}`, err.extras, { cause: err.cause });
}

function errorText(error: unknown): string | undefined {
  if (error === null || error === undefined) return undefined;
  return error instanceof Error ? ((error as { code?: string }).code ?? error.message) : String(error);
}

function settleOn(socket: net.Socket, event: 'connect' | 'secureConnect'): Promise<void> {
  return new Promise((resolve, reject) => {
    const ok = () => {
      socket.off('error', fail);
      resolve();
    };
    const fail = (err: Error) => {
      socket.off(event, ok);
      reject(err);
    };
    socket.once(event, ok);
    socket.once('error', fail);
  });
}
