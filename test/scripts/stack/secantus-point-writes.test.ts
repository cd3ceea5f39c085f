//! SecantusDB run through scripts/stack/secantus_point_writes.py: a findAndModify's write finds its
//! document by `_id` instead of scanning the collection, and still writes only what its query matches.
import test from 'ava';
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const PYTHON = path.join(ROOT, '.tools', 'secantus', 'bin', 'python3');

test("a findAndModify's write is an _id point write, guarded by its whole query", (t) => {
  const out = JSON.parse(
    execFileSync(PYTHON, [path.join(import.meta.dirname, 'secantus-point-writes.py'), path.join(ROOT, 'scripts', 'stack')], {
      encoding: 'utf8',
    }),
  );
  // What the fix is for: unpatched, SecantusDB scans the whole collection for the one document.
  t.deepEqual(out.unpatched, { matched: 1, scans: 1 });
  t.deepEqual(out.patched, { matched: 1, scans: 0 });
  // Its query still decides: the document is no longer pending, so nothing is written.
  t.deepEqual(out.guardFails, { matched: 0, scans: 0 });
  // Without an `_id`, the write plans as before (a scan here: no index on `status`).
  t.deepEqual(out.noId, { matched: 1, scans: 1 });
});
