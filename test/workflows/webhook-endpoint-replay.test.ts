//! Webhook endpoint workflows run for months in deployments: the current code must replay the
//! histories that the code before issue 13 (rotation, replay, recovery) wrote. The histories in
//! test/fixtures/histories/ were captured from that code on the time-skipping server: one run
//! through failures, retries, a disable at 20, an event while disabled, a re-enable and a delete;
//! and a chain of four continue-as-new runs carrying pending deliveries, ended by a delete.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import proto from '@temporalio/proto';
import { installQuietRuntime, WORKFLOWS_PATH } from '../helpers/workflow-test-bed.js';

const HISTORIES = [
  'webhook-endpoint-disable-enable.json',
  'webhook-endpoint-continued-0.json',
  'webhook-endpoint-continued-1.json',
  'webhook-endpoint-continued-2.json',
  'webhook-endpoint-continued-3.json',
];

/**
 * The history as `fetchHistory()` wrote it (proto JSON). Read with the proto package's own
 * classes: the SDK's `historyFromJSON` checks types against a second copy of protobufjs that the
 * lockfile nests under @temporalio/common, and refuses them.
 */
const load = (name: string) => proto.temporal.api.history.v1.History.fromObject(JSON.parse(readFileSync(new URL(`../fixtures/histories/${name}`, import.meta.url), 'utf8')));

installQuietRuntime();

test('the current webhookEndpoint code replays every captured history without a nondeterminism error', async (t) => {
  const bundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH });
  const histories = HISTORIES.map((name) => ({ workflowId: name, history: load(name) }));
  t.true(histories.every((h) => (h.history.events?.length ?? 0) >= 20), 'each history has its events');
  let replayed = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle: bundle }, histories)) {
    t.is(result.error, undefined, `${result.workflowId}: ${String(result.error)}`);
    replayed++;
  }
  t.is(replayed, HISTORIES.length);
});
