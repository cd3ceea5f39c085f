//! A five-field cron expression (minute, hour, day of month, month, day of week) checked as
//! Temporal's schedules read it: lists, ranges, steps, `*`, and month and day names. Pure.

interface Field {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const FIELDS: readonly Field[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] },
  // 0 and 7 are both Sunday.
  { name: 'day of week', min: 0, max: 7, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] },
];

/** A value of `field`: a number in its bounds or one of its names; undefined when neither. */
function numberOf(text: string, field: Field): number | undefined {
  const named = field.names?.indexOf(text.toUpperCase()) ?? -1;
  if (named >= 0) return field.min + named;
  if (!/^\d{1,2}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= field.min && n <= field.max ? n : undefined;
}

/** What is wrong with one comma-separated item of `field`, or undefined. */
function itemProblem(item: string, field: Field): string | undefined {
  const [range, step, extra] = item.split('/');
  if (extra !== undefined || range === undefined || range === '') return `"${item}" is not a ${field.name}`;
  if (step !== undefined && !(/^\d{1,2}$/.test(step) && Number(step) >= 1)) return `"${item}" has a step that is not a positive number`;
  if (range === '*') return undefined;
  const [from, to, more] = range.split('-');
  if (more !== undefined) return `"${item}" is not a ${field.name}`;
  const a = numberOf(from!, field);
  if (a === undefined) return `${from} is not a ${field.name} (${field.min}-${field.max})`;
  if (to === undefined) return undefined;
  const b = numberOf(to, field);
  if (b === undefined) return `${to} is not a ${field.name} (${field.min}-${field.max})`;
  return a > b ? `"${item}" runs backwards` : undefined;
}

/** What is wrong with `expression` as a five-field cron expression, or undefined when Temporal will take it. */
export function cronProblem(expression: string): string | undefined {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== FIELDS.length) return `must have 5 fields (minute hour day-of-month month day-of-week), not ${parts.length}`;
  for (const [i, part] of parts.entries()) {
    for (const item of part.split(',')) {
      const problem = itemProblem(item, FIELDS[i]!);
      if (problem) return `${FIELDS[i]!.name}: ${problem}`;
    }
  }
  return undefined;
}
