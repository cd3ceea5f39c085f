//! Monthly periods of a plan, counted from the moment the account joined it: period k starts k
//! months after that, on the same day of the month (the last day of a shorter month) and time, UTC.

/** `anchor` moved `months` months on, its day of the month clamped to the target month's length. */
export function addMonthsClamped(anchor: Date, months: number): Date {
  const year = anchor.getUTCFullYear();
  const month = anchor.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      year,
      month,
      Math.min(anchor.getUTCDate(), lastDay),
      anchor.getUTCHours(),
      anchor.getUTCMinutes(),
      anchor.getUTCSeconds(),
      anchor.getUTCMilliseconds(),
    ),
  );
}

/** Start of period `index` of a plan joined at `anchor`. */
export const periodStart = (anchor: Date, index: number): Date => addMonthsClamped(anchor, index);

/** Index of the period that `at` falls in (-1 before the anchor). */
export function periodIndexAt(anchor: Date, at: Date): number {
  if (at < anchor) return -1;
  let k = (at.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + at.getUTCMonth() - anchor.getUTCMonth();
  while (k > 0 && periodStart(anchor, k) > at) k--;
  while (periodStart(anchor, k + 1) <= at) k++;
  return k;
}
