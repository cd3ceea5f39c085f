//! Round-trip statistics of a ping run. Pure: per-probe results in, the spec's summary out.
import type { PingAttempt, PingSummary } from '../../domain/tools/ping.js';

/** Milliseconds to microsecond precision: finer digits are timer noise. */
export const roundMs = (ms: number) => Math.round(ms * 1000) / 1000;

/**
 * Sent, received, loss, min/avg/max and jitter of the answered probes. Jitter is the mean absolute
 * difference between consecutive answered round trips (RFC 3550's idea without its smoothing);
 * 0 with a single reply.
 */
export function summarise(attempts: readonly PingAttempt[]): PingSummary {
  const ordered = [...attempts].sort((a, b) => a.sequence - b.sequence);
  const rtts = ordered.filter((a) => a.success && a.latencyMs !== null).map((a) => a.latencyMs!);
  const sent = attempts.length;
  const received = rtts.length;
  const packetLossPercent = sent === 0 ? 0 : Math.round(((sent - received) / sent) * 10_000) / 100;
  if (received === 0) return { sent, received, packetLossPercent, minMs: null, avgMs: null, maxMs: null, jitter: null };
  const deltas = rtts.slice(1).map((rtt, i) => Math.abs(rtt - rtts[i]!));
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  return {
    sent,
    received,
    packetLossPercent,
    minMs: roundMs(Math.min(...rtts)),
    avgMs: roundMs(mean(rtts)),
    maxMs: roundMs(Math.max(...rtts)),
    jitter: deltas.length ? roundMs(mean(deltas)) : 0,
  };
}
