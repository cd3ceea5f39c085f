//! A monitor's scheduled runs one at a time, on the real database: a run takes its monitor before
//! its call, a run due meanwhile is told to skip, the judgement's write gives the monitor back; a
//! hold past its time, the same run's retried step and a run asked for now all go ahead.
import test from 'ava';
import { connectMongo, type Mongo } from '../../../lib/mongo.js';
import { DatabaseBlobStore } from '../../../lib/blob-store.js';
import { createEventRecorder } from '../../../domain/events/index.js';
import { createMonitorJudge, createMonitorStore, type MonitorJudge } from '../../../domain/monitors/index.js';
import { newMonitorDoc } from '../../../domain/monitors/body.js';
import { runInput } from '../../../domain/monitors/schedules.js';
import { DEFAULT_ALERT } from '../../../domain/monitors/definition.js';
import type { MonitorDoc } from '../../../domain/monitors/documents.js';
import { findTool } from '../../../domain/tools/index.js';
import { newId } from '../../../lib/ids.js';

let mongo: Mongo;
let judge: MonitorJudge;

test.before(async () => {
  if (!process.env.MONGODB_URL) throw new Error('MONGODB_URL is not set: run through `npm test`');
  mongo = await connectMongo(process.env.MONGODB_URL.replace(/\/[^/]*$/, '/monitor_lease_tests'));
  const blobs = new DatabaseBlobStore(mongo.db);
  judge = createMonitorJudge({
    db: mongo.db,
    outputs: blobs,
    diffs: blobs.area('monitor-diffs'),
    compare: () => Promise.reject(new Error('no visual assertion here')),
    schedules: { pause: () => Promise.reject(new Error('no run here is refused')) },
    record: createEventRecorder(mongo.db),
    baseUrl: 'http://localhost',
  });
});
test.after.always(() => mongo?.close());

async function newMonitor(): Promise<MonitorDoc> {
  const body = {
    name: 'lease',
    tool: 'hash-text',
    input: { text: 'x' },
    schedule: { every: '1m' },
    assertions: [{ path: '/algorithm', op: 'eq' as const, value: 'sha256' }],
  };
  const doc = newMonitorDoc(newId('acc'), body, {
    tool: findTool('hash-text')!,
    input: { text: 'x', algorithm: 'sha256' },
    assertions: body.assertions,
    alert: { ...DEFAULT_ALERT, notify: [] },
  });
  await createMonitorStore(mongo.db).insert(doc);
  return doc;
}

/** The request id of its run scheduled for `minute` (as Temporal names it). */
const scheduled = (m: MonitorDoc, minute: number) => `call-${m.accountId}-${m._id}-2026-11-29T10:${String(minute).padStart(2, '0')}:00Z`;

test('a scheduled run due while another holds the monitor is skipped; the judgement gives the monitor back', async (t) => {
  const monitor = await newMonitor();
  const call = runInput(monitor);
  const now = new Date();
  const first = await judge.begin(scheduled(monitor, 1), call, now, false);
  t.true(first.go);
  const second = await judge.begin(scheduled(monitor, 2), call, now, false);
  t.false(second.go, 'skipped while the first holds it');
  t.like(second, { result: { ok: false, error: { code: 'already_exists' } } });
  t.true((await judge.begin(scheduled(monitor, 1), call, now, false)).go, 'the same run (its step again) holds it still');
  t.true((await judge.begin(scheduled(monitor, 3), call, now, true)).go, 'a retried step goes ahead whatever it finds');
  t.true((await judge.begin(`call-${monitor.accountId}-${monitor._id}-now-abc`, call, now, false)).go, 'a run asked for now goes beside');

  await judge.judge(
    {
      requestId: scheduled(monitor, 1),
      call,
      result: { ok: true, output: { algorithm: 'sha256', hex: 'ab' }, charged: 1, balance: 9 },
      at: now,
      durationMs: 3,
      ...(first.go ? { monitor: first.monitor } : {}),
    },
    false,
  );
  const judged = await createMonitorStore(mongo.db).byId(monitor._id);
  t.is(judged?.lastRun?._id, scheduled(monitor, 1));
  t.is(judged?.running, null, 'given back by the judgement');
  t.true((await judge.begin(scheduled(monitor, 4), call, new Date(), false)).go, 'the next run goes ahead');
});

test("a hold past its time (a run whose worker was lost) does not stop the next run; a gone monitor's run is skipped", async (t) => {
  const monitor = await newMonitor();
  const call = runInput(monitor);
  const then = new Date(Date.now() - call.timeoutMs - 2 * 60_000);
  t.true((await judge.begin(scheduled(monitor, 1), call, then, false)).go);
  t.false((await judge.begin(scheduled(monitor, 2), call, new Date(then.getTime() + 1_000), false)).go);
  t.true((await judge.begin(scheduled(monitor, 3), call, new Date(), false)).go, 'its hold ran out after the deadline');
  await createMonitorStore(mongo.db).remove(monitor.accountId, monitor._id);
  t.false((await judge.begin(scheduled(monitor, 4), call, new Date(), false)).go);
});
