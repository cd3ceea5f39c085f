"""SecantusDB finding its next RecordId at open by a seek per collection (installed by secantusd.py).

At every open SecantusDB 0.7.0b3 recovers its insertion counter as the largest RecordId in its
document tables, and it finds it by stepping back through every row of every shard: each page of
every document is read once. On the soak's hour of data that read left the restarted server 11 MiB
larger than one opened on the same files without it (WiredTiger evicts the pages, the heap keeps
the room they took). A shard's rows are keyed (database, collection, RecordId), so a collection's
last row holds its largest RecordId: this reads that row, then seeks to just before the
collection's first row, which is the previous collection's last. The answer is the same; the rows
read are one per collection. Drop this once SecantusDB persists the counter without an oplog.
"""
from secantus import storage
from wiredtiger import WT_NOTFOUND

_SMALLEST_RECORD_ID = -(2**63)


def _scan_max_nat_seq(self):
    largest = 0
    for shard in range(storage._DOC_SHARDS):
        cursor = self._cursor_optional(storage._doc_shard_name(shard))
        if cursor is None:
            continue
        cursor.reset()
        found = cursor.prev()
        while found == 0:
            db, coll, record_id = cursor.get_key()
            largest = max(largest, int(record_id))
            cursor.set_key(db, coll, _SMALLEST_RECORD_ID)
            near = cursor.search_near()
            if near == WT_NOTFOUND:
                break
            # On this collection's first row (or past it): step back once; before it: already there.
            found = cursor.prev() if near >= 0 else 0
    return largest


def install():
    storage.Storage._scan_max_nat_seq = _scan_max_nat_seq
