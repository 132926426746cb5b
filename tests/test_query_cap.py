"""One cap on a search's or a question's length for every face, said to the user: a 32,000
character question once took the generator 216 s and 6.5 GB (the red team's 12)."""

from __future__ import annotations

import pytest

from findling.cli import main
from findling.errors import MAX_QUERY_CHARS, QuerySyntaxError
from findling.records import SearchRequest
from tests.helpers import write

LONG = "why does the harbour ferry leave late " * 1_000  # 38,000 characters


def test_the_cli_refuses_a_long_search_and_question_saying_the_cap(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FINDLING_HOME", str(tmp_path / "home"))
    write(tmp_path / "docs" / "ferry.md", "The harbour ferry leaves at nine.")
    assert main(["add", str(tmp_path / "docs")]) == 0
    capsys.readouterr()
    for command in ("search", "query", "ask"):
        assert main([command, LONG]) != 0
        said = capsys.readouterr().err
        assert f"at most {MAX_QUERY_CHARS:,} characters" in said and f"{len(LONG):,}" in said, command
    assert main(["search", "harbour ferry"]) == 0  # a short one still answers


def test_the_engine_holds_the_cap_for_every_face(engine):
    with pytest.raises(QuerySyntaxError, match="at most 2,000 characters"):
        engine.find(SearchRequest(LONG))
    with pytest.raises(QuerySyntaxError, match="a question is at most"):
        engine.ask(LONG)


def test_http_refuses_past_the_same_cap():
    from pydantic import ValidationError

    from findling.server.http_api import AskBody, QueryBody

    assert QueryBody(query="x" * MAX_QUERY_CHARS).query
    with pytest.raises(ValidationError):
        QueryBody(query="x" * (MAX_QUERY_CHARS + 1))
    with pytest.raises(ValidationError):
        AskBody(question="x" * (MAX_QUERY_CHARS + 1))
