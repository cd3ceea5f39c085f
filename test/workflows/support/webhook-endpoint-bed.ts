//! The webhook endpoint workflow's test bed (test/workflows/webhook-endpoint*.test.ts): the time-skipping
//! test server, the bookkeeping on the database for real, and a stand-in delivery activity that
//! records each attempt at its scheduled (skipped) time and answers as the test's script says, at
//! once or when the test lets it.
import test from 'ava';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { Context } from '@temporalio/activity';
import { randomBytes } from 'node:crypto';
import type { Mongo } from '../../../lib/mongo.js';
import { startWorkflowTestBed, serviceWorkflowBundle, type WorkflowTestBed } from '../../helpers/workflow-test-bed.js';
import { newId } from '../../../lib/ids.js';
import { TASK_QUEUES, WEBHOOK_DELIVERY_QUEUE } from '../../../contracts/temporal-names.js';
import { createWebhookEndpoints, type WebhookEndpoints } from '../../../domain/webhooks/endpoints.js';
import {
  WEBHOOK_SIGNALS,
  WEBHOOK_STATE_QUERY,
  webhookWorkflowId,
  type WebhookEndpointInput,
  type WebhookEndpointState,
  type WebhookEnvelope,
} from '../../../contracts/webhook-messages.js';
import {
  createWebhookActivities,
  type DeliverBatchRequest,
  type DeliverRequest,
  type DeliverResult,
  type TimedDeliverResult,
} from '../../../activities/core/webhooks.js';

export let env: TestWorkflowEnvironment;
export let mongo: Mongo;
export let store: WebhookEndpoints;
let bed: WorkflowTestBed | undefined;

export interface Attempt {
  endpointId: string;
  eventId: string;
  attempt: number;
  /** Scheduled time on the test server's (skipped) clock, ms. */
  at: number;
  success: boolean;
}
/** Attempts that ended, in the order they ended. */
export const attempts: Attempt[] = [];
/** Attempts started, per endpoint. */
export const started = new Map<string, number>();
/** An attempt the test holds in flight until it says how it ends. */
export interface Held {
  endpointId: string;
  eventId: string;
  attempt: number;
  end(success: boolean): void;
}
export const held: Held[] = [];
/** Per endpoint: does its n-th attempt (1-based, over all its events, in the order they start) succeed, or is it held? */
export type Script = (n: number, eventId: string) => boolean | 'hold';
export const scripts = new Map<string, Script>();

export async function deliverWebhook(req: DeliverRequest): Promise<DeliverResult> {
  const n = (started.get(req.endpointId) ?? 0) + 1;
  started.set(req.endpointId, n);
  const at = Context.current().info.currentAttemptScheduledTimestampMs;
  const scripted = scripts.get(req.endpointId)?.(n, req.event.id) ?? true;
  const success =
    scripted === 'hold'
      ? await new Promise<boolean>((end) => held.push({ endpointId: req.endpointId, eventId: req.event.id, attempt: req.attempt, end }))
      : scripted;
  attempts.push({ endpointId: req.endpointId, eventId: req.event.id, attempt: req.attempt, at, success });
  return success
    ? { outcome: 'delivered', statusCode: 204, durationMs: 1 }
    : { outcome: 'failed', statusCode: 500, durationMs: 1, error: 'The receiver answered HTTP 500.' };
}

/** When the last attempt ended, on the test server's clock: each ends strictly after the one before. */
let lastEndedAt = 0;

/**
 * The attempts of a batch, each as `deliverWebhook` does it, with when it ended: on the test
 * server's (skipped) clock, as the workflow reads time, and in the order the attempts ended.
 */
export async function deliverWebhooks(req: DeliverBatchRequest): Promise<TimedDeliverResult[]> {
  const scheduledAt = Context.current().info.currentAttemptScheduledTimestampMs;
  const began = performance.now();
  return Promise.all(
    req.attempts.map(async (a) => {
      const result = await deliverWebhook({ endpointId: req.endpointId, ...a });
      lastEndedAt = Math.max(scheduledAt + (performance.now() - began), lastEndedAt + 0.001);
      return { ...result, endedAt: lastEndedAt };
    }),
  );
}

/** Starts the bed (the test server, the real bookkeeping worker and the stand-in delivery) before the file's tests; closes it after. */
export function useWebhookEndpointBed(): void {
  test.before(async () => {
    const secretKey = randomBytes(32);
    bed = await startWorkflowTestBed('webhook_workflow_tests', async (env, mongo) => {
      store = createWebhookEndpoints(mongo.db, secretKey);
      // The worker's setting left at its default (WEBHOOK_ENDPOINT_CONCURRENCY unset).
      const real = createWebhookActivities({ db: mongo.db, secretKey, post: async () => ({ statusCode: 204 }) });
      return [
        await Worker.create({
          connection: env.nativeConnection,
          taskQueue: TASK_QUEUES.core,
          workflowBundle: await serviceWorkflowBundle(),
          activities: real,
        }),
        await Worker.create({
          connection: env.nativeConnection,
          taskQueue: WEBHOOK_DELIVERY_QUEUE,
          activities: { deliverWebhook, deliverWebhooks },
        }),
      ];
    });
    ({ env, mongo } = bed);
  });

  test.after.always(() => bed?.close());
}

export async function newEndpoint(script: Script): Promise<string> {
  const { doc } = await store.create(newId('acc'), 'https://hooks.example.com/in');
  scripts.set(doc._id, script);
  return doc._id;
}

export function envelope(id = newId('evt')): WebhookEnvelope {
  return { id, event: 'credits.low', createdAt: '2026-01-01T00:00:00.000+00:00', data: { balance: 24, threshold: 25, message: 'low' } };
}

export async function send(endpointId: string, event = envelope(), input: Partial<WebhookEndpointInput> = {}): Promise<WebhookEnvelope> {
  await env.client.workflow.signalWithStart('webhookEndpoint', {
    workflowId: webhookWorkflowId(endpointId),
    taskQueue: TASK_QUEUES.core,
    args: [{ endpointId, ...input }],
    signal: WEBHOOK_SIGNALS.event,
    signalArgs: [event],
  });
  return event;
}

export const stateOf = (endpointId: string) =>
  env.client.workflow.getHandle(webhookWorkflowId(endpointId)).query<WebhookEndpointState>(WEBHOOK_STATE_QUERY);
export const attemptsOf = (endpointId: string, eventId?: string) =>
  attempts.filter((a) => a.endpointId === endpointId && (!eventId || a.eventId === eventId));
export const SECOND = 1000;
export const HOUR = 3600 * SECOND;

/**
 * Each attempt comes its delay after the one before: never early, and late by at most the real
 * time one attempt takes on the test machine (3 s here). Judged gap by gap, so that a loaded
 * machine's real time does not add up over forty attempts into a verdict about the schedule.
 */
export function assertOffsets(t: import('ava').ExecutionContext, at: number[], expected: number[]) {
  t.is(at.length, expected.length, `attempt count: ${at.length}`);
  for (let i = 1; i < expected.length; i++) {
    const gap = at[i]! - at[i - 1]!;
    const wanted = expected[i]! - expected[i - 1]!;
    t.true(gap >= wanted - 100 && gap < wanted + 3 * SECOND, `attempt ${i + 1} came ${gap} ms after attempt ${i}, expected ${wanted} ms`);
  }
}

/** Polls `read` until `done` holds; bounded only against a hang (the server's time is not skipped meanwhile). */
export async function until<T>(read: () => T | Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 120_000): Promise<T> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > giveUpAt) throw new Error(`${what}: not within ${timeoutMs} ms; last ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const heldOf = (endpointId: string) => held.filter((h) => h.endpointId === endpointId);

/**
 * Ends a held attempt and waits until it is on record as ended. (Its outcome is counted once its
 * batch is back and no batch started before it ended is still out: not at once.)
 */
export async function endHeld(h: Held, success: boolean): Promise<void> {
  held.splice(held.indexOf(h), 1);
  h.end(success);
  await until(
    () => attempts.some((a) => a.eventId === h.eventId && a.attempt === h.attempt),
    (done) => done,
    `${h.eventId} ended`,
  );
}

/** Lets every attempt still held succeed, and deletes the endpoint's workflow. */
export async function release(endpointId: string) {
  scripts.set(endpointId, () => true);
  for (const h of heldOf(endpointId)) {
    held.splice(held.indexOf(h), 1);
    h.end(true);
  }
  await env.client.workflow.getHandle(webhookWorkflowId(endpointId)).signal(WEBHOOK_SIGNALS.remove);
}
