from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from findling.search.snippets import make_snippet
from findling.text.analyzer import term_sequence


def _marked(snippet):
    return [snippet.text[h.start : h.end] for h in snippet.highlights]


def test_picks_chunk_with_most_distinct_terms():
    chunks = [(0, 50, "apple apple apple only here"), (40, 120, "apple and banana together in this chunk")]
    snip = make_snippet(chunks, term_sequence("apple banana"))
    assert "together" in snip.text
    assert _marked(snip) == ["apple", "banana"]
    assert (snip.chunk_start, snip.chunk_end) == (40, 120)


def test_stems_accents_and_identifier_parts_highlighted():
    text = "We were running late at the Café; snake_case helpers and HAPPY users."
    snip = make_snippet([(0, len(text), text)], term_sequence("run cafe snake happy"))
    assert _marked(snip) == ["running", "Café", "snake_case", "HAPPY"]


def test_the_word_itself_before_identifiers_that_hold_it():
    """ "what is RCU" in the Linux kernel docs showed the list of rcu_* functions (the most hits,
    each an identifier holding the word) instead of the passage about RCU."""
    listing = "rcu_read_lock rcu_read_unlock list_add_rcu hlist_del_rcu synchronize_rcu call_rcu " * 3
    prose = "RCU is a synchronization mechanism: RCU readers run concurrently with updaters."
    snip = make_snippet([(0, len(listing), listing), (len(listing), len(listing) + len(prose), prose)], ["rcu"])
    assert snip.text.startswith("RCU is a synchronization") and _marked(snip) == ["RCU", "RCU"]
    # within one chunk, the window goes to the words too
    text = listing + "filler text " * 40 + prose
    snip = make_snippet([(0, len(text), text)], ["rcu"], width=120)
    assert "RCU readers" in snip.text
    # where only identifiers hold it, they are what shows
    snip = make_snippet([(0, len(listing), listing)], ["rcu"])
    assert _marked(snip)[0] == "rcu_read_lock"


def test_window_centres_on_matches_in_long_text():
    text = "filler words " * 100 + "the needle is here " + "more filler " * 100
    snip = make_snippet([(0, len(text), text)], term_sequence("needle"), width=120)
    assert snip.text.startswith("…") and snip.text.endswith("…")
    assert len(snip.text) <= 125
    assert _marked(snip) == ["needle"]


def test_no_match_gives_document_start():
    snip = make_snippet([(0, 30, "first line\nsecond line")], ["zzz"])
    assert snip.text == "first line second line" and snip.highlights == ()


def test_empty_document():
    assert make_snippet([], ["x"]).text == ""


def test_a_passage_from_the_vector_lane_starts_at_a_word():
    from findling.search.results import _cut_span

    text = "try:\n        await asyncio.wait_for(eternity(), timeout=1.0)\n    except TimeoutError:"
    chunks = [(100, 100 + len(text), text)]
    inside = 100 + text.index("or(eternity")
    ((start, _end, cut),) = _cut_span(chunks, (inside, 100 + len(text)))
    assert cut.startswith("asyncio.wait_for(eternity()") and start == 100 + text.index("asyncio")
    ((start, _end, cut),) = _cut_span(chunks, (102, 100 + len(text)))  # near the chunk's start: from there
    assert start == 100 and cut.startswith("try:")


def test_markdown_heading_marks_are_not_shown_and_highlights_follow():
    """Snippets showed raw `##` marks (`## Description CREATE FUNCTION`)."""
    from findling.search.snippets import make_snippet

    text = "# Install Guide\n\n## Steps\n\nRun the installer, then restart.\n\n### Notes\n\nThe installer logs."
    snippet = make_snippet([(0, len(text), text)], ["instal"])
    assert "#" not in snippet.text
    assert snippet.text.startswith("Install Guide")
    assert [snippet.text[h.start : h.end] for h in snippet.highlights] == ["Install", "installer", "installer"]
    plain = make_snippet([(0, len(text), text)], ["nothing"])  # no match: the text's beginning
    assert "#" not in plain.text and plain.text.startswith("Install Guide")


def test_a_markdown_headings_marks_go_and_a_code_comments_mark_stays(engine, tmp_path):
    from findling.records import SearchMode, SearchRequest
    from tests.helpers import index_files

    index_files(
        engine,
        tmp_path / "docs",
        {
            "guide.md": "# Install Guide\n\n## Steps\n\nRun the zebra installer, then restart.",
            "tool.py": "import os\n\n# compute the zebra total\ndef total(xs):\n    return sum(xs)\n",
        },
    )
    hits = {h.path.rsplit("/", 1)[-1]: h for h in engine.find(SearchRequest("zebra", SearchMode.KEYWORD)).hits}
    assert "#" not in hits["guide.md"].snippet and "Steps" in hits["guide.md"].snippet
    assert "# compute the zebra total" in hits["tool.py"].snippet
    for hit in hits.values():
        assert {hit.snippet[h.start : h.end].lower() for h in hit.highlights} == {"zebra"}


@given(st.text(alphabet="ab #\n", max_size=60))
def test_taking_heading_marks_out_keeps_every_other_character_where_it_maps(text):
    from findling.search.snippets import heading_marks, without_spans

    cuts = heading_marks(text)
    shown, moved = without_spans(text, cuts)
    kept = [i for i in range(len(text)) if not any(a <= i < b for a, b in cuts)]
    assert len(shown) == len(kept)
    assert all(shown[moved(i)] == text[i] for i in kept)
    assert moved(len(text)) == len(shown)


def test_a_markdown_tables_markup_is_left_out_of_snippets_and_pipes_in_prose_stay():
    text = (
        "# Budget\n\n| Item | Monthly |\n|---|---:|\n| Rent | 1,150 |\n| Kindergarten fees | 420 |\n\n"
        "Count them with ls | wc -l."
    )
    snippet = make_snippet([(0, len(text), text)], ["kindergarten", "fee", "wc"])
    assert "|---" not in snippet.text and "| Rent" not in snippet.text
    assert "Item · Monthly · Rent · 1,150 · Kindergarten fees · 420 ·" in snippet.text
    assert "ls | wc" in snippet.text  # not a table row
    assert [snippet.text[h.start : h.end] for h in snippet.highlights] == ["Kindergarten", "fees", "wc"]
