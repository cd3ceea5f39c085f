"""SecantusDB with its findAndModify writes made point writes (installed by secantusd.py).

SecantusDB 0.7.0b3 (the newest on PyPI) writes a findAndModify's matched document with the filter
`{_id: <matched id>, $and: [<the query>]}`, and its write path plans no index for a filter with a
`$`-key, so every findOneAndUpdate rereads the whole collection: a ledger reserve scans every
account, a batch item's hand-on every item of every batch. With an `_id` equality beside such
keys, the `_id` point lookup is used instead; the write path still matches each candidate against
the whole filter, so what is written is the same, only not found by a scan. Other filters plan as
before. Drop this once SecantusDB plans such filters itself.
"""
from secantus import storage

_plan = storage.Storage._try_index_id_keys


def _try_index_id_keys(self, db, coll, filter, *, collation=None):
    if filter and "_id" in filter and any(isinstance(k, str) and k.startswith("$") for k in filter):
        by_id = _plan(self, db, coll, {"_id": filter["_id"]}, collation=collation)
        if by_id is not None:
            return by_id
    return _plan(self, db, coll, filter, collation=collation)


def install():
    storage.Storage._try_index_id_keys = _try_index_id_keys
