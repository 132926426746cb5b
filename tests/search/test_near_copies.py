"""Nearly identical documents (a copy with a corrected typo, the same page saved twice) are
listed once, naming the other: MinHash signatures of their shingles, in every face."""

from __future__ import annotations

import os
import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from findling.cli import main
from findling.engine import Engine
from findling.faces.payloads import result_json
from findling.records import CopyKey, Hit, SearchMode, SearchRequest
from findling.search.results import collapse_copies, format_stem
from findling.text.near_copies import CONTAINED, NEAR, SLOTS, NearIndex, contained, similarity
from findling.text.shingles import MIN_WORDS, signature
from tests.helpers import index_files

random.seed(7)
_VOCAB = [f"word{i}" for i in range(5000)]


def _prose(n: int, seed: int) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(_VOCAB) for _ in range(n))


REPORT = "Quarterly report on the turbine overhaul. " + _prose(400, 1)
EDITED = REPORT.replace("word", "Word", 1) + " Signed, the engineering team."  # a typo fixed, a line added
OTHER = "Quarterly report on the turbine overhaul. " + _prose(400, 2)  # same subject, other text


def test_signatures_estimate_similarity():
    assert similarity(signature(REPORT), signature(REPORT)) == 1.0
    assert similarity(signature(REPORT), signature(EDITED)) >= NEAR
    assert similarity(signature(REPORT), signature(OTHER)) < 0.2
    assert signature("too short to tell") == b"" and similarity(b"", signature(REPORT)) == 0.0
    # formatting does not matter: words, lower-cased
    assert signature(REPORT) == signature(REPORT.upper().replace(" ", "\n  "))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(_VOCAB[:300]), min_size=MIN_WORDS, max_size=400, unique=True))
def test_signatures_see_words_in_order_not_their_spacing(words):
    text = " ".join(words)
    assert len(signature(text)) == 64 * 4
    assert signature(text) == signature("\n".join(w.upper() for w in words))  # spacing and case do not count
    assert similarity(signature(text), signature(" ".join(reversed(words)))) < 0.5  # the order does


def _first_near_by_scan(kept: list[tuple[bytes, int]], signed: bytes) -> int | None:
    return next((place for sig, place in kept if similarity(sig, signed) >= NEAR), None)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.lists(st.tuples(st.integers(0, SLOTS - 1), st.integers(0, 2)), max_size=12)),
        min_size=1,
        max_size=30,
    )
)
def test_the_banded_index_finds_what_comparing_with_every_kept_one_finds(made):
    """Signatures made from a few bases with some slots changed, so that many pairs sit near
    the threshold: the bands miss no near copy and find the same first one as a scan."""
    bases = [[(b * 7919 + i * 104729) & 0xFFFFFFFF for i in range(SLOTS)] for b in range(4)]
    index, kept = NearIndex(), []
    for place, (base, changes) in enumerate(made):
        slots = list(bases[base])
        for slot, value in changes:
            slots[slot] = value
        signed = b"".join(v.to_bytes(4, "little") for v in slots)
        assert index.first_near(signed) == _first_near_by_scan(kept, signed)
        index.add(signed, place)
        kept.append((signed, place))


def test_collapse_keeps_the_first_and_names_near_copies():
    texts = [REPORT, OTHER, EDITED]
    hits = [
        Hit(i, f"/d/{n}", n, 1.0 - i / 10, copy_key=CopyKey(signature=signature(t)))
        for i, (n, t) in enumerate(zip("abc", texts))
    ]
    out = collapse_copies(hits)
    assert [h.title for h in out] == ["a", "b"] and out[0].near_copies == ("/d/c",)
    unsigned = [replace(h, copy_key=CopyKey()) for h in hits]
    assert collapse_copies(unsigned) == unsigned  # without signatures nothing is near


def test_near_copies_are_one_result_in_every_face(tmp_path, settings, capsys):
    home = tmp_path / "home"
    with Engine(home, settings=settings) as engine:
        index_files(engine, tmp_path / "docs", {"report.txt": REPORT, "report-final.txt": EDITED, "other.txt": OTHER})
        for mode in (SearchMode.KEYWORD, SearchMode.HYBRID):
            result = engine.find(SearchRequest("turbine overhaul", mode=mode, rerank="off"))
            names = sorted(os.path.basename(h.path) for h in result.hits)
            assert len(names) == 2 and "other.txt" in names, mode
            listed = next(h for h in result.hits if h.near_copies)
            assert {os.path.basename(listed.path), *map(os.path.basename, listed.near_copies)} == {
                "report.txt",
                "report-final.txt",
            }
            payload = result_json(result)["results"]
            assert payload[result.hits.index(listed)]["near_copies"] == list(listed.near_copies)
        hidden = listed.near_copies[0]
        answer = engine.why_not(SearchRequest("turbine overhaul", mode=SearchMode.KEYWORD), hidden)
        assert answer.reason == "shown"
    assert main(["--home", str(home), "search", "turbine overhaul"]) == 0
    assert "nearly the same text at" in capsys.readouterr().out


def test_an_index_from_before_gets_its_signatures_without_reading_files(tmp_path, settings):
    home = tmp_path / "home"
    with Engine(home, settings=settings) as engine:
        docs = index_files(engine, tmp_path / "docs", {"report.txt": REPORT, "report-final.txt": EDITED})
        cur = engine._db.cursor()
        cur.execute("DELETE FROM near_signatures")
        cur.execute("DROP TABLE near_signatures")
        cur.execute("UPDATE meta SET value = '12' WHERE key = 'schema_version'")
    os.remove(docs / "report.txt")  # nothing is read from disk: the index's text is enough
    with Engine(home, settings=settings) as engine:
        rows = engine._db.cursor().execute("SELECT count(*) FROM near_signatures").fetchall()
        assert rows[0][0] == 2


def test_typography_is_no_part_of_a_word():
    """A rendered page writes ’ “ ” — … and a ¶ after each heading where its source has ASCII:
    read as letters they glued words together, and the two were not known as nearly the same."""
    source = "Overview\n\n" + REPORT.replace("turbine", "turbine's").replace("overhaul", '"overhaul" -- done')
    page = "Overview¶\n\n" + REPORT.replace("turbine", "turbine’s").replace("overhaul", "“overhaul” — done")
    assert signature(page) == signature(source)
    # letters of every script still are: accents and other alphabets make other words
    assert signature(REPORT.replace("word1", "wörd1")) != signature(REPORT)
    assert signature(REPORT.replace("word1", "слово")) != signature(REPORT)


def test_an_index_from_before_signs_typography_again_without_reading_files(tmp_path, settings):
    page = "Overview¶\n\n" + REPORT.replace("turbine", "turbine’s")
    home = tmp_path / "home"
    with Engine(home, settings=settings) as engine:
        docs = index_files(engine, tmp_path / "docs", {"page.txt": page, "plain.txt": OTHER})
        cur = engine._db.cursor()
        stale = b"\x01" * (SLOTS * 4)  # what the old reading might have made; plain text's stays
        cur.execute("UPDATE near_signatures SET sig = ?", [stale])
        cur.execute("UPDATE meta SET value = '19' WHERE key = 'schema_version'")
    os.remove(docs / "page.txt")  # nothing is read from disk: the index's text is enough
    with Engine(home, settings=settings) as engine:
        rows = dict(
            engine._db.cursor()
            .execute("SELECT d.path, n.sig FROM near_signatures n JOIN documents d ON d.id = n.doc_id")
            .fetchall()
        )
    assert rows[str(docs / "page.txt")] == signature(page)
    assert rows[str(docs / "plain.txt")] == stale  # no typography: not computed again


INCLUDED = "Options shared with other commands. " + _prose(250, 3)  # what a rendered page includes from elsewhere


def test_one_name_in_two_formats():
    assert format_stem("/doc/git-branch.txt") == ("git-branch", "txt")
    assert format_stem("/doc/git-branch.html") == ("git-branch", "html")
    assert format_stem("/k/Documentation/RCU/UP.rst.gz") == ("up", "rst")  # compressed on its own
    assert format_stem("/p/html/_sources/os.rst.txt")[0] == format_stem("/p/html/os.html")[0]
    assert format_stem("C:\\Reports\\Q3 Report.DOCX") == ("q3 report", "docx")
    assert format_stem("/x/v1.2-notes.txt") == ("v1.2-notes", "txt")  # a version is no extension
    assert format_stem("/home/.bashrc") == (".bashrc", "")


def test_a_source_is_mostly_inside_its_rendered_page():
    """A rendered page holds what its source includes from elsewhere: their similarity is far
    below NEAR, the source's share inside the page is not."""
    source, page = signature(REPORT), signature(REPORT + " " + INCLUDED)
    assert similarity(source, page) < NEAR
    assert contained(source, page, 405, 660) >= CONTAINED
    assert contained(source, signature(OTHER), 405, 405) < 0.3  # the same subject, another text
    assert contained(source, page, 160, 660) == 0.0  # an excerpt of a page is not the page


def _keyed(path: str, text: str, language: str = "en") -> Hit:
    words = len(text.split())
    return Hit(0, path, path, 1.0, copy_key=CopyKey("", signature(text), path, words, language))


def test_the_same_text_in_another_format_is_listed_once():
    page = REPORT + " " + INCLUDED
    hits = [_keyed("/doc/report.html", page), _keyed("/doc/other.txt", OTHER), _keyed("/doc/report.txt", REPORT)]
    out = collapse_copies(hits)
    assert [h.path for h in out] == ["/doc/report.html", "/doc/other.txt"]
    assert out[0].near_copies == ("/doc/report.txt",)
    # the same format under one name is another version; other names, another language: kept apart
    for twin in ("/old/report.html", "/doc/summary.txt"):
        assert len(collapse_copies([hits[0], _keyed(twin, REPORT)])) == 2, twin
    assert len(collapse_copies([hits[0], _keyed("/zh/report.txt", REPORT, "zh")])) == 2


def test_a_manual_page_beside_its_source_is_one_result_in_every_face(tmp_path, settings, capsys):
    home = tmp_path / "home"
    html = (
        "<html><head><title>Turbine overhaul</title></head><body><h1>Turbine overhaul</h1>"
        f"<p>{REPORT}</p><p>{INCLUDED}</p></body></html>"
    )
    with Engine(home, settings=settings) as engine:
        index_files(
            engine,
            tmp_path / "docs",
            {
                "overhaul.txt": f"Turbine overhaul\n================\n\n{REPORT}\n",
                "overhaul.html": html,
                "other.txt": OTHER,
            },
        )
        for mode in (SearchMode.KEYWORD, SearchMode.HYBRID):
            hits = engine.find(SearchRequest("turbine overhaul", mode=mode, rerank="off")).hits
            assert len(hits) == 2, mode
            listed = next(h for h in hits if h.near_copies)
            assert {os.path.basename(listed.path), *map(os.path.basename, listed.near_copies)} == {
                "overhaul.txt",
                "overhaul.html",
            }
            assert listed.title == "Turbine overhaul"
    assert main(["--home", str(home), "search", "turbine overhaul"]) == 0
    assert "nearly the same text at" in capsys.readouterr().out
