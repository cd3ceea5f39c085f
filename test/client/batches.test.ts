//! Batches through the client, against the stack: `batches.create` answers a handle whose
//! `results()` yields every item as it finishes and whose `progress()` reads the final counts; a
//! repeat under the same idempotency key is the same batch; `cancel()` and a bad batch's typed error.
import test from 'ava';
import { UtilityTools, UtilityToolsError, type BatchItem } from 'utility-tools/client';
import { apiUrl, newAccount } from '../helpers/api.js';

async function client(credits = 100) {
  const account = await newAccount(credits);
  return new UtilityTools({ baseUrl: apiUrl(), apiKey: account.apiKey, ownerToken: account.ownerToken });
}

test('create, then for await over results() as items finish, then progress() reads the counts', async (t) => {
  const c = await client(20);
  const batch = await c.batches.create(
    { tool: 'hash-text', items: [{ text: 'a' }, { text: 'b' }, { text: 'c' }], defaults: { algorithm: 'md5' } },
    { idempotencyKey: 'client-batch-1' },
  );
  t.regex(batch.id, /^bat_/);
  t.like(batch.created, { tool: 'hash-text', total: 3 });
  const seen: BatchItem[] = [];
  for await (const item of batch.results()) seen.push(item);
  t.deepEqual(seen.map((i) => i.index).sort(), [0, 1, 2]);
  t.true(seen.every((i) => i.status === 'succeeded' && (i.output as { algorithm: string }).algorithm === 'md5'));
  const progress = await batch.progress();
  t.like(progress, { status: 'completed', charged: 3, counts: { succeeded: 3, pending: 0, running: 0, failed: 0, skipped: 0 } });
  const again = await c.batches.create(
    { tool: 'hash-text', items: [{ text: 'a' }, { text: 'b' }, { text: 'c' }], defaults: { algorithm: 'md5' } },
    { idempotencyKey: 'client-batch-1' },
  );
  t.is(again.id, batch.id, 'the same key and body: the same batch');
  t.is((await c.batches.list()).items.length, 1);
  t.is((await batch.items({ status: 'succeeded', limit: 2 })).items.length, 2);
  t.like(await batch.cancel(), { id: batch.id, status: 'completed' }, 'cancelling an ended batch answers it as it is');
  t.is((await c.account.get()).balance, 17);
});

test('a bad item is a UtilityToolsError naming its field', async (t) => {
  const c = await client();
  const err = await t.throwsAsync(c.batches.create({ tool: 'hash-text', items: [{ text: 'fine' }, {}] }), {
    instanceOf: UtilityToolsError,
  });
  t.is(err?.code, 'validation_failed');
  t.deepEqual(
    err?.errors?.map((e) => e.field),
    ['/items/1/text'],
  );
});
