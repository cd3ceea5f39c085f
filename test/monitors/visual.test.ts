//! A visual monitor of a fixture page, captured by the browser pool every 2 s: its first capture is
//! the baseline; a change inside an ignored rectangle fires nothing; a change outside it past the
//! threshold fires `monitor.changed` once (not again while the page stays so) with a diff image
//! behind a signed link; accepting the latest capture as the baseline quiets it.
import test from 'ava';
import { PNG } from 'pngjs';
import { newAccount, request } from '../helpers/api.js';
import { htmlDocument, send, startPageServer } from '../fixtures/http-pages.js';
import { eventually, startReceiver } from '../helpers/webhook-receiver.js';
import { createMonitor, delivered, monitorEndpoint, pauseAndSettle, runsOf } from './support.js';

/** A white page with a black square where `mode` puts one: none, inside the ignored corner, or outside it. */
function page(mode: 'plain' | 'inside' | 'outside'): string {
  const square = (x: number, y: number) =>
    `<div style="position:absolute;left:${x}px;top:${y}px;width:60px;height:60px;background:#000"></div>`;
  const body = mode === 'inside' ? square(20, 20) : mode === 'outside' ? square(200, 100) : '';
  return htmlDocument('<title>Visual</title><style>html,body{margin:0;background:#fff}</style>', body);
}

test('a change inside an ignored rectangle fires nothing; one outside fires monitor.changed once, with a diff image', async (t) => {
  t.timeout(3 * 60_000);
  let mode: 'plain' | 'inside' | 'outside' = 'plain';
  const pages = await startPageServer({ routes: { '/visual': (_req, res) => send(res, 200, 'text/html; charset=utf-8', page(mode)) } });
  const receiver = await startReceiver();
  t.teardown(async () => {
    await pages.close();
    await receiver.close();
  });
  const account = await newAccount(5_000);
  await monitorEndpoint(account, receiver, '/visual');
  const monitor = await createMonitor(account, {
    name: 'Visual fixture',
    tool: 'website-screenshot',
    input: { url: pages.url('/visual'), width: 320, height: 200 },
    schedule: { every: '2s' },
    assertions: [{ op: 'visual_change', threshold: 0.01, ignore: [{ x: 0, y: 0, width: 100, height: 100 }] }],
    alert: { notify: [] },
  });
  const runsUntil = (done: (runs: Array<Record<string, unknown>>) => boolean, what: string) =>
    eventually(() => runsOf(account, monitor.id), done, 90_000, what);

  // The first capture is the baseline; the next is compared with it.
  await runsUntil(
    (runs) => runs.some((r) => (r.assertions as Array<{ actual: unknown }>)[0]?.actual === 0),
    'a run compared with the baseline',
  );
  mode = 'inside';
  const insideFrom = (await runsOf(account, monitor.id)).length;
  const inside = await runsUntil((runs) => runs.length >= insideFrom + 3, 'three runs of the change inside the ignored corner');
  t.true(
    inside.slice(0, 2).every((r) => r.change === null && r.outcome === 'pass'),
    'a change inside the ignored rectangle is none',
  );

  mode = 'outside';
  const changed = await runsUntil((runs) => runs.some((r) => r.change !== null), 'a run with the change');
  const fired = changed.find((r) => r.change !== null)!;
  t.true(fired.change.ratio > 0.01 && fired.change.ratio < 0.2, `share of pixels: ${fired.change.ratio}`);
  t.deepEqual(fired.change.paths, ['/fileBase64']);
  const diff = await fetch(fired.change.diffUrl);
  t.is(diff.status, 200);
  t.is(diff.headers.get('content-type'), 'image/png');
  const image = PNG.sync.read(Buffer.from(await diff.arrayBuffer()));
  t.deepEqual([image.width, image.height], [320, 200], 'the diff image is the capture’s size');
  const tampered = await fetch(
    fired.change.diffUrl.replace(/signature=(.)/, (_: string, c: string) => `signature=${c === '0' ? '1' : '0'}`),
  );
  t.is(tampered.status, 401, 'a changed link opens nothing');

  // Still changed: later runs differ from the baseline too, yet the change fired once.
  const firedCount = changed.length;
  await runsUntil((runs) => runs.length >= firedCount + 2, 'two more runs of the changed page');
  const events = await eventually(
    async () => delivered(receiver, '/visual', 'monitor.changed'),
    (e) => e.length >= 1,
    30_000,
    'monitor.changed',
  );
  t.is(events.length, 1, 'one monitor.changed');
  t.like(events[0].data, { monitorId: monitor.id, reason: 'changed: /fileBase64' });

  // Accepted as the baseline, the changed page is the new normal.
  const accepted = await request('POST', `/api/v1/account/monitors/${monitor.id}/baseline`, { token: account.ownerToken });
  t.is(accepted.status, 200, JSON.stringify(accepted.body));
  const acceptedAt = (await runsOf(account, monitor.id)).length;
  const later = await runsUntil((runs) => runs.length >= acceptedAt + 3, 'runs after the baseline');
  t.is(later[0].change, null);
  t.is(later[0].assertions[0].actual, 0);
  const all = await pauseAndSettle(account, monitor.id);
  t.is(all.filter((r) => r.change !== null).length, 1, 'one run reported the change');
  t.is(delivered(receiver, '/visual', 'monitor.changed').length, 1);
});
