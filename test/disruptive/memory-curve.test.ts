import test from 'ava';
import { formatLevels, judgedGrowth, memoryChart, memoryCsv, memoryLevels, type MemorySample } from './support/memory-curve.js';
import { ALL_TOOLS, latencyDrift, windowLatencies, type WindowLatency } from './support/soak-run.js';
import type { CallRecord } from './support/tool-client.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * A sample every 10 s for an hour of one part whose own RSS and tree PSS (MiB) are `mibAt(minute)`,
 * and whose summed tree RSS is `treeRssAt(minute)` (by default three times as much, shared pages
 * counted once per process).
 */
function curve(
  part: string,
  mibAt: (minute: number) => number,
  durationMs = HOUR,
  treeRssAt = (m: number) => 3 * mibAt(m),
): MemorySample[] {
  const samples: MemorySample[] = [];
  for (let atMs = 0; atMs <= durationMs; atMs += 10_000) {
    const kib = Math.round(mibAt(atMs / MINUTE) * 1024);
    samples.push({ atMs, part, pid: 1, rssKiB: kib, groupRssKiB: Math.round(treeRssAt(atMs / MINUTE) * 1024), groupPssKiB: kib });
  }
  return samples;
}

test('a part that climbs for a quarter of an hour and then holds its level (with noise) levels off, and says from when', (t) => {
  const wobble = (m: number) => 1 + 0.01 * Math.sin(m * 7);
  const [level] = memoryLevels(
    curve('temporal', (m) => (m < 15 ? 200 + 6 * m : 290) * wobble(m)),
    HOUR,
    'rss',
  );
  t.false(level!.grows);
  t.is(level!.part, 'temporal');
  // Within 5% of the level (290 MiB) from about minute 12.7 of the climb.
  t.true(level!.levelledAtMinute! >= 12 && level!.levelledAtMinute! <= 15, `levelled at ${level!.levelledAtMinute}`);
});

test('a part that goes on growing, however slowly, grows', (t) => {
  const [level] = memoryLevels(
    curve('api', (m) => 200 + 0.5 * m),
    HOUR,
    'rss',
  );
  t.true(level!.grows);
  t.true(level!.lastThirdMaxKiB > level!.levelKiB * 1.05);
});

test('a spike of a few samples is not a level; a rise held for a minute is', (t) => {
  // A capture's page: 20 s at +40% in the last third, then back.
  const [spike] = memoryLevels(
    curve('workers', (m) => (m >= 50 && m < 50.3 ? 2800 : 2000)),
    HOUR,
    'treePss',
  );
  t.false(spike!.grows);
  t.is(spike!.lastThirdMaxKiB, 2000 * 1024);
  const [held] = memoryLevels(
    curve('workers', (m) => (m >= 50 && m < 51.5 ? 2800 : 2000)),
    HOUR,
    'treePss',
  );
  t.true(held!.grows);
});

test('a part restarted by a fault with less memory is not growth; one that comes back higher and stays is', (t) => {
  const [dropped] = memoryLevels(
    curve('workers', (m) => (m < 45 ? 2000 : 1500)),
    HOUR,
    'treePss',
  );
  t.false(dropped!.grows);
  const [higher] = memoryLevels(
    curve('workers', (m) => (m < 45 ? 2000 : 2300)),
    HOUR,
    'treePss',
  );
  t.true(higher!.grows);
});

test("a fault's warm-up is left out of the level: from the fault until a minute after its part is back", (t) => {
  // Workers killed at minute 40, back 5 s later, and 10% over their level for the 80 s their replacement warms up.
  const warming = curve('workers', (m) => (m >= 40 && m < 41.4 ? 2200 : 2000));
  const fault = { startMs: 40 * MINUTE, backMs: 40 * MINUTE + 5_000 };
  t.true(memoryLevels(warming, HOUR, 'treePss')[0]!.grows);
  t.false(memoryLevels(warming, HOUR, 'treePss', [fault])[0]!.grows);
  // A rise that outlasts the warm-up is still growth.
  const stays = curve('workers', (m) => (m >= 40 && m < 44 ? 2200 : 2000));
  t.true(memoryLevels(stays, HOUR, 'treePss', [fault])[0]!.grows);
});

test('minute medians follow the sampling pace: at 5 s, a 20 s spike is still no level', (t) => {
  const samples: MemorySample[] = [];
  for (let atMs = 0; atMs <= HOUR; atMs += 5_000) {
    const kib = (atMs >= 50 * MINUTE && atMs < 50 * MINUTE + 20_000 ? 2800 : 2000) * 1024;
    samples.push({ atMs, part: 'workers', pid: 1, rssKiB: kib, groupRssKiB: kib, groupPssKiB: kib });
  }
  t.false(memoryLevels(samples, HOUR, 'treePss')[0]!.grows);
});

test("a heap's GC sawtooth is a level, peak against peak; a sawtooth that climbs is growth", (t) => {
  // 40 MiB gathered over ten minutes and collected at once, as the workers' V8 heap does.
  const saw = (m: number) => 940 + 4 * (m % 10);
  t.false(memoryLevels(curve('workers', saw), HOUR, 'rss')[0]!.grows);
  t.true(
    memoryLevels(
      curve('workers', (m) => saw(m) + 1.5 * m),
      HOUR,
      'rss',
    )[0]!.grows,
  );
});

test('each part is judged by its own samples', (t) => {
  const levels = memoryLevels([...curve('api', () => 200), ...curve('database', (m) => 50 + m)], HOUR, 'rss');
  t.deepEqual(
    levels.map((l) => [l.part, l.measure, l.grows]),
    [
      ['api', 'rss', false],
      ['database', 'rss', true],
    ],
  );
});

test("the test fixtures' growth is printed and not judged; a service part's growth is judged", (t) => {
  const climbing = (m: number) => 40 + 0.3 * m;
  const levels = [...memoryLevels(curve('fixtures', climbing), HOUR, 'rss'), ...memoryLevels(curve('workers', climbing), HOUR, 'rss')];
  t.true(levels.every((l) => l.grows));
  t.deepEqual(
    judgedGrowth(levels).map((l) => l.part),
    ['workers'],
  );
  const [fixtures, workers] = formatLevels(levels);
  t.regex(fixtures!, /grows \(not judged: the test fixtures\)$/);
  t.regex(workers!, /GROWS$/);
});

test('a tree is judged by its proportional set: backends touching more shared pages grow summed RSS, not PSS', (t) => {
  const samples = curve(
    'postgres',
    () => 300,
    HOUR,
    (m) => 800 + 10 * m,
  );
  t.false(memoryLevels(samples, HOUR, 'treePss')[0]!.grows);
  t.false(memoryLevels(samples, HOUR, 'rss')[0]!.grows);
  const leaking = curve(
    'postgres',
    (m) => 300 + 2 * m,
    HOUR,
    () => 800,
  );
  t.true(memoryLevels(leaking, HOUR, 'treePss')[0]!.grows);
});

const window = (w: number, tool: string, p99Ms: number, calls = 100): WindowLatency => ({
  window: w,
  tool,
  calls,
  p50Ms: p99Ms / 4,
  p99Ms,
});

test('p99 drift compares the last window with the first, per tool, and ignores windows with too few calls', (t) => {
  const windows = [
    window(0, 'hash-text', 100),
    window(5, 'hash-text', 130),
    window(0, 'dns-lookup', 100),
    window(5, 'dns-lookup', 115),
    window(0, 'html-to-image', 100, 5),
    window(5, 'html-to-image', 900, 5),
  ];
  t.deepEqual(latencyDrift(windows), [{ tool: 'hash-text', firstP99: 100, lastP99: 130 }]);
  t.deepEqual(latencyDrift([window(0, 'hash-text', 100)]), []);
  // A window of a few stragglers answered after the run does not hide the last full one.
  t.deepEqual(latencyDrift([...windows, window(6, 'web-scrape', 40, 1)]), [{ tool: 'hash-text', firstP99: 100, lastP99: 130 }]);
  // Under 100 calls the p99 is the slowest call: not judged.
  t.deepEqual(latencyDrift([window(0, 'dns-lookup (async)', 290, 99), window(5, 'dns-lookup (async)', 530, 99)]), []);
});

test('asynchronous calls are also pooled over every tool, per window, so that they are judged with enough calls', (t) => {
  const sentAt = new Map<CallRecord, number>();
  const call = (index: number, tool: string, mode: CallRecord['mode'], latencyMs: number, atMs: number) => {
    const record: CallRecord = { index, tool, mode, cost: 1, body: {}, status: 200, latencyMs };
    sentAt.set(record, atMs);
    return record;
  };
  const calls = [
    ...Array.from({ length: 60 }, (_, i) => call(i, i % 2 ? 'hash-text' : 'dns-lookup', 'async', 270, 1_000)),
    ...Array.from({ length: 60 }, (_, i) => call(60 + i, i % 2 ? 'hash-text' : 'dns-lookup', 'async', i < 3 ? 520 : 270, 61_000)),
    call(120, 'hash-text', undefined, 40, 1_000),
  ];
  const windows = windowLatencies(calls, sentAt, 60_000);
  const row = (w: number, tool: string) => windows.find((x) => x.window === w && x.tool === tool);
  t.like(row(0, `${ALL_TOOLS} (async)`), { calls: 60, p99Ms: 270 });
  t.like(row(1, `${ALL_TOOLS} (async)`), { calls: 60, p99Ms: 520 });
  t.like(row(1, 'dns-lookup (async)'), { calls: 30 });
  t.like(row(0, 'hash-text'), { calls: 1 });
  t.is(row(0, `${ALL_TOOLS}`), undefined, 'synchronous calls are judged per tool only');
  t.deepEqual(latencyDrift(windows, 1.2, 60), [{ tool: `${ALL_TOOLS} (async)`, firstP99: 270, lastP99: 520 }]);
});

test('the CSV has a row per sample and the chart a line per part, with the faults marked', (t) => {
  const samples = [...curve('api', () => 200, 60_000), ...curve('database', () => 50, 60_000)];
  const csv = memoryCsv(samples).trim().split('\n');
  t.is(csv[0], 'seconds,part,pid,rss_kib,tree_rss_kib,tree_pss_kib');
  t.is(csv.length, samples.length + 1);
  t.is(csv[1], '0,api,1,204800,614400,204800');
  const svg = memoryChart(samples, [{ startMs: 30_000, action: 'kill/workers' }], 60_000);
  t.is(svg.match(/<polyline/g)?.length, 2);
  t.regex(svg, />kill\/workers</);
});
