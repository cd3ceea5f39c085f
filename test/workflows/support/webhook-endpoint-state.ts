//! What the webhook endpoint's state tests share: a clock, outcomes, an endpoint and one turn of
//! its loop, driven directly (workflows/webhook-endpoint-state.ts), and a seeded generator.
import type { CarriedEndpointState, WebhookEnvelope } from '../../../contracts/webhook-messages.js';
import {
  applyArrivals,
  arrive,
  concurrentLimits,
  emptyInbox,
  startEndpoint,
  startWork,
  type Arrival,
  type DeliveryLimits,
  type Endpoint,
} from '../../../workflows/webhook-endpoint-state.js';

export const T0 = 1_800_000_000_000;
export const failed = { outcome: 'failed', statusCode: 500, durationMs: 3, error: 'HTTP 500' } as const;
export const delivered = { outcome: 'delivered', statusCode: 200, durationMs: 3 } as const;

export const envelope = (id: string): WebhookEnvelope => ({
  id,
  event: 'credits.low',
  createdAt: '2027-01-01T00:00:00.000+00:00',
  data: {},
});

export const CONCURRENCY = 8;

export function endpoint(state: Partial<CarriedEndpointState> = {}, limits: DeliveryLimits = concurrentLimits(CONCURRENCY)): Endpoint {
  return startEndpoint({ pending: [], consecutiveFailures: 0, disabled: false, seen: [], ...state }, emptyInbox(), limits);
}

/** Signals, then one turn of the loop at `now`: what it starts. */
export function turn(m: Endpoint, now: number, ...arrivals: Arrival[]) {
  for (const a of arrivals) arrive(m.inbox, a);
  applyArrivals(m, now);
  return startWork(m, now, false);
}

export const event = (id: string): Arrival => ({ kind: 'event', event: envelope(id) });

/** A small deterministic generator (mulberry32), so a failing run can be repeated. */
export function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
