"""The owner's record beside the index is trusted only as far as it can be: a small regular file
of this user, naming this very index file; and what an owner answers is data, never code."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from findling.server import wire
from findling.server.handle import IndexHandle
from tests.server.test_owner import _cli, _notes

pytestmark = pytest.mark.slow  # processes, real models or whole folders: seconds each


def test_a_copied_data_folder_is_its_own_index_not_a_client_of_the_original(tmp_path, settings):
    home = tmp_path / "home"
    copy = tmp_path / "copy"
    docs = _notes(tmp_path / "docs")
    other = _notes(tmp_path / "other")
    with IndexHandle.open(home, settings=settings) as owner:
        owner.add_source(str(docs))
        owner.index()
        subprocess.run(["cp", "-a", str(home), str(copy)], check=True)
        added = _cli("add", str(other), home=copy)
        assert added.returncode == 0, added.stderr
        assert [s.path for s in owner.sources()] == [str(docs)]  # the original took no write
    in_copy = _cli("status", "--json", home=copy)
    assert json.loads(in_copy.stdout)["indexed"] == 6


@pytest.mark.parametrize("kind", ["fifo", "zero", "big", "foreign"])
def test_a_record_that_is_not_a_small_file_of_this_user_is_not_followed(tmp_path, settings, kind):
    home = tmp_path / "home"
    docs = _notes(tmp_path / "docs")
    with IndexHandle.open(home, settings=settings) as owner:
        owner.add_source(str(docs))
        owner.index()
    record = home / wire.RECORD
    if kind == "fifo":
        os.mkfifo(record)
    elif kind == "zero":
        record.symlink_to("/dev/zero")
    elif kind == "big":
        record.write_text(json.dumps({"address": "/nowhere", "key": "00", "pad": "x" * 100_000}))
    else:
        if os.geteuid() != 0:
            pytest.skip("only root can give a file to another user")
        record.write_text(json.dumps({"address": "/nowhere", "key": "00"}))
        os.chown(record, 65534, 65534)
    if kind in ("big", "foreign"):  # the others would hang or fill this process if read here
        assert wire.read_record(str(home)) is None

    def bounded() -> None:  # a regression fails the test instead of filling the machine's memory
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    found = subprocess.run(
        [sys.executable, "-m", "findling", "search", "borrow", "--json"],
        capture_output=True,
        text=True,
        env=dict(os.environ, FINDLING_HOME=str(home), NO_COLOR="1"),
        timeout=60,
        preexec_fn=bounded,
    )
    assert found.returncode == 0, found.stderr
    assert len(json.loads(found.stdout)["results"]) == 3


def _fake_owner(home: Path, reply: bytes) -> tuple[threading.Thread, socket.socket]:
    """A process of this user that wrote an owner's record (it can write the index folder) and
    answers every caller, after a correct handshake, with `reply`."""
    key = os.urandom(32)
    where = str(home / "fake.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(where)
    listener.listen(16)
    (home / wire.RECORD).write_text(
        json.dumps({"address": where, "key": key.hex(), "index": wire.index_identity(str(home))})
    )

    def serve() -> None:
        while True:
            try:
                sock, _ = listener.accept()
            except OSError:
                return
            with sock:
                try:
                    channel = wire.Channel(sock)
                    sock.settimeout(5)
                    hello = channel.recv_bytes(limit=1 + wire.NONCE + 32)
                    theirs = hello[1:]
                    mine = os.urandom(wire.NONCE)
                    channel.send_bytes(mine + wire.mac(key, b"findling owner", theirs, mine))
                    channel.recv_bytes(limit=64)
                    channel.recv_bytes()
                    channel.send_bytes(reply)
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread, listener


def test_an_owner_that_answers_with_pickle_runs_no_code_in_its_callers(tmp_path, settings):
    import pickle

    home = tmp_path / "home"
    with IndexHandle.open(home, settings=settings) as owner:
        owner.add_source(str(_notes(tmp_path / "docs")))
        owner.index()
        marker = tmp_path / "pwned"

        class Exploit:
            def __reduce__(self):
                return (os.system, (f"touch {marker}",))

        _, listener = _fake_owner(home, pickle.dumps(("ok", Exploit())))
        try:
            status = _cli("status", home=home, timeout=60)
        finally:
            listener.close()
    assert not marker.exists()
    assert "Traceback" not in status.stderr


def test_without_a_runtime_folder_another_users_temp_folder_does_not_stop_the_endpoint(tmp_path, settings):
    if os.geteuid() != 0 or sys.platform != "linux":
        pytest.skip("only root can make a folder another user owns")
    import tempfile

    temporary = Path(tempfile.mkdtemp(prefix="ft", dir="/tmp"))  # short: a socket's path is bounded
    taken = temporary / f"findling-{os.getuid()}"
    taken.mkdir(mode=0o777)
    os.chown(taken, 65534, 65534)
    script = (
        "import sys, tempfile; tempfile.tempdir = sys.argv[2]\n"
        "from findling.server.handle import IndexHandle\n"
        "from findling.server.endpoint import address\n"
        "with IndexHandle.open(sys.argv[1]) as h:\n"
        "    where = address(h.home)\n"
        "    print(where)\n"
        "    import os; print(oct(os.stat(os.path.dirname(where)).st_mode & 0o777))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "home"), str(temporary)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    where, mode = out.stdout.split()
    assert where.startswith(str(temporary)) and not where.startswith(str(taken) + "/")
    assert mode == "0o700"
    assert not Path(where).parent.exists()  # its own folder goes with it
    shutil.rmtree(temporary)
