"""The `findling` command's first step: `--version` is answered here, before the command line
and the records it uses are imported (a script that asks the version pays for nothing else); a
keyword search goes to the process holding the index when one does (findling/thin.py); every
other command goes on to `findling.cli.run`."""

from __future__ import annotations

import sys

from findling import VERSION_LINE


def run() -> None:
    if sys.argv[1:] in (["--version"], ["-V"]):
        print(VERSION_LINE)
        sys.stdout.flush()
        return
    from findling.thin import answered

    try:
        code = answered(sys.argv[1:])  # a keyword search the index's holder answers: no engine here
    except BrokenPipeError:
        from findling.faces.terminal import reader_left

        code = reader_left()
    if code is not None:
        sys.exit(code)
    from findling.cli import run as run_cli

    run_cli()
