"""The stack's database server: SecantusDB's `secantusd-py` (same arguments), run by
scripts/stack/services.ts with the fixes beside this file installed first."""
import sys

import secantus_point_writes
import secantus_record_ids

if __name__ == "__main__":
    secantus_point_writes.install()
    secantus_record_ids.install()
    from secantus.cli import main

    sys.argv[0] = "secantusd-py"
    sys.exit(main())
