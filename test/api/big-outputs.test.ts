//! Big outputs through HTTP, against the running stack: a capture over the inline limit is written
//! once to the stack's blob store (BLOB_STORE_URL, a directory here) and answered from it, byte for
//! byte the JSON its worker made; the call's history holds only a reference; a repeat with the same
//! Idempotency-Key within 24 h answers the same bytes; an asynchronous call shows the same output.
import test from 'ava';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { fileURLToPath } from 'node:url';
import { balanceOf, callTool, newAccount, type TestAccount } from '../helpers/api.js';
import { ended } from './support/async-calls.js';
import { decodeImage } from '../helpers/images.js';
import { noiseCanvas } from '../disruptive/support/call-mix.js';
import { DirectoryBlobStore } from '../../lib/blob-store.js';
import { INLINE_OUTPUT_MAX_BYTES, isOutputBlob } from '../../lib/output-blobs.js';
import { connectTemporal } from '../helpers/temporal.js';

/** The largest payload in a call's history, and the blob its result names. */
async function historyOf(workflowId: string): Promise<{ largest: number; blobKey?: string }> {
  const connection = await connectTemporal();
  try {
    const client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    let largest = 0;
    const visit = (node: unknown): void => {
      if (node instanceof Uint8Array || typeof node !== 'object' || node === null) return;
      if (Array.isArray(node)) return node.forEach(visit);
      const { data, metadata } = node as { data?: unknown; metadata?: unknown };
      if (data instanceof Uint8Array && metadata) largest = Math.max(largest, data.length);
      Object.values(node).forEach(visit);
    };
    visit(history);
    const completed = history.events?.find((e) => e.workflowExecutionCompletedEventAttributes)?.workflowExecutionCompletedEventAttributes;
    const result = defaultPayloadConverter.fromPayload<{ output?: unknown }>(completed!.result!.payloads![0]!);
    return { largest, blobKey: isOutputBlob(result.output) ? result.output.$outputBlob.key : undefined };
  } finally {
    await connection.close();
  }
}

async function rawCall(account: TestAccount, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${process.env.API_URL}/api/v1/tools/html-to-image`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

test('a big output is stored once, answered as its worker wrote it, and the same bytes again for the same Idempotency-Key', async (t) => {
  t.truthy(process.env.BLOB_STORE_URL?.startsWith('file://'), 'the test stack keeps big outputs in a directory');
  const account = await newAccount(100);
  const input = { html: noiseCanvas(7), width: 800, height: 600 };
  const first = await rawCall(account, input, { 'idempotency-key': 'big-output-1' });
  t.is(first.status, 200, first.text.slice(0, 300));
  t.regex(first.headers.get('content-type') ?? '', /^application\/json; charset=utf-8$/);
  t.true(first.text.length > INLINE_OUTPUT_MAX_BYTES, `${first.text.length} bytes of JSON`);
  const body = JSON.parse(first.text);
  t.like(body, { mimeType: 'image/png', width: 800, height: 600, truncated: false });
  const image = await decodeImage(body.fileBase64, body.mimeType);
  t.deepEqual([image.width, image.height], [800, 600]);

  const requestId = first.headers.get('x-request-id')!;
  const { largest, blobKey } = await historyOf(requestId);
  t.true(largest < INLINE_OUTPUT_MAX_BYTES, `the call's history holds no payload over the inline limit (largest ${largest} bytes)`);
  const stored = await new DirectoryBlobStore(fileURLToPath(process.env.BLOB_STORE_URL!)).get(blobKey ?? 'none');
  t.is(stored?.toString('utf8'), first.text, 'the answer is the stored JSON, byte for byte');

  const again = await rawCall(account, input, { 'idempotency-key': 'big-output-1' });
  t.is(again.status, 200);
  t.is(again.headers.get('idempotent-replayed'), 'true');
  t.is(again.text, first.text, 'the same bytes');
  t.is(await balanceOf(account), 75, 'charged once');
});

test('an asynchronous call with a big output shows it whole in its record', async (t) => {
  const account = await newAccount(100);
  const input = { html: noiseCanvas(11), width: 800, height: 600 };
  const accepted = await callTool(account.apiKey, 'html-to-image', input, { prefer: 'respond-async' });
  t.is(accepted.status, 202);
  const done = await ended(account, accepted.body.requestId);
  t.like(done.body, { requestId: accepted.body.requestId, tool: 'html-to-image', status: 'succeeded', charged: 25, code: null });
  t.true(Date.parse(done.body.expiresAt) > Date.now());
  const image = await decodeImage(done.body.output.fileBase64, done.body.output.mimeType);
  t.deepEqual([image.width, image.height], [800, 600]);
  const sync = await callTool(account.apiKey, 'html-to-image', input);
  t.is(sync.status, 200);
  t.deepEqual(Object.keys(done.body.output).sort(), Object.keys(sync.body).sort());
  t.is(await balanceOf(account), 50);
});
