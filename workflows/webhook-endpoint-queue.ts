//! A webhook endpoint's queue, as pure functions its state changes (`webhook-endpoint-state.ts`)
//! use: an event received once (its id remembered), an owner's request applied (a rotation's
//! overlap, a replay, a recovery), a delivery queued (the oldest not in flight ended when the
//! backlog is full) and deliveries ended undelivered, with the reason on the books.
import type { PendingDelivery, UndeliveredReason, WebhookEnvelope } from '../contracts/webhook-messages.js';
import type { Endpoint, Request } from './webhook-endpoint-model.js';

/**
 * Remembers an event id; false when it was already seen. Events sent on request are remembered
 * too, so that a late fan-out of one is not delivered again.
 */
export function remember(m: Endpoint, id: string, now: number): boolean {
  if (m.seenIds.has(id)) return false;
  m.seenIds.add(id);
  m.state.seen.push([id, now]);
  return true;
}

export function receive(m: Endpoint, e: WebhookEnvelope, now: number) {
  if (!remember(m, e.id, now)) return; // a re-sent event: already handled
  if (m.state.disabled) {
    // Nothing is posted to a disabled endpoint; the event ends here, with the reason on record.
    m.books.undelivered.push({ items: [{ event: e, attempts: 0 }], reason: 'endpoint_disabled', at: now });
    return;
  }
  enqueue(m, { event: e, receivedAt: now, attempts: 0, nextAttemptAt: now }, now);
}

export function enqueue(m: Endpoint, d: PendingDelivery, now: number) {
  m.state.pending.push(d);
  if (m.state.pending.length > m.limits.maxPending) {
    const oldest = m.state.pending.find((p) => !m.inFlight.has(p.event.id));
    if (oldest) endUndelivered(m, [oldest], 'backlog_full', now);
  }
}

export function apply(m: Endpoint, r: Request, now: number) {
  switch (r.kind) {
    case 'rotate':
      (m.state.overlaps ??= []).push({ rotationId: r.notice.rotationId, until: now + r.notice.overlapMs });
      return;
    case 'replay':
      return replay(m, r.event, now);
    case 'recover':
      if (m.state.disabled) return; // the API re-enables first; a disable in between ends it
      m.state.recovery = { since: r.span.since, until: r.span.until, exhausted: false };
      return;
  }
}

/** A new attempt of a past event; one still pending is simply attempted now. */
function replay(m: Endpoint, e: WebhookEnvelope, now: number) {
  if (m.state.disabled) return; // the API refuses a replay to a disabled endpoint
  remember(m, e.id, now);
  const pending = m.state.pending.find((d) => d.event.id === e.id);
  if (pending) {
    if (m.inFlight.has(e.id)) return; // an attempt is running right now
    pending.nextAttemptAt = now;
    pending.trigger = 'replay';
    return;
  }
  enqueue(m, { event: e, receivedAt: now, attempts: 0, nextAttemptAt: now, trigger: 'replay' }, now);
}

export function endUndelivered(m: Endpoint, deliveries: PendingDelivery[], reason: UndeliveredReason, now: number) {
  if (deliveries.length === 0) return;
  const ended = new Set(deliveries);
  m.state.pending = m.state.pending.filter((d) => !ended.has(d));
  m.books.undelivered.push({ items: deliveries.map((d) => ({ event: d.event, attempts: d.attempts })), reason, at: now });
}
