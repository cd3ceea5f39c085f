//! Per-account token bucket: RATE_LIMIT_PER_SECOND sustained, a burst of twice that; an API key
//! with a `rateLimit` of its own also has its own bucket, at its rate. The buckets are kept in the
//! database (domain/rate-buckets.ts), so N API replicas give an account its rate once, not N times.
//!
//! A database that does not answer within TAKE_TIMEOUT_MS fails open to this replica's own bucket
//! (the limit each replica kept before the buckets were shared): every request that passes needs
//! the database for what it does next (its credential, the ledger) and answers 503 there, so a
//! 429 would only tell clients to slow down when the service is down, and the request is still
//! limited, at most N times the rate. docs/OPERATING.md says so.
import { type Db, MongoOperationTimeoutError, MongoTopologyClosedError } from 'mongodb';
import type { Middleware } from 'koa';
import { createRateBuckets, takeOf, type Take } from '../domain/rate-buckets.js';
import { ServiceError } from '../contracts/errors.js';
import type { Logger } from '../lib/logger.js';
import { isDatabaseUnreachable } from '../lib/mongo.js';
import type { Principal } from './auth.js';

/** How long a take waits for the database before this replica's own bucket answers. */
export const TAKE_TIMEOUT_MS = 1_000;
/** Buckets this replica keeps for an outage; past it the least recently used goes. */
const LOCAL_BUCKETS = 100_000;
/** At most one warning a minute while the database is away. */
const WARN_EVERY_MS = 60_000;

/** A replica's own buckets, used while the database is away: the same answers, held in memory. */
function localBuckets() {
  const tats = new Map<string, number>();
  return (key: string, rate: number, capacity: number, now: number): Take => {
    const intervalMs = 1000 / rate;
    const tat = tats.get(key) ?? now;
    const allowed = tat <= now + (capacity - 1) * intervalMs + 1e-6;
    const next = allowed ? Math.max(tat, now) + intervalMs : tat;
    // Re-inserted, so the map's first key is the least recently used one.
    tats.delete(key);
    tats.set(key, next);
    if (tats.size > LOCAL_BUCKETS) tats.delete(tats.keys().next().value!);
    return takeOf(allowed, next, now, rate, capacity);
  };
}

/** The `RateLimit-*` headers of a take: the burst, what is left of it, when it is full again. */
const rateHeaders = (limit: number, r: Take): Record<string, string> => ({
  'RateLimit-Limit': String(limit * 2),
  'RateLimit-Remaining': String(r.remaining),
  'RateLimit-Reset': String(r.reset),
});

/** No answer in time, no server, or a client that could not connect at all. */
const isOutage = (err: unknown) =>
  err instanceof MongoOperationTimeoutError || err instanceof MongoTopologyClosedError || isDatabaseUnreachable(err);

export function createRateLimiter(options: { perSecond: number; db: Db; log?: Logger; now?: () => number; timeoutMs?: number }) {
  const now = options.now ?? Date.now;
  const shared = createRateBuckets(options.db);
  const local = localBuckets();
  let warnedAt = -Infinity;

  /** Takes a token from `key`'s bucket, which refills at `rate` a second up to twice that. */
  async function take(key: string, rate = options.perSecond): Promise<Take> {
    const capacity = rate * 2;
    const t = now();
    try {
      return await shared.take(key, rate, capacity, t, { timeoutMS: options.timeoutMs ?? TAKE_TIMEOUT_MS });
    } catch (err) {
      if (!isOutage(err)) throw err;
      if (t - warnedAt >= WARN_EVERY_MS) {
        warnedAt = t;
        options.log?.warn({ err }, 'rate limits: the database does not answer; this replica limits on its own until it does');
      }
      return local(key, rate, capacity, t);
    }
  }

  /**
   * Takes a call of `principal`'s from its account's bucket, then from its key's when the key has a
   * rate of its own; throws 429 `rate_limited` (with `Retry-After`) when either is empty. Returns
   * the tighter of the two, for the `RateLimit-*` headers. The REST routes and the MCP tool calls
   * share it.
   */
  async function admit(principal: Principal): Promise<{ limit: number; take: Take }> {
    const rate = options.perSecond;
    let r = await take(principal.accountId, rate);
    let limit = rate;
    let whose = '';
    const keyRate = principal.limits?.rateLimit;
    if (r.allowed && keyRate) {
      const k = await take(`key:${principal.credentialId}`, keyRate);
      if (!k.allowed || k.remaining < r.remaining) [r, limit, whose] = [k, keyRate, "this key's "];
    }
    if (!r.allowed) {
      throw new ServiceError(
        'rate_limited',
        `Over ${whose}${limit} calls per second; retry after ${r.retryAfter} s.`,
        { retryAfter: r.retryAfter },
        { headers: { 'Retry-After': String(r.retryAfter), ...rateHeaders(limit, r) } },
      );
    }
    return { limit, take: r };
  }

  /** Limits by the authenticated account, then by the key (admit); run after authentication. */
  function middleware(): Middleware {
    return async (ctx, next) => {
      const { limit, take: r } = await admit(ctx.state.principal);
      ctx.set(rateHeaders(limit, r));
      await next();
    };
  }

  return { take, admit, middleware };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
