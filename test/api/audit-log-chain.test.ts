//! The audit log's hash chain over HTTP: a customer can recompute it from an export (JSON or CSV,
//! paged or whole), verify names an entry edited or removed in the database, and concurrent changes
//! each take their own place in it.
import test from 'ava';
import { createHash } from 'node:crypto';
import { newAccount, request, type UncheckedJson } from '../helpers/api.js';
import { withServiceDb } from '../helpers/db.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { log, verify } from './support/audit-log.js';

/** What the docs tell a customer to do with an export: recompute every hash, oldest first. */
function verifyOffline(newestFirst: UncheckedJson[]): string | null {
  let prev: string | undefined;
  for (const entry of [...newestFirst].reverse()) {
    const { prevHash, hash, ...content } = entry;
    if (prev !== undefined && prevHash !== prev) return entry.id;
    if (
      createHash('sha256')
        .update(prevHash + canonicalJson(content))
        .digest('hex') !== hash
    )
      return entry.id;
    prev = hash;
  }
  return null;
}

test('the chain verifies, offline from an export too, and an entry edited or removed in the database is named', async (t) => {
  const account = await newAccount(10);
  for (let i = 0; i < 3; i++)
    t.is((await request('POST', '/api/v1/account/keys', { token: account.ownerToken, body: { name: `k${i}` } })).status, 201);
  const { items } = await log(account, '?limit=200');
  t.true(items.length >= 5);
  t.deepEqual(await verify(account), { ok: true, entries: items.length });
  t.is(verifyOffline(items), null, 'the export recomputes');
  t.is(items.at(-1).prevHash, '', 'the first entry follows the empty hash');

  // Paged: the pages put together are the whole log.
  const first = await log(account, '?limit=2');
  const second = await log(account, `?limit=200&cursor=${first.nextCursor}`);
  t.deepEqual(
    [...first.items, ...second.items].map((e) => e.id),
    items.map((e) => e.id),
  );

  // CSV, oldest first, with the hashes.
  const csv = await request('GET', '/api/v1/account/audit-log', { token: account.ownerToken, headers: { accept: 'text/csv' } });
  t.regex(csv.headers.get('content-type') ?? '', /^text\/csv/);
  const lines = (csv.body as string).trim().split('\r\n');
  t.is(lines[0], 'id,at,actorType,actorCredential,actorUserId,ip,userAgent,action,targetType,targetId,changes,prevHash,hash');
  t.is(lines.length, items.length + 1);
  t.true(lines[1]!.startsWith(`${items.at(-1).id},`) && lines[1]!.endsWith(`,${items.at(-1).hash}`));

  const edited = items[2];
  await withServiceDb((db) =>
    db.collection('audit_log').updateOne({ _id: edited.id }, { $set: { 'changes.name': [null, 'someone-else'] } }),
  );
  t.deepEqual(await verify(account), { ok: false, entries: items.length, firstBadEntry: edited.id });
  const tampered = (await log(account, '?limit=200')).items;
  t.is(verifyOffline(tampered), edited.id, 'offline as well');

  // Put back, then remove one in the middle: the entry after it no longer links.
  await withServiceDb((db) => db.collection('audit_log').updateOne({ _id: edited.id }, { $set: { changes: edited.changes } }));
  t.true((await verify(account)).ok);
  await withServiceDb((db) => db.collection('audit_log').deleteOne({ _id: items[3].id }));
  t.deepEqual(await verify(account), { ok: false, entries: items.length - 1, firstBadEntry: items[2].id });
});

test('concurrent changes each take their own place in the chain, which still verifies', async (t) => {
  const account = await newAccount(10);
  const before = (await log(account, '?limit=200')).items.length;
  const made = await Promise.all(
    Array.from({ length: 12 }, (_, i) => request('POST', '/api/v1/account/keys', { token: account.ownerToken, body: { name: `c${i}` } })),
  );
  t.true(made.every((r) => r.status === 201));
  const { items } = await log(account, '?limit=200');
  t.is(items.length, before + 12);
  t.is(new Set(items.map((e) => e.prevHash)).size, items.length, 'no two entries follow the same one');
  t.deepEqual(await verify(account), { ok: true, entries: items.length });
  t.is(verifyOffline(items), null, "the list is in the chain's order: the export verifies as it is");
});
