"""A message is dated by its Date header, not by when its file was last written: `after:` and
`before:` find it, and its attachments, by when it was sent (they were dated by the file's mtime)."""

from __future__ import annotations

import json
import os
import time
from datetime import datetime, timezone

import pytest

from tests.helpers import write
from tests.test_cli import _run

MESSAGE = (
    "From: Alice <alice@example.com>\nTo: bob@example.com\nSubject: Kindergarten fees\n"
    "Date: Mon, 04 Mar 2019 09:00:00 +0000\nMIME-Version: 1.0\n"
    'Content-Type: multipart/mixed; boundary="b1"\n\n'
    "--b1\nContent-Type: text/plain\n\nThe kindergarten fees for spring are attached.\n"
    '--b1\nContent-Type: text/plain\nContent-Disposition: attachment; filename="fees.txt"\n\n'
    "Spring term: tuition 420, lunches 80, excursions 35.\n--b1--\n"
)
SENT = datetime(2019, 3, 4, 9, tzinfo=timezone.utc).timestamp()


def _paths(home, *query: str) -> dict[str, float]:
    hits = json.loads(_run("search", *query, "--json", home=home).stdout)["results"]
    return {hit["path"].rsplit("/", 1)[-1]: hit["mtime"] for hit in hits}


@pytest.mark.slow
def test_a_message_and_its_attachments_are_dated_by_its_date_header(tmp_path, docs):
    write(docs / "fees.eml", MESSAGE)  # written now: its mtime is today
    home = tmp_path / "clihome"
    _run("add", str(docs), home=home)

    in_march = _paths(home, "after:2019-03-01", "before:2019-04-01")
    assert set(in_march) == {"fees.eml", "fees.eml › fees.txt"}
    assert all(abs(when - SENT) < 1 for when in in_march.values())  # what the window's Date column shows

    this_year = time.strftime("after:%Y-01-01")
    assert "fees.eml" not in _paths(home, "kindergarten", this_year)
    assert _paths(home, "tuition", "before:2019-04-01") == {"fees.eml › fees.txt": SENT}


@pytest.mark.slow
def test_touching_a_message_keeps_its_date(tmp_path, docs):
    path = write(docs / "fees.eml", MESSAGE)
    home = tmp_path / "clihome"
    _run("add", str(docs), home=home)
    later = time.time() + 60
    os.utime(path, (later, later))  # same bytes, a new mtime: only the stat is written again
    _run("index", home=home)
    assert set(_paths(home, "after:2019-03-01", "before:2019-04-01")) == {"fees.eml", "fees.eml › fees.txt"}
