"""The `findling` command's first step: `--version` is answered here, before the command line
and the records it uses are imported (a script that asks the version pays for nothing else);
every other command goes on to `findling.cli.run`."""

from __future__ import annotations

import sys

from findling import __version__

VERSION_LINE = f"findling {__version__}"


def run() -> None:
    if sys.argv[1:] in (["--version"], ["-V"]):
        print(VERSION_LINE)
        sys.stdout.flush()
        return
    from findling.cli import run as run_cli

    run_cli()
