//! Per-account token bucket: RATE_LIMIT_PER_SECOND sustained, a burst of twice that.
//! State is per API instance; with N replicas behind a balancer an account may reach N times
//! the rate, which the operator accounts for when setting the variable.
import type { Middleware } from 'koa';
import { ToolError } from '../lib/errors.js';

interface Bucket {
  tokens: number;
  at: number;
}

export function createRateLimiter(options: { perSecond: number; now?: () => number }) {
  const rate = options.perSecond;
  const capacity = rate * 2;
  const now = options.now ?? Date.now;
  const buckets = new Map<string, Bucket>();

  function take(key: string) {
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

  /** Limits by the authenticated account (run after authentication). */
  function middleware(): Middleware {
    return async (ctx, next) => {
      const r = take(ctx.state.principal.accountId);
      ctx.set('RateLimit-Limit', String(capacity));
      ctx.set('RateLimit-Remaining', String(r.remaining));
      ctx.set('RateLimit-Reset', String(r.reset));
      if (!r.allowed) {
        throw new ToolError('rate_limited', `Over ${rate} calls per second; retry after ${r.retryAfter} s.`, { retryAfter: r.retryAfter }, { headers: { 'Retry-After': String(r.retryAfter) } });
      }
      await next();
    };
  }

  return { take, middleware };
}
