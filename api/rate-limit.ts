//! Per-account token bucket: RATE_LIMIT_PER_SECOND sustained, a burst of twice that; an API key
//! with a `rateLimit` of its own also has its own bucket, at its rate.
//! State is per API instance; with N replicas behind a balancer an account may reach N times
//! the rate, which the operator accounts for when setting the variable.
import type { Middleware } from 'koa';
import { ServiceError } from '../lib/errors.js';
import type { Principal } from './auth.js';

interface Bucket {
  tokens: number;
  at: number;
}

export function createRateLimiter(options: { perSecond: number; now?: () => number }) {
  const now = options.now ?? Date.now;
  const buckets = new Map<string, Bucket>();

  /** Takes a token from `key`'s bucket, which refills at `rate` a second up to twice that. */
  function take(key: string, rate = options.perSecond) {
    const capacity = rate * 2;
    const t = now();
    const b = buckets.get(key) ?? { tokens: capacity, at: t };
    b.tokens = Math.min(capacity, b.tokens + ((t - b.at) / 1000) * rate);
    b.at = t;
    const allowed = b.tokens >= 1;
    if (allowed) b.tokens -= 1;
    buckets.set(key, b);
    if (buckets.size > 100_000) buckets.clear();
    const secondsToToken = Math.max(1, Math.ceil((1 - b.tokens) / rate));
    const secondsToFull = Math.ceil((capacity - b.tokens) / rate);
    return { allowed, remaining: Math.floor(b.tokens), retryAfter: secondsToToken, reset: secondsToFull };
  }

  /**
   * Limits by the authenticated account, then by the key when it has a rate of its own (run after
   * authentication). The headers tell of the tighter of the two.
   */
  function middleware(): Middleware {
    return async (ctx, next) => {
      const principal: Principal = ctx.state.principal;
      const rate = options.perSecond;
      let r = take(principal.accountId, rate);
      let limit = rate;
      let whose = '';
      const keyRate = principal.limits?.rateLimit;
      if (r.allowed && keyRate) {
        const k = take(`key:${principal.credentialId}`, keyRate);
        if (!k.allowed || k.remaining < r.remaining) [r, limit, whose] = [k, keyRate, "this key's "];
      }
      ctx.set('RateLimit-Limit', String(limit * 2));
      ctx.set('RateLimit-Remaining', String(r.remaining));
      ctx.set('RateLimit-Reset', String(r.reset));
      if (!r.allowed) {
        throw new ServiceError('rate_limited', `Over ${whose}${limit} calls per second; retry after ${r.retryAfter} s.`, { retryAfter: r.retryAfter }, { headers: { 'Retry-After': String(r.retryAfter) } });
      }
      await next();
    };
  }

  return { take, middleware };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
