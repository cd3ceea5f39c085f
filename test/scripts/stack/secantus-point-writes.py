"""Run by secantus-point-writes.test.ts with SecantusDB's own Python: how the write of a
findAndModify finds its document, on a real (in-memory) SecantusDB storage, with and without
scripts/stack/secantus_point_writes.py installed. Prints one JSON line."""
import json
import sys

import secantus.storage as storage

sys.path.insert(0, sys.argv[1])
import secantus_point_writes  # noqa: E402

scans = 0
scan_docs = storage.Storage._scan_docs


def counted_scan(self, db, coll):
    global scans
    scans += 1
    return scan_docs(self, db, coll)


storage.Storage._scan_docs = counted_scan
db = storage.Storage(":memory:")
db.insert("d", "items", [{"_id": f"i{n}", "status": "pending"} for n in range(200)])


def write(filter):
    """The write half of a findAndModify, as SecantusDB issues it: the matched `_id` and the query."""
    global scans
    scans = 0
    matched = db.update_matching("d", "items", filter, {"$set": {"status": "running"}})["matched"]
    return {"matched": matched, "scans": scans}


def guarded(doc_id):
    return {"_id": doc_id, "$and": [{"_id": doc_id, "status": "pending"}]}


out = {"unpatched": write(guarded("i1"))}
secantus_point_writes.install()
out["patched"] = write(guarded("i2"))
out["guardFails"] = write(guarded("i2"))
out["noId"] = write({"$and": [{"status": "pending"}]})
print(json.dumps(out))
