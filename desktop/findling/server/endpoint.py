"""The index owner's local endpoint. The process that opened the index listens on a socket private
to the user (a Unix socket in a 0700 runtime folder; a named pipe on Windows); every other Findling
process sends its requests there. Peers prove themselves with a key the owner writes to a 0600 file
beside the socket (multiprocessing.connection's HMAC challenge), so pickled requests come only from
processes of this user."""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
import sys
import tempfile
import threading
from collections.abc import Callable
from multiprocessing.connection import (  # type: ignore[attr-defined]
    AuthenticationError,
    Client,
    Connection,
    Listener,
    answer_challenge,
    deliver_challenge,
)
from pathlib import Path

log = logging.getLogger(__name__)

_WINDOWS = sys.platform == "win32"
_FAMILY = "AF_PIPE" if _WINDOWS else "AF_UNIX"


def _runtime_dir() -> Path:
    """A folder only this user can enter, for the socket and the key."""
    if _WINDOWS:
        import platformdirs

        folder = Path(platformdirs.user_runtime_dir("findling", appauthor=False))
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    base = os.environ.get("XDG_RUNTIME_DIR")
    folder = Path(base) / "findling" if base and os.path.isdir(base) else \
        Path(tempfile.gettempdir()) / f"findling-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    info = folder.lstat()
    if info.st_uid != os.getuid() or not folder.is_dir() or folder.is_symlink():
        raise PermissionError(f"{folder} belongs to someone else; set XDG_RUNTIME_DIR to a private folder")
    if info.st_mode & 0o077:
        folder.chmod(0o700)
    return folder


def _name(home: Path) -> str:
    return hashlib.sha1(str(home).encode("utf-8", "surrogateescape")).hexdigest()[:16]


def address(home: Path) -> str:
    if _WINDOWS:
        return rf"\\.\pipe\findling-{os.environ.get('USERNAME', 'user')}-{_name(home)}"
    return str(_runtime_dir() / f"{_name(home)}.sock")


def _key_path(home: Path) -> Path:
    return _runtime_dir() / f"{_name(home)}.key"


def _write_key(home: Path) -> bytes:
    key = secrets.token_bytes(32)
    path = _key_path(home)
    temporary = path.with_name(f"{path.name}.{os.getpid()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, key)
    finally:
        os.close(fd)
    os.replace(temporary, path)
    return key


def _read_key(home: Path) -> bytes | None:
    try:
        return _key_path(home).read_bytes()
    except OSError:
        return None


def connect(home: Path) -> Connection | None:
    """A connection to the owner of the index in `home`, or None when no live owner listens
    (a stale socket from a process that died is just refused)."""
    key = _read_key(home)
    if not key:
        return None
    try:
        return Client(address(home), family=_FAMILY, authkey=key)
    except (OSError, EOFError, AuthenticationError):
        return None


Handler = Callable[[Connection], None]


class EndpointServer:
    """Accepts connections on a thread; each authenticated connection is served on a thread of its own."""

    def __init__(self, home: Path, handler: Handler) -> None:
        self.home = home
        self._handler = handler
        self._address = address(home)
        if not _WINDOWS:
            # Only the index's owner gets here (it holds DuckDB's lock), so a socket file left
            # behind is a dead owner's and must not block this one.
            try:
                os.unlink(self._address)
            except FileNotFoundError:
                pass
        self._key = _write_key(home)
        self._listener = Listener(self._address, family=_FAMILY)
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._accept_loop, name="findling-endpoint", daemon=True)
        self._thread.start()

    def _accept_loop(self) -> None:
        while not self._closed.is_set():
            try:
                conn = self._listener.accept()
            except OSError:
                if self._closed.is_set():
                    return
                continue
            if self._closed.is_set():
                conn.close()
                return
            threading.Thread(target=self._serve, args=(conn,), name="findling-endpoint-peer", daemon=True).start()

    def _serve(self, conn: Connection) -> None:
        try:
            deliver_challenge(conn, self._key)
            answer_challenge(conn, self._key)
        except (OSError, EOFError, AuthenticationError):
            conn.close()
            return
        try:
            self._handler(conn)
        except (OSError, EOFError):
            pass  # the peer left
        except Exception:  # a bug must not take the endpoint down with it
            log.exception("endpoint request failed")
        finally:
            conn.close()

    def close(self) -> None:
        """Stop listening. Requests already accepted run to their end."""
        if self._closed.is_set():
            return
        self._closed.set()
        try:  # wake the accept() blocked in the thread; closing the socket alone does not on Linux
            Client(self._address, family=_FAMILY).close()
        except (OSError, EOFError):
            pass
        self._thread.join(timeout=2.0)
        self._listener.close()
