"""The bytes between two Findling processes of one user: where the owner of an index listens (its
record beside the index), how a peer proves it holds the record's key, and how messages are framed.

On Unix the owner listens on a socket in a private folder. A connection carries messages, each a
4-byte length and its bytes. Before any message both sides prove they know the key, in one round
trip: the caller sends a nonce; the owner answers with its own nonce and a MAC over both; the caller
checks it and sends its MAC (labelled differently, so neither proof can be played back as the other),
followed at once by its request. A connection speaks pickle (every engine call, for Findling's own
processes) or JSON (the thin `findling search`, which then needs neither pickle nor the engine's
records); the caller chooses in its first bytes. Windows uses multiprocessing's named pipes and their
own challenge (see endpoint.py); this module then only reads the record.

This is the thin client's path: it imports the socket and json and nothing of multiprocessing."""

from __future__ import annotations

import json
import os
import socket
import sys

# The built-in modules hashlib and hmac use, without loading OpenSSL through them (2 ms of a thin call).
try:
    from _blake2 import blake2b
    from _operator import _compare_digest as _equal
except ImportError:  # pragma: no cover - a Python built without them
    from hashlib import blake2b
    from hmac import compare_digest as _equal  # type: ignore[no-redef]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

RECORD = "owner.endpoint"
HANDSHAKE_S = 5.0  # connect and the proofs, either side; a peer that says nothing for this long is dropped
NONCE = 32
_MAC = 32
PICKLE, JSON = b"P", b"J"
_HEADER = 4
_MAX_MESSAGE = (1 << 32) - 1
_HANDSHAKE_BYTES = 1 + NONCE + _MAC  # the longest message before a peer is proven
_CALLER_LABEL = b"findling caller"
_OWNER_LABEL = b"findling owner"


class AuthenticationError(OSError):
    """The peer does not hold the key in the owner's record."""


def mac(key: bytes, label: bytes, *parts: bytes) -> bytes:
    """A keyed BLAKE2b over a label and the nonces: the proof one side sends the other."""
    return blake2b(label + b"".join(parts), key=key, digest_size=_MAC).digest()


def read_record(home: str) -> tuple[str, bytes] | None:
    """(address, key) of the owner of the index in `home`, or None when no owner ever wrote one
    (or the record cannot be read)."""
    try:
        with open(os.path.join(home, RECORD), encoding="utf-8") as f:
            record = json.load(f)
        return str(record["address"]), bytes.fromhex(record["key"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


class Channel:
    """A connected Unix socket carrying whole messages, pickled or as JSON, with the socket's own
    timeout (bounded during the handshake, none after); a peer that leaves shows as EOFError."""

    def __init__(self, sock: socket.socket, codec: bytes = PICKLE) -> None:
        self._sock = sock
        self.codec = codec

    def send_bytes(self, data: bytes) -> None:
        if len(data) > _MAX_MESSAGE:
            raise ValueError(f"a message of {len(data)} bytes is too long to send")
        header = len(data).to_bytes(_HEADER, "big")
        if len(data) < 65_536:
            self._sock.sendall(header + data)
        else:  # no copy of a large message just to put four bytes in front of it
            self._sock.sendall(header)
            self._sock.sendall(data)

    def recv_bytes(self, limit: int = _MAX_MESSAGE) -> bytes:
        """The next message; one longer than `limit` bytes ends the connection (the handshake's
        messages are short: an unproven peer cannot make the owner hold gigabytes)."""
        size = int.from_bytes(self._exactly(_HEADER), "big")
        if size > limit:
            raise OSError(f"a message of {size} bytes where at most {limit} were expected")
        return bytes(self._exactly(size))

    def _exactly(self, size: int) -> bytearray:
        buffer = bytearray(size)
        view = memoryview(buffer)
        got = 0
        while got < size:
            n = self._sock.recv_into(view[got:])
            if n == 0:
                raise EOFError("the other Findling process closed the connection")
            got += n
        return buffer

    def send(self, message: Any) -> None:
        if self.codec == JSON:
            self.send_bytes(json.dumps(message, ensure_ascii=False).encode())
        else:
            import pickle

            self.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))

    def recv(self) -> Any:
        data = self.recv_bytes()
        if self.codec == JSON:
            return json.loads(data)
        import pickle

        return pickle.loads(data)

    def poll(self, timeout: float | None = 0.0) -> bool:
        """True when a message (or the peer's leaving) is ready to read within `timeout` seconds."""
        import select

        ready, _, _ = select.select([self._sock], [], [], timeout)
        return bool(ready)

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> Channel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def call_owner(where: str, key: bytes, codec: bytes = PICKLE, timeout: float = HANDSHAKE_S) -> Channel | None:
    """A channel to the owner listening at `where`, proven both ways; None when no owner answers
    in time or it does not hold the key (a stale socket from a process that died is just refused)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    channel = Channel(sock, codec)
    try:
        sock.settimeout(timeout)
        sock.connect(where)
        mine = os.urandom(NONCE)
        channel.send_bytes(codec + mine)
        answer = channel.recv_bytes(limit=_HANDSHAKE_BYTES)
        theirs, proof = answer[:NONCE], answer[NONCE:]
        if len(theirs) != NONCE or not _equal(proof, mac(key, _OWNER_LABEL, mine, theirs)):
            raise AuthenticationError("the process at the owner's address does not hold its key")
        channel.send_bytes(mac(key, _CALLER_LABEL, theirs, mine))
        sock.settimeout(None)
    except (OSError, EOFError):
        channel.close()
        return None
    return channel


def answer_caller(sock: socket.socket, key: bytes, timeout: float = HANDSHAKE_S) -> Channel | None:
    """The owner's side of a new connection: the caller's proof checked and its first message
    waiting, each within `timeout`; None for a caller that does not prove itself or says nothing."""
    channel = Channel(sock)
    try:
        sock.settimeout(timeout)
        hello = channel.recv_bytes(limit=_HANDSHAKE_BYTES)
        codec, theirs = hello[:1], hello[1:]
        if codec not in (PICKLE, JSON) or len(theirs) != NONCE:
            return None
        channel.codec = codec
        mine = os.urandom(NONCE)
        channel.send_bytes(mine + mac(key, _OWNER_LABEL, theirs, mine))
        if not _equal(channel.recv_bytes(limit=_HANDSHAKE_BYTES), mac(key, _CALLER_LABEL, mine, theirs)):
            return None
        if not channel.poll(timeout):  # a proven caller sends its request at once
            return None
        sock.settimeout(None)
    except (OSError, EOFError):
        return None
    return channel


def connect_thin(home: str) -> Any:
    """A channel to the owner of the index in `home` for plain values, or None where there is
    none. On Unix a JSON channel; on Windows multiprocessing's pipe (pickle), all it has."""
    if sys.platform == "win32":
        from pathlib import Path

        from findling.server.endpoint import connect

        return connect(Path(home))
    record = read_record(home)
    return call_owner(*record, codec=JSON) if record else None
