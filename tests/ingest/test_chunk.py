from __future__ import annotations

from findling.ingest.chunk import chunk_text


def _check_cover(text, spans):
    assert spans[0].start == 0 and spans[-1].end == len(text)
    for a, b in zip(spans, spans[1:]):
        assert b.start > a.start
        assert b.start <= a.end, "chunks must overlap or touch: no text is lost"


def test_short_text_is_one_chunk():
    spans = chunk_text("one short paragraph.", "text", chunk_tokens=800)
    assert [(s.start, s.end) for s in spans] == [(0, 20)]


def test_empty_text_has_no_chunks():
    assert chunk_text("  \n ", "text") == []


def test_chunks_cover_text_with_overlap_and_sentence_breaks():
    text = " ".join(f"Sentence number {i} says something." for i in range(400))
    spans = chunk_text(text, "text", chunk_tokens=100, overlap=0.15)
    _check_cover(text, spans)
    assert len(spans) > 5
    for s in spans[:-1]:
        assert text[s.end - 2] == "." or text[s.end - 1] in ". ", "breaks fall after a sentence end"
        assert s.end - s.start <= 400
    overlaps = [a.end - b.start for a, b in zip(spans, spans[1:])]
    assert all(o > 0 for o in overlaps)


def test_breaks_at_headings_and_records_heading_path():
    text = "# Guide\n\n" + "Intro words here. " * 30 + "\n\n## Install\n\n" + "Install steps. " * 30
    spans = chunk_text(text, "markdown", chunk_tokens=100)
    _check_cover(text, spans)
    install = text.index("## Install")
    assert any(s.start == install for s in spans), "a chunk starts at the heading"
    assert spans[0].heading == "Guide"
    assert spans[-1].heading == "Guide > Install"


def test_rst_headings():
    text = "Title\n=====\n\n" + "alpha beta. " * 60 + "\n\nSection\n-------\n\n" + "gamma delta. " * 60
    spans = chunk_text(text, "rst", chunk_tokens=100)
    assert spans[-1].heading == "Title > Section"


def test_code_breaks_between_top_level_definitions():
    fn = "def f{i}(x):\n" + "    y = x + 1\n" * 8 + "    return y\n\n"
    text = "".join(fn.format(i=i) for i in range(30))
    spans = chunk_text(text, "code", chunk_tokens=60)
    _check_cover(text, spans)
    assert len(spans) > 3
    starts_at_def = sum(1 for s in spans if text[s.end :].startswith("def "))
    assert starts_at_def >= len(spans) // 2
