//! The big-output path's pure parts and the directory store under it: what stays inline, what is
//! stored, that the stored JSON is the output's, and that an envelope built around it is valid JSON
//! equal to the one built from the output itself.
import test from 'ava';
import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DirectoryBlobStore, hoursBefore, newBlobKey, parseBlobKey } from '../../lib/blob-store.js';
import {
  INLINE_OUTPUT_MAX_BYTES,
  OutputBlobMissing,
  isOutputBlob,
  jsonWithField,
  keepOutput,
  storedJson,
  type OutputBlob,
} from '../../lib/output-blobs.js';

let dir: string;
let store: DirectoryBlobStore;
test.before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'output-blobs-'));
  store = new DirectoryBlobStore(dir);
});
test.after.always(() => rm(dir, { recursive: true, force: true }));

test('an output whose JSON fits stays itself; one over the limit becomes a reference to its JSON', async (t) => {
  const small = { digest: 'ab', note: 'é'.repeat(1000) };
  t.is(await keepOutput(store, small), small);
  const big = { fileBase64: 'A'.repeat(INLINE_OUTPUT_MAX_BYTES), mimeType: 'image/png', quote: 'say "hi"\n' };
  const kept = await keepOutput(store, big);
  t.true(isOutputBlob(kept));
  const json = await storedJson(store, kept as OutputBlob);
  t.is(json.toString('utf8'), JSON.stringify(big));
  // The limit counts UTF-8 bytes: 12,000 three-byte characters are over 32 KiB.
  t.true(isOutputBlob(await keepOutput(store, { text: '€'.repeat(12_000) })));
});

test('a reference whose blob is gone, or whose length differs, is refused', async (t) => {
  const kept = await keepOutput(store, { fileBase64: 'B'.repeat(INLINE_OUTPUT_MAX_BYTES + 1) });
  if (!isOutputBlob(kept)) return t.fail('not stored');
  await t.throwsAsync(storedJson(store, { $outputBlob: { ...kept.$outputBlob, bytes: 5 } }), { instanceOf: OutputBlobMissing });
  const { hour, name } = parseBlobKey(kept.$outputBlob.key)!;
  await unlink(path.join(dir, hour, name));
  await t.throwsAsync(storedJson(store, kept), { instanceOf: OutputBlobMissing });
});

test('an envelope around stored JSON is the same JSON as around the output itself', (t) => {
  const output = { fileBase64: 'QUJD', width: 3, nested: { a: [1, 'two'] } };
  const envelope = { requestId: 'call_1', status: 'succeeded', completedAt: new Date(0), output: 'replaced' };
  const spliced = jsonWithField(envelope, 'output', Buffer.from(JSON.stringify(output)));
  t.deepEqual(JSON.parse(spliced.toString('utf8')), JSON.parse(JSON.stringify({ ...envelope, output })));
  t.deepEqual(JSON.parse(jsonWithField({}, 'output', Buffer.from('null')).toString()), { output: null });
});

test('the directory store: keys name their hour, nothing outside the store is read, a partial write is never an answer, sweeps drop whole hours', async (t) => {
  // A store of its own: the sweep below drops this hour, which the other tests write into at once.
  const dir = await mkdtemp(path.join(tmpdir(), 'output-blobs-sweep-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const store = new DirectoryBlobStore(dir);
  const key = await store.put(Buffer.from('whole'));
  t.truthy(parseBlobKey(key));
  t.is((await store.get(key))?.toString(), 'whole');
  for (const bad of ['../x', `${key}/..`, '2026112413/../../etc/passwd', key.toUpperCase()]) t.is(await store.get(bad), undefined, bad);
  const { hour, name } = parseBlobKey(newBlobKey())!;
  await mkdir(path.join(dir, hour), { recursive: true });
  await writeFile(path.join(dir, hour, `${name}.partial`), 'half');
  t.is(await store.get(`${hour}/${name}`), undefined, 'a write that never finished has no key');
  t.is(await store.sweep(new Date(Date.now() - 3_600_000)), 0, 'this hour is kept');
  t.is((await store.get(key))?.toString(), 'whole');
  t.true((await store.sweep(new Date(Date.now() + 2 * 3_600_000))) >= 1);
  t.is(await store.get(key), undefined);
  t.deepEqual(hoursBefore(['2026112412', '2026112413', 'junk', '2026112414'], new Date('2026-11-24T13:30:00Z')), ['2026112412']);
});
