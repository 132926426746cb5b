"""The window's search field takes no more than the cap every face has, and says so."""

from __future__ import annotations

from findling.errors import MAX_QUERY_CHARS


def test_the_windows_field_takes_no_more_and_says_so(window):
    assert window.search_field.maxLength() == MAX_QUERY_CHARS
    assert f"{MAX_QUERY_CHARS:,} characters" in window.search_field.toolTip()
    window.search_field.setText("x" * (MAX_QUERY_CHARS + 50))
    assert len(window.search_field.text()) == MAX_QUERY_CHARS
