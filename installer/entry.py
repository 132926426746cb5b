"""The frozen app's entry point: `Findling` with no arguments opens the window; with
arguments it is the `findling` command line (`--selftest` included)."""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()  # the indexer's worker processes re-enter here
    from findling.launch import run

    if len(sys.argv) == 1:
        sys.argv.append("gui")
    run()
