"""Run by wiredtiger-settings.test.ts with SecantusDB's own Python: how much WiredTiger's cache holds
once 8 MB of documents were written to a SecantusDB storage (with the cache ceiling the stack runs
it with) and read back, in a home with the stack's WiredTiger.config (waiting up to the given seconds
for its background eviction to bring it under the given MB) and in one without. Prints one JSON line:
{"settings": MB, "none": MB}."""
import json
import sys
import time

import secantus.storage as storage
from wiredtiger import stat


def cached_mb(home, cache_size, under_mb, wait_s):
    db = storage.Storage(home, cache_size=cache_size, enable_oplog=False, durable=True, checkpoint_seconds=0)
    # WiredTiger counts only with statistics on; counting does not change what it keeps.
    db._conn.reconfigure("statistics=(fast)")
    pad = "x" * 1000
    for chunk in range(8):
        db.insert("d", "docs", [{"_id": chunk * 1000 + n, "pad": pad} for n in range(1000)])
    db.checkpoint()
    # Read back from disk, the pages are clean: only the eviction target decides which stay.
    for _ in db.find_matching("d", "docs", {}):
        pass
    stats = db._conn.open_session().open_cursor("statistics:", None, None)
    deadline = time.monotonic() + wait_s
    while True:
        stats.reset()
        held = stats[stat.conn.cache_bytes_inuse][2]
        if held < under_mb * 1024 * 1024 or time.monotonic() >= deadline:
            break
        time.sleep(0.1)
    stats.close()
    db.close()
    # Unrounded: the wait above stops below `under_mb`, which rounding could carry back up to it.
    return held / 1024 / 1024


with_settings, without, cache_size, under_mb, wait_s = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
print(json.dumps({"settings": cached_mb(with_settings, cache_size, under_mb, wait_s), "none": cached_mb(without, cache_size, 0, 0)}))
