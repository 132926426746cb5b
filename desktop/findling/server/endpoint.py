"""The index owner's local endpoint. The process that opened the index listens on a socket private
to the user (a Unix socket in a 0700 runtime folder; a named pipe on Windows); every other Findling
process sends its requests there. Peers prove themselves with a key (multiprocessing.connection's
HMAC challenge), so pickled requests come only from processes of this user.

Where the owner listens is recorded beside the index (`owner.endpoint`, 0600: the address and the
key), not derived from the environment: an MCP client starts `findling mcp` with only HOME, PATH
and a few other variables, and must still find the window that holds the same index.

Every wait is bounded: connecting, the challenge both ways, and the accept loop's shutdown (a
self-pipe wakes it; it never connects to itself). A burst of callers queues in a deep backlog."""

from __future__ import annotations

import json
import os
import select
import socket
import struct
import sys
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

# logging, secrets and tempfile serve only the owner's side: a client (a thin `findling search`)
# connects without importing them (8 ms of its 55).

_WINDOWS = sys.platform == "win32"
RECORD = "owner.endpoint"
BACKLOG = 256  # a burst of agents' calls queues here instead of being refused (the kernel caps it)
HANDSHAKE_S = 5.0  # connect and challenge, either side; a peer that says nothing for this long is dropped
_SUN_PATH_MAX = 100  # sockaddr_un holds 104–108 bytes, depending on the system


def _private_folder(folder: Path) -> Path:
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = folder.lstat()
    if info.st_uid != os.getuid() or not folder.is_dir() or folder.is_symlink():
        raise PermissionError(f"{folder} belongs to someone else; set XDG_RUNTIME_DIR to a private folder")
    if info.st_mode & 0o077:
        folder.chmod(0o700)
    return folder


def _socket_folder() -> Path:
    """A folder only this user can enter, for the socket: the session's runtime folder when
    there is one, else a per-user folder in the temporary folder (short enough for a socket path)."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and os.path.isdir(base) and len(base) < _SUN_PATH_MAX - 40:
        return _private_folder(Path(base) / "findling")
    import tempfile

    temporary = tempfile.gettempdir()
    if len(temporary) >= _SUN_PATH_MAX - 40:
        temporary = "/tmp"
    return _private_folder(Path(temporary) / f"findling-{os.getuid()}")


def _new_address() -> str:
    import secrets

    name = secrets.token_hex(8)
    if _WINDOWS:
        return rf"\\.\pipe\findling-{name}"
    return str(_socket_folder() / f"{name}.sock")


def _record_path(home: Path) -> Path:
    return home / RECORD


def _write_record(home: Path, address: str, key: bytes) -> None:
    path = _record_path(home)
    temporary = path.with_name(f"{path.name}.{os.getpid()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, json.dumps({"address": address, "key": key.hex(), "pid": os.getpid()}).encode())
    finally:
        os.close(fd)
    os.replace(temporary, path)


def _read_record(home: Path) -> tuple[str, bytes] | None:
    try:
        record = json.loads(_record_path(home).read_text(encoding="utf-8"))
        return str(record["address"]), bytes.fromhex(record["key"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def address(home: Path) -> str | None:
    """Where the owner of the index in `home` listens (or last listened), if any owner ever did."""
    record = _read_record(home)
    return record[0] if record else None


def _io_timeout(conn: Connection, seconds: float) -> None:
    """Bound every read and write on a Unix socket (0: no bound). The socket stays blocking, as
    Connection needs; a read past the bound fails with an OSError instead of waiting forever."""
    sock = socket.socket(fileno=conn.fileno())
    try:
        value = struct.pack("ll", int(seconds), int((seconds % 1) * 1_000_000))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, value)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, value)
    finally:
        sock.detach()


def connect(home: Path, timeout: float = HANDSHAKE_S) -> Connection | None:
    """A connection to the owner of the index in `home`, or None when no live owner answers in
    time (a stale socket from a process that died is just refused)."""
    record = _read_record(home)
    if record is None:
        return None
    where, key = record
    if _WINDOWS:
        try:
            return Client(where, family="AF_PIPE", authkey=key)
        except (OSError, EOFError, AuthenticationError):
            return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(where)
        sock.settimeout(None)
    except OSError:
        sock.close()
        return None
    conn = Connection(sock.detach())
    try:
        _io_timeout(conn, timeout)
        answer_challenge(conn, key)
        deliver_challenge(conn, key)
        _io_timeout(conn, 0)
    except (OSError, EOFError, AuthenticationError):
        conn.close()
        return None
    return conn


Handler = Callable[[Connection], None]


class EndpointServer:
    """Accepts connections on a thread; each connection is authenticated and served on a thread
    of its own. `close` stops accepting at once; requests already accepted run to their end."""

    def __init__(self, home: Path, handler: Handler) -> None:
        self.home = home
        self._handler = handler
        import secrets

        self._key = secrets.token_bytes(32)
        self._address = _new_address()
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._peers: set[threading.Thread] = set()
        if _WINDOWS:
            self._listener: Listener | None = Listener(self._address, family="AF_PIPE")
            self._sock: socket.socket | None = None
        else:
            self._listener = None
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._sock.bind(self._address)
            os.chmod(self._address, 0o600)
            self._sock.listen(BACKLOG)
            self._wake_r, self._wake_w = os.pipe()
        _write_record(home, self._address, self._key)
        self._thread = threading.Thread(target=self._accept_loop, name="findling-endpoint", daemon=True)
        self._thread.start()

    @property
    def address(self) -> str:
        return self._address

    def _accept(self) -> Connection | None:
        """The next connection, or None once closed."""
        if self._listener is not None:
            try:
                return self._listener.accept()
            except OSError:
                return None
        assert self._sock is not None
        while not self._closed.is_set():
            listening = self._sock.fileno()
            ready, _, _ = select.select([listening, self._wake_r], [], [])
            if self._closed.is_set():
                return None
            if listening in ready:
                try:
                    peer, _ = self._sock.accept()
                except OSError:
                    continue
                peer.setblocking(True)
                return Connection(peer.detach())
        return None

    def _accept_loop(self) -> None:
        while not self._closed.is_set():
            conn = self._accept()
            if conn is None:
                continue
            if self._closed.is_set():
                conn.close()
                return
            peer = threading.Thread(target=self._serve, args=(conn,), name="findling-endpoint-peer", daemon=True)
            with self._lock:
                self._peers.add(peer)
            peer.start()

    def _serve(self, conn: Connection) -> None:
        try:
            if self._authenticated(conn):
                self._handler(conn)
        except (OSError, EOFError):
            pass  # the peer left
        except Exception:  # a bug must not take the endpoint down with it
            import logging

            logging.getLogger(__name__).exception("endpoint request failed")
        finally:
            conn.close()
            with self._lock:
                self._peers.discard(threading.current_thread())

    def _authenticated(self, conn: Connection) -> bool:
        """The challenge both ways, and the request arriving, each within HANDSHAKE_S."""
        try:
            if not _WINDOWS:
                _io_timeout(conn, HANDSHAKE_S)
            deliver_challenge(conn, self._key)
            answer_challenge(conn, self._key)
            if not conn.poll(HANDSHAKE_S):  # an authenticated peer sends its request at once
                return False
            if not _WINDOWS:
                _io_timeout(conn, 0)
        except (OSError, EOFError, AuthenticationError):
            return False
        return True

    def wait_for_peers(self, timeout: float) -> None:
        """Let the connections being served send their answers (after `close`): a process that
        exits under them would cut a reply off. Never waits on the calling thread itself."""
        with self._lock:
            peers = [p for p in self._peers if p is not threading.current_thread()]
        for peer in peers:
            peer.join(timeout)

    def close(self) -> None:
        """Stop listening, without waiting on anything that may not come: connections still in
        the backlog are refused and their callers retry with the next owner."""
        with self._lock:
            if self._closed.is_set():
                return
            self._closed.set()
        if self._sock is not None:
            os.write(self._wake_w, b"x")
            self._thread.join(timeout=HANDSHAKE_S)
            self._sock.close()
            os.close(self._wake_r)
            os.close(self._wake_w)
            try:
                os.unlink(self._address)
            except OSError:
                pass
        elif self._listener is not None:
            # A named pipe's accept wakes only for a client: connect from a thread nobody waits on.
            threading.Thread(target=_poke, args=(self._address,), daemon=True).start()
            self._thread.join(timeout=HANDSHAKE_S)
            self._listener.close()
        record = _read_record(self.home)
        if record is not None and record[0] == self._address:
            try:
                _record_path(self.home).unlink()
            except OSError:
                pass


def _poke(where: str) -> None:
    try:
        Client(where, family="AF_PIPE").close()
    except (OSError, EOFError):
        pass
