//! Uptime from runs per hour: each judged run counts in its hour (good when it passed or was only
//! degraded: the target answered), the last 30 days kept on the monitor itself, so reading a
//! monitor's uptime reads no runs. A window is whole hours: the current one and those before it. Pure.
import type { RunOutcome } from './documents.js';

const HOUR_MS = 3_600_000;
/** Hours kept: the longest window. */
export const KEPT_HOURS = 30 * 24;

export const UPTIME_WINDOWS = { '24h': 24, '7d': 7 * 24, '30d': 30 * 24 } as const;
export type Uptime = Record<keyof typeof UPTIME_WINDOWS, number | null>;

export const hourOf = (at: Date | number): number => Math.floor(new Date(at).getTime() / HOUR_MS);

/** Whether a run counts toward uptime at all: a run refused before its tool ran (credits) says nothing of the target. */
export function countsForUptime(outcome: RunOutcome, errorCode: string | undefined): boolean {
  return !(outcome === 'error' && (errorCode === 'insufficient_credits' || errorCode === 'key_credit_limit'));
}

/** The hours with one more run at `at`, those older than KEPT_HOURS dropped. */
export function countRun(hours: Record<string, [number, number]>, at: Date, good: boolean): Record<string, [number, number]> {
  const now = hourOf(at);
  const kept: Record<string, [number, number]> = {};
  for (const [hour, counts] of Object.entries(hours)) if (Number(hour) > now - KEPT_HOURS) kept[hour] = counts;
  const [runs, ok] = kept[now] ?? [0, 0];
  kept[now] = [runs + 1, ok + (good ? 1 : 0)];
  return kept;
}

/** The share of good runs (a percentage, two decimals) in each window ending with `now`'s hour; null without runs. */
export function uptimeOf(hours: Record<string, [number, number]>, now: Date): Uptime {
  const current = hourOf(now);
  const share = (span: number): number | null => {
    let runs = 0;
    let ok = 0;
    for (const [hour, [n, good]] of Object.entries(hours)) {
      if (Number(hour) > current - span && Number(hour) <= current) {
        runs += n;
        ok += good;
      }
    }
    return runs === 0 ? null : Math.round((ok / runs) * 10_000) / 100;
  };
  return { '24h': share(UPTIME_WINDOWS['24h']), '7d': share(UPTIME_WINDOWS['7d']), '30d': share(UPTIME_WINDOWS['30d']) };
}
