"""Run by secantus-record-ids.test.ts with SecantusDB's own Python: the largest RecordId that a
SecantusDB storage opened again finds in its documents (where its counter goes on from), and the
cursor steps that took, with and without scripts/stack/secantus_record_ids.py installed. Prints
one JSON line."""
import json
import shutil
import sys
import tempfile

import secantus.storage as storage
import wiredtiger

sys.path.insert(0, sys.argv[1])
import secantus_record_ids  # noqa: E402

steps = 0
_prev, _search_near = wiredtiger.Cursor.prev, wiredtiger.Cursor.search_near


def counted(method):
    def step(self):
        global steps
        steps += 1
        return method(self)
    return step


wiredtiger.Cursor.prev, wiredtiger.Cursor.search_near = counted(_prev), counted(_search_near)

home = tempfile.mkdtemp()


def open_storage():
    return storage.Storage(home, enable_oplog=False, durable=True, checkpoint_seconds=0)


PER_COLLECTION = 50
db = open_storage()
# Two databases, 24 collections over the document shards (so some shards hold several).
names = [(d, f"c{n}") for d in ("a", "b") for n in range(12)]
for d, coll in names:
    db.insert(d, coll, [{"_id": i, "pad": "x" * 200} for i in range(PER_COLLECTION)])
# The newest document of all deleted, and one collection emptied: what is left decides.
db.delete_matching("b", "c11", {"_id": PER_COLLECTION - 1})
db.delete_matching("a", "c3", {})
db.close()


def largest_record_id(scan):
    """What a scan answers on the reopened storage, and the cursor steps it took."""
    global steps
    steps = 0
    return {"largest": scan(db), "steps": steps}


db = open_storage()
inserted = PER_COLLECTION * len(names)
out = {
    "inserted": inserted,
    "left": inserted - 1 - PER_COLLECTION,
    "collectionsLeft": len(names) - 1,
    "shards": storage._DOC_SHARDS,
    "unpatched": largest_record_id(storage.Storage._scan_max_nat_seq),
}
secantus_record_ids.install()
out["patched"] = largest_record_id(storage.Storage._scan_max_nat_seq)
db.close()
shutil.rmtree(home)
print(json.dumps(out))
