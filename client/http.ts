//! One request to the service with the client's retry rules: a request that is safe to repeat
//! (an idempotent method, or a tool call carrying its Idempotency-Key) is sent again after a
//! network failure; any request after 429 or 503, which the service answers before acting.
//! Waits follow `Retry-After` / `RateLimit-Reset`, else exponential backoff with jitter, all
//! within one deadline. Nothing but `fetch`, `AbortController` and timers.
import { UtilityToolsError } from './errors.js';

export interface RetryOptions {
  /**
   * Total time for the call, its retries and waits included (ms). A tool call can take as long
   * as its tool's deadline; raise this for long captures behind a slow network.
   * @default 180000
   */
  deadlineMs?: number;
  /**
   * Attempts at most, the first included; 1 turns retries off.
   * @default 8
   */
  maxAttempts?: number;
  /**
   * First backoff wait (ms) when the service names none; doubled per attempt, with jitter.
   * @default 500
   */
  initialDelayMs?: number;
  /**
   * Longest backoff wait (ms) when the service names none.
   * @default 10000
   */
  maxDelayMs?: number;
}

export interface TransportOptions {
  baseUrl: string;
  /** A `fetch` of your own (a proxy agent, instrumentation); the global one by default. */
  fetch?: typeof fetch;
  retry?: RetryOptions;
  /** Sent as `User-Agent` where the runtime lets a request set it. */
  userAgent?: string;
}

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  token: string;
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  /** True when repeating the request cannot do it twice: it carries an Idempotency-Key. */
  repeatable?: boolean;
  signal?: AbortSignal;
  retry?: RetryOptions;
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined for an empty body. */
  body: unknown;
  /** How many attempts it took. */
  attempts: number;
}

const RETRIED_STATUSES = new Set([429, 503]);
const SAFE_METHODS = new Set(['GET', 'DELETE']);

/** Seconds from `Retry-After` (delta or HTTP date), else from `RateLimit-Reset` once the limit is spent. */
export function waitFromHeaders(headers: Headers, now = Date.now()): number | undefined {
  const retryAfter = headers.get('retry-after');
  if (retryAfter) {
    if (/^\d+$/.test(retryAfter.trim())) return Number(retryAfter);
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return Math.max(0, (at - now) / 1000);
  }
  const reset = headers.get('ratelimit-reset');
  if (reset && /^\d+$/.test(reset.trim()) && headers.get('ratelimit-remaining') === '0') return Number(reset);
  return undefined;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return undefined;
  const type = res.headers.get('content-type') ?? '';
  if (!/json/i.test(type)) return text;
  return JSON.parse(text);
}

/** The error of a non-2xx answer. */
function errorOf(status: number, headers: Headers, body: unknown): UtilityToolsError {
  const retryAfter = waitFromHeaders(headers);
  const requestId = headers.get('x-request-id') ?? undefined;
  if (body && typeof body === 'object' && typeof (body as { code?: unknown }).code === 'string') {
    return UtilityToolsError.fromProblem(body as never, retryAfter);
  }
  return new UtilityToolsError({
    status,
    code: 'unexpected_response',
    detail: `HTTP ${status} without a problem body${typeof body === 'string' ? `: ${body.slice(0, 200)}` : ''}`,
    requestId,
    retryAfter,
  });
}

export class Transport {
  readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly retry: Required<RetryOptions>;
  private readonly userAgent: string | undefined;

  constructor(options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    // Bound, so a runtime's fetch does not lose its `this` (some refuse to run unbound).
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.retry = { deadlineMs: 180_000, maxAttempts: 8, initialDelayMs: 500, maxDelayMs: 10_000, ...options.retry };
    this.userAgent = options.userAgent;
  }

  /** Sends the request, retrying as the rules allow; a non-2xx answer throws UtilityToolsError. */
  async send(spec: RequestSpec): Promise<RawAnswer> {
    const retry = { ...this.retry, ...spec.retry };
    const deadline = Date.now() + retry.deadlineMs;
    const url = new URL(this.baseUrl + spec.path);
    for (const [name, value] of Object.entries(spec.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = {
      accept: 'application/json, application/problem+json',
      authorization: `Bearer ${spec.token}`,
      ...spec.headers,
    };
    if (this.userAgent) headers['user-agent'] = this.userAgent;
    // Serialised once: every attempt sends the same bytes, as the Idempotency-Key requires.
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const repeatable = spec.repeatable || SAFE_METHODS.has(spec.method);

    for (let attempt = 1; ; attempt++) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new UtilityToolsError({ status: 0, code: 'timeout', detail: `No answer within ${retry.deadlineMs} ms.` });
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(new Error('deadline')), remaining);
      const signal = spec.signal ? anySignal([spec.signal, timeout.signal]) : timeout.signal;
      let res: Response;
      let parsed: unknown;
      try {
        res = await this.fetchImpl(url, { method: spec.method, headers, body, signal });
        parsed = await readBody(res);
      } catch (cause) {
        clearTimeout(timer);
        if (spec.signal?.aborted) throw spec.signal.reason ?? cause;
        if (timeout.signal.aborted)
          throw new UtilityToolsError({ status: 0, code: 'timeout', detail: `No answer within ${retry.deadlineMs} ms.`, cause });
        const failure = new UtilityToolsError({
          status: 0,
          code: 'network_error',
          detail: `The request failed: ${(cause as Error)?.message ?? cause}`,
          cause,
        });
        if (!repeatable || attempt >= retry.maxAttempts) throw failure;
        await this.pause(backoff(attempt, retry), deadline, failure, spec.signal);
        continue;
      }
      clearTimeout(timer);
      if (res.ok) return { status: res.status, headers: res.headers, body: parsed, attempts: attempt };
      const error = errorOf(res.status, res.headers, parsed);
      if (!RETRIED_STATUSES.has(res.status) || attempt >= retry.maxAttempts) throw error;
      const named = waitFromHeaders(res.headers);
      await this.pause(named !== undefined ? named * 1000 : backoff(attempt, retry), deadline, error, spec.signal);
    }
  }

  /**
   * A GET whose body is read as it arrives (a stream of lines): the response once its headers are
   * in, or the error of a non-2xx answer. Not retried: a reader resumes by reading again.
   */
  async open(spec: Pick<RequestSpec, 'path' | 'token' | 'signal'> & { accept: string }): Promise<Response> {
    const headers: Record<string, string> = { accept: `${spec.accept}, application/problem+json`, authorization: `Bearer ${spec.token}` };
    if (this.userAgent) headers['user-agent'] = this.userAgent;
    const res = await this.fetchImpl(new URL(this.baseUrl + spec.path), { method: 'GET', headers, signal: spec.signal });
    if (!res.ok) throw errorOf(res.status, res.headers, await readBody(res));
    return res;
  }

  /** Waits before the next attempt, or throws `error` now when the wait would pass the deadline. */
  private async pause(ms: number, deadline: number, error: UtilityToolsError, signal?: AbortSignal): Promise<void> {
    if (Date.now() + ms >= deadline) throw error;
    await sleep(ms, signal);
  }
}

function backoff(attempt: number, retry: Required<RetryOptions>): number {
  const ceiling = Math.min(retry.maxDelayMs, retry.initialDelayMs * 2 ** (attempt - 1));
  // Full jitter between half and all of it: clients that failed together do not return together.
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** An AbortSignal that aborts with the first of `signals` (AbortSignal.any is Node 20.3+). */
function anySignal(signals: AbortSignal[]): AbortSignal {
  const controller = new AbortController();
  for (const s of signals) {
    if (s.aborted) {
      controller.abort(s.reason);
      break;
    }
    s.addEventListener('abort', () => controller.abort(s.reason), { once: true });
  }
  return controller.signal;
}

export { sleep };
