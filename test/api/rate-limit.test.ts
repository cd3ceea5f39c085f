//! The per-account token bucket, on a clock the test controls.
import test from 'ava';
import { createRateLimiter } from '../../api/rate-limit.js';

test('a burst of twice the rate passes, the next call waits for a token', (t) => {
  let now = 0;
  const limiter = createRateLimiter({ perSecond: 5, now: () => now });
  for (let i = 0; i < 10; i++) t.true(limiter.take('a').allowed, `call ${i}`);
  const refused = limiter.take('a');
  t.false(refused.allowed);
  t.is(refused.remaining, 0);
  t.is(refused.retryAfter, 1);
  now += 200; // one token at 5 per second
  t.true(limiter.take('a').allowed);
  t.false(limiter.take('a').allowed);
});

test('accounts have their own buckets, refilled up to the burst only', (t) => {
  let now = 0;
  const limiter = createRateLimiter({ perSecond: 2, now: () => now });
  for (let i = 0; i < 4; i++) limiter.take('a');
  t.false(limiter.take('a').allowed);
  t.true(limiter.take('b').allowed);
  now += 60_000;
  const after = limiter.take('a');
  t.true(after.allowed);
  t.is(after.remaining, 3); // capacity 4, one just taken
});
