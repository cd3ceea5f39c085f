//! SecantusDB run through scripts/stack/secantus_record_ids.py: reopened, it finds the largest
//! RecordId left in its documents (its counter goes on from there) with a seek per collection,
//! where SecantusDB itself steps through every document.
import test from 'ava';
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const PYTHON = path.join(ROOT, '.tools', 'secantus', 'bin', 'python3');

test('a reopened database finds its largest RecordId without reading every document', (t) => {
  const out = JSON.parse(
    execFileSync(PYTHON, [path.join(import.meta.dirname, 'secantus-record-ids.py'), path.join(ROOT, 'scripts', 'stack')], {
      encoding: 'utf8',
    }),
  );
  // RecordIds are minted 1, 2, ... in insertion order; the last one's document was deleted.
  t.is(out.unpatched.largest, out.inserted - 1);
  t.is(out.patched.largest, out.unpatched.largest);
  // What the fix is for: SecantusDB steps back through every document left.
  t.true(out.unpatched.steps >= out.left, `unpatched: ${out.unpatched.steps} steps`);
  // A step back into each shard, then at most two per collection (its last row, a seek before its first).
  t.true(out.patched.steps <= out.shards + 2 * out.collectionsLeft, `patched: ${out.patched.steps} steps`);
});
