//! Plan periods: the anniversary is the day of the month the account joined, the last day of shorter months.
import test from 'ava';
import { addMonthsClamped, periodIndexAt, periodStart } from '../../domain/plans/periods.js';

const iso = (d: Date) => d.toISOString();

test('an anniversary on the 31st falls on the last day of shorter months and comes back to the 31st', (t) => {
  const anchor = new Date('2027-01-31T10:15:00Z');
  t.deepEqual(
    [1, 2, 3, 13].map((k) => iso(periodStart(anchor, k))),
    ['2027-02-28T10:15:00.000Z', '2027-03-31T10:15:00.000Z', '2027-04-30T10:15:00.000Z', '2028-02-29T10:15:00.000Z'],
  );
});

test('period k contains exactly the times from its start up to the next start', (t) => {
  const anchor = new Date('2026-08-30T00:00:00Z');
  for (let k = 0; k < 30; k++) {
    const start = periodStart(anchor, k);
    t.is(periodIndexAt(anchor, start), k);
    t.is(periodIndexAt(anchor, new Date(periodStart(anchor, k + 1).getTime() - 1)), k);
  }
  t.is(periodIndexAt(anchor, new Date(anchor.getTime() - 1)), -1);
  t.is(iso(addMonthsClamped(anchor, -1)), '2026-07-30T00:00:00.000Z');
});
