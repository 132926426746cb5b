"""The one rule for the work a command leaves pending (embedding, after `findling add`):

- A window holding the index does it: it follows every change another process makes, and
  embeds what is pending as it does after its own additions. No process is started.
- Otherwise a detached `findling index --background` does it. It owns the index while it
  works, or asks the headless Findling that holds it (`serve`, `mcp`) to do the work.
- A background run gives the index to any process that means to work on it: a window that
  opens, `findling index` or `findling add`. It stops at its next batch, commits what is done
  and exits; the process that took the index does the rest (nothing lost, nothing embedded
  twice). Quitting a window does not start one: the next window or command resumes.

`IndexHandle` keeps the rule's owner side (the "background" kind); this module its start."""

from __future__ import annotations

import subprocess
import sys

from findling.executables import command_line
from findling.server.handle import IndexHandle

BACKGROUND_FLAG = "--background"


def continue_in_background(handle: IndexHandle, home: str | None) -> bool:
    """After a command that left embedding pending: start the background run unless a window
    holds the index (it embeds itself). True when a process was started."""
    if handle.role == "client" and handle.owner_kind == "app":
        return False
    argv = [*command_line(), *(["--home", home] if home else []), "index", BACKGROUND_FLAG]
    detached: dict = (
        {"creationflags": subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP}  # type: ignore[attr-defined]
        if sys.platform == "win32"
        else {"start_new_session": True}  # a closed terminal's hangup does not reach it
    )
    subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True, **detached
    )
    return True


def open_for_background(home: str | None, settings=None) -> IndexHandle | None:
    """The background run's hold on the index; None when a window holds it (the window embeds)."""
    handle = IndexHandle.open(home, settings=settings, kind="background")
    if handle.role == "client" and handle.owner_kind == "app":
        handle.close()
        return None
    return handle
