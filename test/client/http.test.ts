//! How long the client waits before a retry, read from the answer's headers (no stack needed).
import test from 'ava';
import { waitFromHeaders } from '../../client/http.js';

test('Retry-After in seconds or as an HTTP date; RateLimit-Reset once the limit is spent', (t) => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  t.is(waitFromHeaders(new Headers({ 'retry-after': '3' }), now), 3);
  t.is(waitFromHeaders(new Headers({ 'retry-after': new Date(now + 5_000).toUTCString() }), now), 5);
  t.is(waitFromHeaders(new Headers({ 'retry-after': new Date(now - 5_000).toUTCString() }), now), 0);
  t.is(waitFromHeaders(new Headers({ 'ratelimit-remaining': '0', 'ratelimit-reset': '2' }), now), 2);
  t.is(waitFromHeaders(new Headers({ 'ratelimit-remaining': '7', 'ratelimit-reset': '2' }), now), undefined, 'tokens left: no wait named');
  t.is(
    waitFromHeaders(new Headers({ 'retry-after': '1', 'ratelimit-remaining': '0', 'ratelimit-reset': '4' }), now),
    1,
    'Retry-After first',
  );
  t.is(waitFromHeaders(new Headers(), now), undefined);
});
