"""The index owner's local endpoint. The process that opened the index listens on a socket private
to the user (a Unix socket in a 0700 runtime folder; a named pipe on Windows); every other Findling
process sends its requests there. Peers prove they hold a key (wire.py's proofs on Unix;
multiprocessing.connection's HMAC challenge on Windows), so requests come only from processes of
this user; on both, a request and its answer are the codec's JSON (server/codec.py), never pickle.

Where the owner listens is recorded beside the index (`owner.endpoint`, 0600: the address and the
key), not derived from the environment: an MCP client starts `findling mcp` with only HOME, PATH
and a few other variables, and must still find the window that holds the same index.

Every wait is bounded: connecting, the proofs both ways, and the accept loop's shutdown (a
self-pipe wakes it; it never connects to itself). A burst of callers queues in a deep backlog."""

from __future__ import annotations

import json
import os
import select
import socket
import stat
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from findling.server.wire import (
    HANDSHAKE_S,
    MAX_MESSAGE,
    MAX_REQUEST,
    RECORD,
    RECORDS,
    Channel,
    answer_caller,
    call_owner,
    decoded,
    encoded,
    index_identity,
    read_record,
)

if TYPE_CHECKING:
    from multiprocessing.connection import Listener

# logging, secrets, tempfile and (on Windows) multiprocessing serve only the owner's side:
# a thin client imports wire.py alone.

_WINDOWS = sys.platform == "win32"
BACKLOG = 256  # a burst of agents' calls queues here instead of being refused (the kernel caps it)
_SUN_PATH_MAX = 100  # sockaddr_un holds 104–108 bytes, depending on the system
__all__ = ["HANDSHAKE_S", "RECORD", "EndpointServer", "Peer", "address", "connect"]

Peer = Channel  # what a handler is given; on Windows a PipeChannel, which reads alike


def _private_folder(folder: Path) -> Path | None:
    """`folder`, made or found as this user's own and closed to others; None when it is not to be
    had (another user made it first, it is a link, it cannot be made)."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.lstat()
    except OSError:
        return None
    if info.st_uid != os.getuid() or not stat.S_ISDIR(info.st_mode):
        return None
    if info.st_mode & 0o077:
        folder.chmod(0o700)
    return folder


def _socket_folder() -> tuple[Path, bool]:
    """A folder only this user can enter, for the socket, and whether it is this process's own
    (removed at close): the session's runtime folder when there is one, else a per-user folder in
    the temporary folder (short enough for a socket path), else, where another user made that
    one first, a fresh folder of this process's."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and os.path.isdir(base) and len(base) < _SUN_PATH_MAX - 40:
        found = _private_folder(Path(base) / "findling")
        if found is not None:
            return found, False
    import tempfile

    temporary = tempfile.gettempdir()
    if len(temporary) >= _SUN_PATH_MAX - 40:
        temporary = "/tmp"
    found = _private_folder(Path(temporary) / f"findling-{os.getuid()}")
    if found is not None:
        return found, False
    return Path(tempfile.mkdtemp(prefix=f"findling-{os.getuid()}-", dir=temporary)), True  # made 0700


def _new_address() -> tuple[str, Path | None]:
    """A new address to listen at, and the folder made for it alone (None: a shared one)."""
    import secrets

    name = secrets.token_hex(8)
    if _WINDOWS:
        return rf"\\.\pipe\findling-{name}", None
    folder, own = _socket_folder()
    return str(folder / f"{name}.sock"), folder if own else None


def _record_path(home: Path) -> Path:
    return home / RECORD


def _write_record(home: Path, address: str, key: bytes) -> None:
    path = _record_path(home)
    temporary = path.with_name(f"{path.name}.{os.getpid()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        try:
            record = {"address": address, "key": key.hex(), "pid": os.getpid(), "index": index_identity(str(home))}
            data = json.dumps(record).encode()
            while data:  # a full disk writes part, or nothing: an OSError, never a short record
                data = data[os.write(fd, data) :]
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except OSError:
        temporary.unlink(missing_ok=True)  # a full disk left 0-byte owner.endpoint.<pid> files
        raise


def address(home: Path) -> str | None:
    """Where the owner of the index in `home` listens (or last listened), if any owner ever did."""
    record = read_record(str(home))
    return record[0] if record else None


def connect(home: Path, timeout: float = HANDSHAKE_S) -> Channel | None:
    """A connection to the owner of the index in `home`, or None when no live owner answers in
    time (a stale socket from a process that died is just refused)."""
    record = read_record(str(home))
    if record is None:
        return None
    where, key = record
    if _WINDOWS:
        from multiprocessing import AuthenticationError
        from multiprocessing.connection import Client

        try:
            return PipeChannel(Client(where, family="AF_PIPE", authkey=key))  # type: ignore[return-value]
        except (OSError, EOFError, AuthenticationError):
            return None
    return call_owner(where, key, timeout=timeout)


class PipeChannel:
    """Windows: a named pipe's Connection speaking the same bounded records as a Channel (its own
    send and recv would pickle)."""

    codec = RECORDS

    def __init__(self, connection: Any, limit: int = MAX_MESSAGE) -> None:
        self._connection = connection
        self.limit = limit  # as Channel's: the owner reads requests, at most MAX_REQUEST

    def send(self, message: Any) -> None:
        self._connection.send_bytes(encoded(message, RECORDS))

    def recv(self) -> Any:
        return decoded(self._connection.recv_bytes(self.limit), RECORDS)

    def poll(self, timeout: float | None = 0.0) -> bool:
        return bool(self._connection.poll(timeout))

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> PipeChannel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


Handler = Callable[[Peer], None]


class EndpointServer:
    """Accepts connections on a thread; each connection is authenticated and served on a thread
    of its own. `close` stops accepting at once; requests already accepted run to their end."""

    def __init__(self, home: Path, handler: Handler) -> None:
        self.home = home
        self._handler = handler
        import secrets

        self._key = secrets.token_bytes(32)
        self._address, self._own_folder = _new_address()
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._peers: set[threading.Thread] = set()
        if _WINDOWS:
            from multiprocessing.connection import Listener

            self._listener: Listener | None = Listener(self._address, family="AF_PIPE")
            self._sock: socket.socket | None = None
        else:
            self._listener = None
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._sock.bind(self._address)
            os.chmod(self._address, 0o600)
            self._sock.listen(BACKLOG)
            self._wake_r, self._wake_w = os.pipe()
        try:
            _write_record(home, self._address, self._key)
        except OSError:
            self._unlisten()
            raise
        self._thread = threading.Thread(target=self._accept_loop, name="findling-endpoint", daemon=True)
        self._thread.start()

    def _unlisten(self) -> None:
        """The listening socket (or pipe) closed and its address gone: nothing was announced."""
        if self._listener is not None:
            self._listener.close()
            return
        assert self._sock is not None
        self._sock.close()
        os.close(self._wake_r)
        os.close(self._wake_w)
        try:
            os.unlink(self._address)
            if self._own_folder is not None:
                self._own_folder.rmdir()
        except OSError:
            pass

    @property
    def address(self) -> str:
        return self._address

    def _accept(self) -> Any:
        """The next connection (a socket, or on Windows a pipe Connection), or None once closed."""
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
                return peer
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

    def _serve(self, accepted: Any) -> None:
        try:
            conn = self._authenticated(accepted)
            if conn is not None:
                self._handler(conn)
        except (OSError, EOFError):
            pass  # the peer left
        except Exception:  # a bug must not take the endpoint down with it
            import logging

            logging.getLogger(__name__).exception("endpoint request failed")
        finally:
            accepted.close()  # the channel's socket (on Windows the connection itself)
            with self._lock:
                self._peers.discard(threading.current_thread())

    def _authenticated(self, accepted: Any) -> Peer | None:
        """The proofs both ways, and the request arriving, each within HANDSHAKE_S; None for a
        peer that fails them."""
        if not _WINDOWS:
            return answer_caller(accepted, self._key, HANDSHAKE_S)
        from multiprocessing import AuthenticationError
        from multiprocessing.connection import answer_challenge, deliver_challenge

        try:
            deliver_challenge(accepted, self._key)
            answer_challenge(accepted, self._key)
            if not accepted.poll(HANDSHAKE_S):  # an authenticated peer sends its request at once
                return None
        except (OSError, EOFError, AuthenticationError):
            return None
        return PipeChannel(accepted, MAX_REQUEST)  # type: ignore[return-value]

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
        elif self._listener is not None:
            # A named pipe's accept wakes only for a client: connect from a thread nobody waits on.
            threading.Thread(target=_poke, args=(self._address,), daemon=True).start()
            self._thread.join(timeout=HANDSHAKE_S)
        self._unlisten()
        record = read_record(str(self.home))
        if record is not None and record[0] == self._address:
            try:
                _record_path(self.home).unlink()
            except OSError:
                pass


def _poke(where: str) -> None:
    from multiprocessing.connection import Client

    try:
        Client(where, family="AF_PIPE").close()
    except (OSError, EOFError):
        pass
