"""The bytes between two Findling processes of one user: where the owner of an index listens (its
record beside the index), how a peer proves it holds the record's key, and how messages are framed.

On Unix the owner listens on a socket in a private folder. A connection carries messages, each a
4-byte length and its bytes. Before any message both sides prove they know the key, in one round
trip: the caller sends a nonce; the owner answers with its own nonce and a MAC over both; the caller
checks it and sends its MAC (labelled differently, so neither proof can be played back as the other),
followed at once by its request. A connection speaks records (every engine call: codec.py's JSON
of Findling's records, errors and plain values, never pickle) or plain JSON (the thin `findling
search`, which then needs none of the engine's records); the caller chooses in its first bytes.
Every message is bounded (MAX_MESSAGE), and so is the record: a small regular file of this user,
naming the very index file beside it. Windows uses multiprocessing's named pipes and their own
challenge (see endpoint.py), with the same messages.

This is the thin client's path: it imports the socket and json and nothing of multiprocessing."""

from __future__ import annotations

import json
import os
import socket
import stat
import time

from findling.datahome import INDEX_FILE

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
RECORDS, JSON = b"R", b"J"
_HEADER = 4
MAX_MESSAGE = 256 << 20  # a whole document of max_text_mb, escaped, with room to spare
# What the owner reads of a caller: a request (a query, paths, settings), never a document. An
# authenticated caller announcing 255 MiB and sending nothing held that much per connection.
MAX_REQUEST = 4 << 20
# A message, once its first byte has come, arrives whole within this, plus a second for each
# 16 MiB (a local socket carries hundreds of MB a second): a peer that drips is dropped.
MESSAGE_S = 10.0
_BYTES_PER_S = 16 << 20
_READ_AT_ONCE = 1 << 20  # what is taken on trust of a header: more is held only as it comes
_MAX_RECORD = 4096
_HANDSHAKE_BYTES = 1 + NONCE + _MAC  # the longest message before a peer is proven
_CALLER_LABEL = b"findling caller"
_OWNER_LABEL = b"findling owner"


class AuthenticationError(OSError):
    """The peer does not hold the key in the owner's record."""


def mac(key: bytes, label: bytes, *parts: bytes) -> bytes:
    """A keyed BLAKE2b over a label and the nonces: the proof one side sends the other."""
    return blake2b(label + b"".join(parts), key=key, digest_size=_MAC).digest()


def index_identity(home: str) -> list[int] | None:
    """(device, inode) of the index file in `home`: what an owner's record names, so a copied data
    folder (`cp -a`) is not sent to the original's owner, which would answer for another index."""
    try:
        info = os.stat(os.path.join(home, INDEX_FILE))
    except OSError:
        return None
    return [info.st_dev, info.st_ino]


def read_record(home: str) -> tuple[str, bytes] | None:
    """(address, key) of the owner of the index in `home`, or None when no owner ever wrote one, or
    the record is not to be trusted: not a small regular file of this user (a FIFO would hang the
    reading, a link to /dev/zero fill memory), not naming this very index file."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(os.path.join(home, RECORD), flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        mine = not hasattr(os, "getuid") or info.st_uid == os.getuid()
        if not stat.S_ISREG(info.st_mode) or not mine or info.st_size > _MAX_RECORD:
            return None
        record = json.loads(os.read(fd, _MAX_RECORD + 1)[:_MAX_RECORD])
        if record.get("index") != index_identity(home):
            return None
        return str(record["address"]), bytes.fromhex(record["key"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    finally:
        os.close(fd)


class Channel:
    """A connected Unix socket carrying whole messages, as records or plain JSON, with the socket's
    own timeout (bounded during the handshake; after it, none between messages, and a message
    begun must end within its own deadline); a peer that leaves shows as EOFError. `limit`: the
    longest message read from the peer (the owner reads requests, at most MAX_REQUEST)."""

    def __init__(self, sock: socket.socket, codec: bytes = RECORDS, limit: int = MAX_MESSAGE) -> None:
        self._sock = sock
        self.codec = codec
        self.limit = limit

    def send_bytes(self, data: bytes) -> None:
        if len(data) > MAX_MESSAGE:
            raise ValueError(f"a message of {len(data)} bytes is too long to send")
        header = len(data).to_bytes(_HEADER, "big")
        if len(data) < 65_536:
            self._sock.sendall(header + data)
        else:  # no copy of a large message just to put four bytes in front of it
            self._sock.sendall(header)
            self._sock.sendall(data)

    def recv_bytes(self, limit: int | None = None) -> bytes:
        """The next message; one longer than `limit` bytes (the channel's own by default) ends the
        connection (the handshake's messages are short: an unproven peer cannot make the owner
        hold gigabytes), and so does one not whole by its deadline (MESSAGE_S from its first byte).
        Memory is held as bytes arrive, never on the word of a header alone."""
        limit = self.limit if limit is None else limit
        first = self._exactly(1, None)  # between messages a peer may be quiet as long as it likes
        deadline = time.monotonic() + MESSAGE_S
        size = int.from_bytes(first + self._exactly(_HEADER - 1, deadline), "big")
        if size > limit:
            raise OSError(f"a message of {size} bytes where at most {limit} were expected")
        return bytes(self._exactly(size, deadline + size / _BYTES_PER_S))

    def _exactly(self, size: int, deadline: float | None) -> bytearray:
        buffer = bytearray(min(size, _READ_AT_ONCE))
        got = 0
        before = self._sock.gettimeout()
        try:
            while got < size:
                if got == len(buffer):  # grown as the bytes come: twice what arrived at most
                    buffer.extend(bytes(min(len(buffer), size - len(buffer))))
                if deadline is not None:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise OSError("the other Findling process sent a message too slowly")
                    self._sock.settimeout(left if before is None else min(left, before))
                n = self._sock.recv_into(memoryview(buffer)[got:])
                if n == 0:
                    raise EOFError("the other Findling process closed the connection")
                got += n
        except TimeoutError:
            raise OSError("the other Findling process sent a message too slowly") from None
        finally:
            if deadline is not None:
                self._sock.settimeout(before)
        return buffer

    def send(self, message: Any) -> None:
        self.send_bytes(encoded(message, self.codec))

    def recv(self) -> Any:
        return decoded(self.recv_bytes(), self.codec)

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


def encoded(message: Any, codec: bytes) -> bytes:
    if codec == JSON:
        return json.dumps(message, ensure_ascii=False).encode()
    from findling.server.codec import dumps

    return dumps(message)


def decoded(data: bytes, codec: bytes) -> Any:
    """A message read back. Bytes that are not one break the connection (an OSError), as a peer
    that left would: the caller asks again or says the owner is gone, never a traceback."""
    try:
        if codec == JSON:
            return json.loads(data)
        from findling.server.codec import loads

        return loads(data)
    except (ValueError, RecursionError) as exc:
        raise OSError(f"the other Findling process sent what is not a message: {exc}") from None


def call_owner(where: str, key: bytes, codec: bytes = RECORDS, timeout: float = HANDSHAKE_S) -> Channel | None:
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
    channel = Channel(sock, limit=MAX_REQUEST)
    try:
        sock.settimeout(timeout)
        hello = channel.recv_bytes(limit=_HANDSHAKE_BYTES)
        codec, theirs = hello[:1], hello[1:]
        if codec not in (RECORDS, JSON) or len(theirs) != NONCE:
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


def connect_thin(home: str) -> Channel | None:
    """A JSON channel to the owner of the index in `home` (Unix), or None where there is none.
    Windows' thin client takes the endpoint's named pipe instead (thin.py)."""
    record = read_record(home)
    return call_owner(*record, codec=JSON) if record else None
