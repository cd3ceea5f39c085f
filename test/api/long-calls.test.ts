//! Long calls wait in their pool's queue of long calls (contracts/call.ts LONG_CALL_QUEUES):
//! conversions held up by a slow source take none of the task slots of the pool's short calls,
//! and each still answers once its source comes.
import test from 'ava';
import { balanceOf, callTool, newAccount } from '../helpers/api.js';
import { eventually } from '../helpers/webhook-receiver.js';
import { getCall } from './support/async-calls.js';
import { startFileServer } from '../fixtures/file-server.js';
import { makeDocx } from '../fixtures/documents.js';

/** More conversions than the cpu pool's worker holds short calls at once (workers/pools.ts callSlots: 16 with the test stack's CPU_CONCURRENCY of 2). */
const CONVERSIONS = 17;
const WORD_TO_PDF_COST = 15;

test("conversions waiting for their source hold none of the short calls' slots: hash-text answers meanwhile, and every conversion then converts, charged once", async (t) => {
  const files = await startFileServer();
  t.teardown(() => files.close());
  let release!: () => void;
  const sourceComes = new Promise<void>((resolve) => (release = resolve));
  const fileUrl = files.put('/slow/letter.docx', { body: await makeDocx(['A letter whose source is slow to come']), until: sourceComes });
  const account = await newAccount(CONVERSIONS * WORD_TO_PDF_COST + 1);

  const started = await Promise.all(
    Array.from({ length: CONVERSIONS }, () => callTool(account.apiKey, 'word-to-pdf', { fileUrl }, { prefer: 'respond-async' })),
  );
  t.deepEqual(
    started.map((res) => res.status),
    Array(CONVERSIONS).fill(202),
  );
  await eventually(
    async () => files.hits('/slow/letter.docx'),
    (hits) => hits > 0,
    60_000,
    'a conversion to ask for its source',
  );

  // Every conversion that has its call's task is stuck on its download until the release below.
  const hash = await callTool(account.apiKey, 'hash-text', { text: 'between conversions' });
  t.is(hash.status, 200, JSON.stringify(hash.body));
  release();

  for (const res of started) {
    const done = await eventually(
      () => getCall(account, res.body.requestId),
      (r) => r.status !== 200 || r.body.status !== 'running',
      120_000,
      'the conversion to end',
    );
    t.like(done.body, { status: 'succeeded', charged: WORD_TO_PDF_COST }, JSON.stringify(done.body.error ?? done.body));
  }
  t.is(await balanceOf(account), 0, 'each call charged once');
});
