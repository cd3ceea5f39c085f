//! What the guarded clients share (guarded-http.ts for HTTP, guarded-sockets.ts for raw TCP and
//! TLS): a call's deadline and cancellation, the lookup that pins a socket to the checked address,
//! the CA roots, and the mapping of socket, TLS, HTTP-parser and zlib errors to `upstream_error`.
import type net from 'node:net';
import tls from 'node:tls';
import { ServiceError } from '../contracts/errors.js';
import type { ResolvedTarget } from './target-guard.js';
import { canonicalAddress } from './address-class.js';
import { abortable } from './abortable.js';

export type CaOption = string | Buffer | ReadonlyArray<string | Buffer>;

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
export function upstreamError(err: unknown, host: string, port: number): ServiceError {
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
  return new ServiceError('upstream_error', messages[reason], extras, { cause: err });
}

// ---------------------------------------------------------------------------------------------
// Pinning and trust

/** The `lookup` that makes Node connect to the checked address whatever name it was given. */
export function pinnedLookup(target: ResolvedTarget): net.LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as unknown as net.LookupFunction;
}

export function sameAddress(a: string | undefined, b: string): boolean {
  try {
    return a !== undefined && canonicalAddress(a) === canonicalAddress(b);
  } catch {
    return false;
  }
}

/** Node's bundled roots plus `ca`, for a client's lifetime; undefined (Node's defaults) without `ca`. */
export function withRoots(ca: CaOption | undefined): Array<string | Buffer> | undefined {
  if (!ca) return undefined;
  return [...tls.rootCertificates, ...(Array.isArray(ca) ? ca : [ca as string | Buffer])];
}

// ---------------------------------------------------------------------------------------------
// Deadline and cancellation

/** A call's deadline, and the caller's cancellation, as one signal. */
export class Deadline {
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
    return abortable(work, this.signal);
  }

  /** What to throw for `err`, given how the call ended. */
  translate(err: unknown, host: string, port: number): unknown {
    if (this.timedOut) {
      return new ServiceError(
        'upstream_error',
        `${hostPort(host, port)} did not answer within ${this.ms} ms`,
        { reason: 'timeout' },
        { cause: err },
      );
    }
    if (this.caller?.aborted) return this.caller.reason ?? err;
    if (err instanceof ServiceError || !isNetworkError(err)) return err; // bugs stay internal errors
    return upstreamError(err, host, port);
  }

  clear() {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onAbort);
  }
}
