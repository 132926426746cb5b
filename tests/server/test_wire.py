"""The owner's endpoint on the wire: peers prove the key both ways, messages arrive whole in either
codec, and a peer that fails or says nothing is dropped without stopping the endpoint."""

from __future__ import annotations

import os
import socket
import sys
import threading

import pytest

from findling.server import endpoint, wire
from findling.server.endpoint import EndpointServer, connect

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Windows uses multiprocessing's named pipes")


@pytest.fixture()
def echo(tmp_path):
    """An endpoint that sends every request back, and the requests its handler saw."""
    seen: list = []

    def handler(conn) -> None:
        message = conn.recv()
        seen.append(message)
        conn.send(message)

    server = EndpointServer(tmp_path, handler)
    yield tmp_path, server, seen
    server.close()


def test_a_message_comes_back_whole_in_both_codecs(echo):
    home, _server, seen = echo
    big = "x" * 3_000_000  # past the size one write sends whole
    with connect(home) as conn:
        conn.send(("call", "search", (1, 2), {"big": big}))
        assert conn.recv() == ("call", "search", (1, 2), {"big": big})
    with wire.connect_thin(str(home)) as conn:
        conn.send(["payload", "search", {"query": "näive ☃", "limit": None}])
        assert conn.recv() == ["payload", "search", {"query": "näive ☃", "limit": None}]
    assert len(seen) == 2


def test_a_caller_without_the_key_is_refused_and_its_request_never_handled(echo):
    home, _server, seen = echo
    where, key = wire.read_record(str(home))
    assert wire.call_owner(where, bytes(32)) is None
    assert wire.call_owner(where, key[:-1] + bytes([key[-1] ^ 1])) is None
    assert seen == []
    with connect(home) as conn:  # the endpoint still serves the next caller
        conn.send("after")
        assert conn.recv() == "after"


def test_an_owner_without_the_key_is_not_believed(tmp_path):
    """A process listening at the recorded address that cannot prove the key gets no request."""
    where = str(tmp_path / "impostor.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(where)
    listener.listen(1)
    got: list[bytes] = []

    def impostor() -> None:
        peer, _ = listener.accept()
        channel = wire.Channel(peer)
        hello = channel.recv_bytes()
        # replays the caller's own nonce with a made-up proof
        channel.send_bytes(hello[1:] + bytes(32))
        try:
            got.append(channel.recv_bytes())
        except (OSError, EOFError):
            pass
        peer.close()

    thread = threading.Thread(target=impostor)
    thread.start()
    assert wire.call_owner(where, b"k" * 32) is None
    thread.join(10)
    listener.close()
    assert got == []


def test_the_two_proofs_differ_so_neither_can_be_sent_back_as_the_other():
    key, a, b = b"k" * 32, b"a" * 32, b"b" * 32
    assert wire.mac(key, b"findling owner", a, b) != wire.mac(key, b"findling caller", a, b)
    assert wire.mac(key, b"findling owner", a, b) != wire.mac(b"j" * 32, b"findling owner", a, b)


def test_a_peer_that_says_nothing_is_dropped_and_others_are_served(tmp_path, monkeypatch):
    monkeypatch.setattr(endpoint, "HANDSHAKE_S", 0.5)
    server = EndpointServer(tmp_path, lambda conn: conn.send(conn.recv()))
    try:
        where, _key = wire.read_record(str(tmp_path))
        silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        silent.connect(where)
        with connect(tmp_path) as conn:
            conn.send("served")
            assert conn.recv() == "served"
        silent.settimeout(10)  # a recv past this raises: the owner must hang up first
        assert silent.recv(1) == b""
        silent.close()
    finally:
        server.close()


def test_a_closed_owner_leaves_no_address_and_callers_get_none(tmp_path):
    server = EndpointServer(tmp_path, lambda conn: None)
    server.close()
    assert endpoint.address(tmp_path) is None
    assert connect(tmp_path) is None
    assert wire.connect_thin(str(tmp_path)) is None


def test_an_unproven_peer_cannot_announce_a_huge_message(echo, monkeypatch):
    """The owner reads at most a handshake's worth before the proof: a 4 GB length ends the
    connection at once, not after waiting for the bytes (the wait is made longer than ours)."""
    monkeypatch.setattr(endpoint, "HANDSHAKE_S", 120.0)
    home, _server, seen = echo
    where, _key = wire.read_record(str(home))
    peer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    peer.connect(where)
    peer.sendall(((1 << 32) - 2).to_bytes(4, "big"))
    peer.settimeout(30)  # a recv past this raises
    assert peer.recv(1) == b""  # hung up on, nothing allocated for it
    peer.close()
    assert seen == []


def _announce(channel: wire.Channel, size: int, body: bytes = b"") -> None:
    channel._sock.sendall(size.to_bytes(4, "big") + body)


def _dropped(channel: wire.Channel, within: float) -> bool:
    """Whether the owner closed the connection within `within` seconds."""
    channel._sock.settimeout(within)
    try:
        return channel._sock.recv(1) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


def test_an_announced_message_past_a_request_is_refused_at_once(echo):
    """The red team's 13: a proven caller announcing 255 MiB and sending nothing made the owner
    hold 255 MiB per connection, for ever."""
    home, _server, seen = echo
    where, key = wire.read_record(str(home))
    channel = wire.call_owner(where, key)
    _announce(channel, wire.MAX_MESSAGE - 1)
    assert _dropped(channel, 5.0)
    assert seen == []
    with connect(home) as conn:  # the endpoint still serves the next caller
        conn.send("after")
        assert conn.recv() == "after"


def test_a_caller_that_drips_its_request_is_dropped_by_its_deadline(echo, monkeypatch):
    monkeypatch.setattr(wire, "MESSAGE_S", 0.5)
    home, _server, seen = echo
    where, key = wire.read_record(str(home))
    channel = wire.call_owner(where, key)
    _announce(channel, 1000, b"x")
    assert _dropped(channel, 5.0)
    assert seen == []


def test_memory_is_held_as_bytes_come_not_as_a_header_says():
    import tracemalloc

    ours, theirs = socket.socketpair()
    channel = wire.Channel(ours, limit=wire.MAX_MESSAGE)
    theirs.sendall((200 << 20).to_bytes(4, "big") + b"y" * 100_000)
    theirs.close()
    tracemalloc.start()
    try:
        with pytest.raises(EOFError):
            channel.recv_bytes()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        ours.close()
    assert peak < 4 << 20, peak  # 200 MiB announced, 100 kB sent


def test_a_message_that_keeps_coming_is_read_whole_past_the_first_megabyte():
    ours, theirs = socket.socketpair()
    data = bytes(range(256)) * 20_000  # 5 MB, in pieces
    sender = threading.Thread(target=lambda: (theirs.sendall(len(data).to_bytes(4, "big") + data), theirs.close()))
    sender.start()
    assert wire.Channel(ours).recv_bytes() == data
    sender.join(10)
    ours.close()


def test_a_record_the_disk_cannot_hold_leaves_no_file(tmp_path, monkeypatch):
    """The red team's 14: a full disk left 0-byte owner.endpoint.<pid> files behind; the socket
    it listened on goes too."""
    import errno

    made: list[str] = []
    new_address = endpoint._new_address

    def recorded() -> tuple:
        found = new_address()
        made.append(found[0])
        return found

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(endpoint, "_new_address", recorded)
    monkeypatch.setattr(endpoint.os, "write", full)
    with pytest.raises(OSError):
        EndpointServer(tmp_path, lambda conn: None)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(wire.RECORD)] == []
    assert made and not os.path.exists(made[0])
