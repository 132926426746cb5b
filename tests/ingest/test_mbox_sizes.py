"""A mailbox's messages show their own size (they showed "0 bytes")."""

from __future__ import annotations

import json

import pytest

from tests.helpers import write
from tests.test_cli import _run

MBOX = (
    "From alice@example.com Mon Mar  3 09:00:00 2025\n"
    "From: Alice <alice@example.com>\nTo: bob@example.com\nSubject: Quarterly budget\n"
    "Date: Mon, 03 Mar 2025 09:00:00 +0000\n\nThe quarterly budget for the kindergarten fees is attached.\n\n"
    "From carol@example.com Tue Mar  4 10:00:00 2025\n"
    "From: Carol <carol@example.com>\nTo: bob@example.com\nSubject: Garden party\n"
    "Date: Tue, 04 Mar 2025 10:00:00 +0000\n\nThe garden party moves to Saturday; bring a chair.\n"
)


@pytest.mark.slow
def test_a_mailboxs_messages_have_their_size(tmp_path, docs):
    write(docs / "inbox.mbox", MBOX)
    home = tmp_path / "clihome"
    _run("add", str(docs), home=home)
    for word, subject in (("kindergarten", "Quarterly budget"), ("chair", "Garden party")):
        (hit,) = json.loads(_run("search", word, "--json", home=home).stdout)["results"]
        assert subject in hit["title"]
        assert 100 < hit["size"] < len(MBOX)  # the message's bytes, not 0 nor the mailbox's
