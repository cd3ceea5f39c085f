//! Hands recorded events to the workflow of every active webhook endpoint of the account that is
//! subscribed to the event's type (signal-with-start), without delaying or failing the call that caused them. An event is
//! marked `fannedOutAt` once every signal went through; a scheduled sweep re-sends events left
//! unmarked (a crash or an unreachable Temporal between recording and fan-out), and the endpoint
//! workflow drops repeats by event id, so a re-send never delivers twice.
import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { Logger } from '../../lib/logger.js';
import { collections } from '../../lib/mongo.js';
import { wakeWorkflow } from '../../lib/workflow-wake.js';
import { WORKFLOW_TYPES } from '../../contracts/temporal-names.js';
import {
  toEnvelope,
  WEBHOOK_SIGNALS,
  webhookWorkflowId,
  type WebhookEndpointInput,
  type WebhookEnvelope,
} from '../../contracts/webhook-messages.js';
import { eventOfDoc, type DomainEvent, type EventSink } from '../events/index.js';
import { subscribedTo } from './subscriptions.js';
import { createKeyedBatches } from '../../lib/keyed-batches.js';

export interface WebhookFanoutOptions {
  db: Db;
  client: Client;
  log: Logger;
  /**
   * An unmarked event this old is re-sent by the sweep; younger ones may still be in flight.
   * @default 30000
   */
  staleAfterMs?: number;
  /**
   * Events older than this are not re-sent (their moment has passed; deliveries stop after 3 days
   * anyway). Must stay below the endpoint workflow's memory of event ids (4 days).
   * @default 86400000 (1 day)
   */
  horizonMs?: number;
}

/** Sends one signal to an endpoint's workflow, starting it when it is not running. */
export async function signalEndpoint(client: Client, endpointId: string, signal: string, args: unknown[]): Promise<void> {
  const input: WebhookEndpointInput = { endpointId };
  // Each delivery is a trace of its own, linked to its cause.
  await wakeWorkflow(client, WORKFLOW_TYPES.webhookEndpoint, {
    workflowId: webhookWorkflowId(endpointId),
    args: [input],
    signal,
    signalArgs: args,
  });
}

/**
 * Events one signal carries at most. Events bound for one endpoint while a signal to it is on its
 * way go together in the next (lib/keyed-batches.ts): a burst costs the endpoint's workflow a few
 * signals, not one per event. Envelopes are small; 50 of them stay well below the claim check's 128 KB.
 */
export const EVENTS_PER_SIGNAL = 50;
/** Events marked fanned out in one write, the same way: a burst's marks are a few writes. */
const MARKS_PER_WRITE = 500;

export function createWebhookFanout(options: WebhookFanoutOptions) {
  const { db, client, log } = options;
  const staleAfterMs = options.staleAfterMs ?? 30_000;
  const horizonMs = options.horizonMs ?? 24 * 60 * 60 * 1000;
  const { events, webhookEndpoints } = collections(db);
  const toEndpoints = createKeyedBatches<WebhookEnvelope>(
    (id, envelopes) => signalEndpoint(client, id, WEBHOOK_SIGNALS.events, [envelopes]),
    EVENTS_PER_SIGNAL,
  );
  const marks = createKeyedBatches<string>(async (_, ids) => {
    await events.updateMany({ _id: { $in: ids } }, { $set: { fannedOutAt: new Date() } });
  }, MARKS_PER_WRITE);

  /** `webhook.test` goes to the endpoint it names; every other event to each active endpoint subscribed to its type. */
  async function targetsOf(e: DomainEvent): Promise<string[]> {
    const filter = { accountId: e.accountId, status: 'active' as const, createdAt: { $lte: e.createdAt }, ...subscribedTo(e) };
    const docs = await webhookEndpoints.find(filter, { projection: { _id: 1 } }).toArray();
    return docs.map((d) => d._id);
  }

  /** Signals every target, then marks the event. Throws when a signal fails (the mark stays unset). */
  async function fanOut(e: DomainEvent): Promise<number> {
    const targets = await targetsOf(e);
    const envelope = toEnvelope(e);
    await Promise.all(targets.map((id) => toEndpoints.add(id, envelope)));
    await marks.add('events', e.id);
    return targets.length;
  }

  /** The recorder's hook: starts the fan-out and returns at once; failures are logged, and swept. */
  const onEvent: EventSink = async (e) => {
    fanOut(e).catch((err) => log.warn({ err, eventId: e.id, event: e.event }, 'webhook fan-out failed; the sweep will re-send it'));
  };

  /** Re-sends unmarked events older than `staleAfterMs` and younger than `horizonMs`. */
  async function refanStale(now = Date.now()): Promise<number> {
    // `null` matches the unset field as `$exists: false` does, but is an equality the database plans
    // on the {fannedOutAt, createdAt} index: the other form read every event of the horizon, each minute.
    const stale = events.find({
      fannedOutAt: null,
      createdAt: { $lt: new Date(now - staleAfterMs), $gte: new Date(now - horizonMs) },
    });
    let sent = 0;
    for await (const doc of stale) {
      try {
        await fanOut(eventOfDoc(doc));
        sent++;
      } catch (err) {
        log.warn({ err, eventId: doc._id }, 'webhook re-send failed; next sweep tries again');
      }
    }
    return sent;
  }

  return { fanOut, onEvent, refanStale };
}

export type WebhookFanout = ReturnType<typeof createWebhookFanout>;
