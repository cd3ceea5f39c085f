//! The API's request metrics are labelled by route template, also for requests a router's
//! middleware refused before any route ran (no regular-expression text in a label).
import test from 'ava';
import { request } from '../helpers/api.js';
import { testEnv } from '../helpers/env.js';

/** Label -> count of the API's DELETE answers with 401 so far, by route label. */
async function refusedDeletes(): Promise<Map<string, number>> {
  const text = await (await fetch(`${testEnv.operatorUrl('api')}/metrics`)).text();
  const counts = new Map<string, number>();
  for (const m of text.matchAll(/^http_request_duration_seconds_count\{([^}]*)\} (\d+)$/gm)) {
    const labels = m[1]!;
    if (!labels.includes('method="DELETE"') || !labels.includes('status="401"')) continue;
    counts.set(/route="([^"]*)"/.exec(labels)?.[1] ?? '', Number(m[2]));
  }
  return counts;
}

test("a request refused by the account router's authentication is labelled with its route, not the prefix pattern", async (t) => {
  const before = await refusedDeletes();
  const res = await request('DELETE', '/api/v1/account/keys/key_nope', { token: 'uto_not-a-token' });
  t.is(res.status, 401);
  // Only what this request (and any refused DELETE beside it) added is judged, not the run's other labels.
  const added = [...(await refusedDeletes())].filter(([route, n]) => n > (before.get(route) ?? 0)).map(([route]) => route);
  t.true(added.includes('/api/v1/account/keys/:id'), added.join(', '));
  t.deepEqual(
    added.filter((l) => /[()?\\$]/.test(l)),
    [],
    'no label is regular-expression text',
  );
});
