//! Workflows outlive deploys: the current code must replay every history that earlier code wrote.
//! The histories in test/fixtures/histories/ were captured on the time-skipping server:
//! - webhook-endpoint-*: from the code before event types, rotation, replay and recovery: one run
//!   through failures, retries, a disable at 20, an event while disabled, a re-enable and a
//!   delete; and a chain of four continue-as-new runs carrying pending deliveries, ended by a delete.
//! - webhook-endpoint-concurrent-*: from the code that first ran attempts in parallel (on the delivery
//!   queue, behind the patch marker): eight attempts in flight ending failed and delivered out of
//!   start order, attempts timing out, failures until the disable, a re-enable with new events and
//!   a delete, across three runs.
//! - webhook-endpoint-batched-*: from the code that sends the attempts a turn starts as one activity
//!   (behind its patch marker), events coming in `webhookEvents` signals: batches of one to eight
//!   attempts, held and ended out of the order they started (a success among failures), a
//!   continue-as-new carrying pending deliveries, failures to the disable, a re-enable with new
//!   events (by both event signals) and a delete, across two runs.
//! - tool-call-*: from the code before a call of a tool run within its workflow task was one step
//!   (reserve, the tool and commit or refund as three local activities): charged, refused,
//!   retried once, refused for want of credits, and a queued tool's call.
//! - tool-call-batch-item-recorded-apart: a batch item's call from the code before its step recorded
//!   the item (the record a local activity of its own after the step).
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { Worker } from '@temporalio/worker';
import proto from '@temporalio/proto';
import { Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { installQuietRuntime, serviceWorkflowBundle } from '../helpers/workflow-test-bed.js';
import { WORKFLOW_TRACING_MODULE } from '../../lib/tracing.js';
import { temporalTracing } from '../../lib/temporal-tracing.js';

const FOLDER = new URL('../fixtures/histories/', import.meta.url);
const HISTORIES = readdirSync(FOLDER).filter((name) => name.endsWith('.json'));

/**
 * The history as `fetchHistory()` wrote it (proto JSON). Read with the proto package's own
 * classes: the SDK's `historyFromJSON` checks types against a second copy of protobufjs that the
 * lockfile nests under @temporalio/common, and refuses them.
 */
const load = (name: string) => proto.temporal.api.history.v1.History.fromObject(JSON.parse(readFileSync(new URL(name, FOLDER), 'utf8')));

installQuietRuntime();

/**
 * Replays every history on a worker as the service builds one, traced or not. The histories were
 * all written by untraced code: a traced worker (lib/tracing.ts, the workflow interceptors bundled
 * in and their span sink given) must replay them too.
 */
for (const traced of [false, true]) {
  test(`the current workflow code${traced ? ', traced,' : ''} replays every captured history without a nondeterminism error`, async (t) => {
    t.true(HISTORIES.filter((name) => name.startsWith('webhook-endpoint-')).length >= 5, 'the webhook endpoint histories are there');
    t.true(HISTORIES.filter((name) => name.startsWith('tool-call-')).length >= 5, 'the tool call histories are there');
    const bundle = await serviceWorkflowBundle(traced ? [WORKFLOW_TRACING_MODULE] : []);
    const spans = new InMemorySpanExporter();
    const tracer = {
      startSpan: () => {
        throw new Error('no span is started outside the sandbox in a replay');
      },
    } as never;
    const sinks = traced ? temporalTracing(tracer, new SimpleSpanProcessor(spans), new Resource({ 'service.name': 'replay' })).sinks : {};
    const histories = HISTORIES.map((name) => ({ workflowId: name, history: load(name) }));
    t.true(
      histories.every((h) => (h.history.events?.length ?? 0) >= 5),
      'each history has its events',
    );
    let replayed = 0;
    for await (const result of Worker.runReplayHistories({ workflowBundle: bundle, sinks }, histories)) {
      t.is(result.error, undefined, `${result.workflowId}: ${String(result.error)}`);
      replayed++;
    }
    t.is(replayed, HISTORIES.length);
  });
}
