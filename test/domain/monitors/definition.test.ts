//! A monitor's definition checked before it is stored, pure: cron expressions as Temporal reads
//! them, intervals against the minimum, pointers, operators and their values, visual checks only
//! where a tool makes a png; and the pixel comparison of two captures with ignored rectangles.
import test from 'ava';
import { PNG } from 'pngjs';
import { findTool } from '../../../domain/tools/catalogue.js';
import { cronProblem } from '../../../domain/monitors/cron.js';
import { isJsonPointer, readAlert, readAssertions, scheduleProblems } from '../../../domain/monitors/definition.js';
import { phaseMs, scheduledTimeOf } from '../../../domain/monitors/schedules.js';
import { compareCaptures } from '../../../domain/monitors/visual-diff.js';

test('cron: five fields with lists, ranges, steps and names; anything else names its field', (t) => {
  for (const ok of ['* * * * *', '*/5 9-17 * * MON-FRI', '0 0 1,15 JAN-JUN 0', '30 8 * * 7', '0-59/10 * * * *'])
    t.is(cronProblem(ok), undefined, ok);
  t.regex(cronProblem('* * * *')!, /5 fields/);
  t.regex(cronProblem('60 * * * *')!, /^minute:/);
  t.regex(cronProblem('* 24 * * *')!, /^hour:/);
  t.regex(cronProblem('* * 0 * *')!, /^day of month:/);
  t.regex(cronProblem('* * * * FUNDAY')!, /^day of week:/);
  t.regex(cronProblem('5-1 * * * *')!, /backwards/);
  t.regex(cronProblem('*/0 * * * *')!, /step/);
});

test('schedules: an interval in s, m or h between the minimum and 24 h; a cron with a known zone', (t) => {
  t.deepEqual(scheduleProblems({ every: '5m' }, 60), []);
  t.deepEqual(
    scheduleProblems({ every: '30s' }, 60).map((e) => e.message),
    ['must be at least 60s'],
  );
  t.deepEqual(
    scheduleProblems({ every: '25h' }, 60).map((e) => e.field),
    ['/schedule/every'],
  );
  t.deepEqual(
    scheduleProblems({ every: '5 minutes' }, 60).map((e) => e.field),
    ['/schedule/every'],
  );
  t.deepEqual(scheduleProblems({ cron: '0 9 * * *', timezone: 'America/New_York' }, 60), []);
  t.deepEqual(
    scheduleProblems({ cron: '0 9 * * *', timezone: 'Nowhere/Else' }, 60).map((e) => e.field),
    ['/schedule/timezone'],
  );
});

test('assertions: pointers, a value for each comparison, patterns that compile, visual checks on png captures only', (t) => {
  t.true(isJsonPointer('/a~1b/0'));
  t.false(isJsonPointer('a'));
  t.false(isJsonPointer('/a~2'));
  const screenshot = findTool('website-screenshot')!;
  const ok = readAssertions(
    [
      { op: 'visual_change', threshold: 0.02, ignore: [{ x: 0, y: 0, width: 10, height: 10 }] },
      { path: '/width', op: 'eq', value: 1440 },
    ],
    screenshot,
    { url: 'https://example.com/' },
  );
  t.deepEqual(ok.errors, []);
  t.like(ok.assertions[0], { path: '/fileBase64', op: 'visual_change', threshold: 0.02 });
  const jpeg = readAssertions([{ op: 'visual_change', threshold: 0.1 }], screenshot, { format: 'jpeg' });
  t.deepEqual(
    jpeg.errors.map((e) => e.field),
    ['/assertions/0/op'],
  );
  const bad = readAssertions(
    [
      { path: '/a', op: 'lt', value: '3' },
      { path: '/a', op: 'changed', value: 1 },
      { path: '/a', op: 'eq', threshold: 0.5, value: 1 },
    ],
    findTool('dns-lookup')!,
    {},
  );
  t.deepEqual(
    bad.errors.map((e) => e.field),
    ['/assertions/0/value', '/assertions/1/value', '/assertions/2/threshold'],
  );
  t.deepEqual(readAlert({ remindEvery: '90s' }).errors[0]?.field, '/alert/remindEvery', 'reminders are minutes or hours');
  t.deepEqual(readAlert(undefined).alert, { downAfter: 2, upAfter: 1, notify: ['owners'], remindEvery: null });
});

test("an interval's phase is fixed by the monitor's id, whole seconds inside it; a run's scheduled time is read from its id", (t) => {
  const phases = Array.from({ length: 200 }, (_, i) => phaseMs(`mon_${i}`, 60_000));
  t.true(phases.every((p) => p >= 0 && p < 60_000 && p % 1000 === 0));
  t.is(phaseMs('mon_7', 60_000), phaseMs('mon_7', 60_000));
  t.true(new Set(phases).size > 40, 'monitors spread over the minute');
  t.is(scheduledTimeOf('call-acc_1-mon_2-2026-05-01T09:30:00Z')?.toISOString(), '2026-05-01T09:30:00.000Z');
  t.is(scheduledTimeOf('call-acc_1-mon_2-now-abc'), undefined);
});

function png(width: number, height: number, paint: (x: number, y: number) => [number, number, number]): Buffer {
  const image = new PNG({ width, height });
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const [r, g, b] = paint(x, y);
      image.data.set([r, g, b, 255], (y * width + x) * 4);
    }
  return PNG.sync.write(image);
}

test('two captures compared: the share of changed pixels, rectangles left out, a diff image of the larger size', (t) => {
  const white = png(100, 50, () => [255, 255, 255]);
  const box = png(100, 50, (x, y) => (x < 10 && y < 10 ? [0, 0, 0] : [255, 255, 255]));
  t.is(compareCaptures(white, white, []).ratio, 0);
  const changed = compareCaptures(white, box, []);
  t.is(changed.ratio, 100 / 5000);
  const diff = PNG.sync.read(Buffer.from(changed.diffPng));
  t.deepEqual([diff.width, diff.height], [100, 50]);
  t.is(compareCaptures(white, box, [{ x: 0, y: 0, width: 10, height: 10 }]).ratio, 0, 'a change inside an ignored rectangle is none');
  const taller = png(100, 60, () => [255, 255, 255]);
  const grown = compareCaptures(white, taller, []);
  t.true(grown.ratio > 0, 'pixels one capture has and the other lacks changed');
  t.is(PNG.sync.read(Buffer.from(grown.diffPng)).height, 60);
});
