"""A result's label says what it matched (every word, some words, or by meaning only), and a
result holding none of the words is never above fair unless the user asked by meaning; Hybrid
says when no document has every word, as Keyword mode does."""

from __future__ import annotations

import json

import pytest

from tests.helpers import write
from tests.test_cli import _run

DOCS = {
    "a.md": "The VPN certificate for the Lisbon office expires in May.",
    "b.md": "Renew the VPN certificate every year before it expires.",
    "c.md": "Secure remote tunnels into the company network need keys signed by an authority.",
    "d.md": "Knead the dough and let it rise overnight before baking.",
}


def _labels(home, command, query):
    out = json.loads(_run(command, query, "--json", "-n", "10", home=home).stdout)
    return {r["path"].rsplit("/", 1)[-1]: (r["matched"], r["label"]) for r in out["results"]}, out["notes"]


@pytest.fixture
def home(tmp_path, docs, embedder_installed):
    for name, text in DOCS.items():
        write(docs / name, text)
    home = tmp_path / "clihome"
    _run("add", "--wait", str(docs), home=home)
    return home


@pytest.mark.slow
def test_labels_say_what_matched_in_every_mode(home):
    keyword, _ = _labels(home, "search", "VPN certificate Lisbon")
    assert keyword["a.md"] == ("all", keyword["a.md"][1]) and keyword["a.md"][1].endswith("· every word")
    assert keyword["b.md"][0] == "some" and keyword["b.md"][1].endswith("· some words")
    hybrid, _ = _labels(home, "query", "VPN certificate Lisbon")
    assert hybrid["a.md"][1].endswith("every word")
    hybrid, _ = _labels(home, "query", "VPN certificate Porto")
    assert hybrid["b.md"][1].endswith("some words")
    meaning, _ = _labels(home, "query", "encrypted connection to headquarters")  # none of these words anywhere
    assert meaning and {m for m, _ in meaning.values()} == {"meaning"}
    for _, label in meaning.values():
        assert label.startswith(("fair", "weak")) and label.endswith("by meaning only"), label
    semantic, _ = _labels(home, "vsearch", "VPN certificate Lisbon")
    assert {m for m, _ in semantic.values()} == {"asked"}  # asked by meaning: strength alone
    assert all("·" not in label for _, label in semantic.values())


@pytest.mark.slow
def test_hybrid_says_when_no_document_has_every_word(home):
    listed, notes = _labels(home, "query", "VPN certificate Porto")
    assert listed and all(m != "all" for m, _ in listed.values())
    assert any("no document has every word" in n for n in notes)


@pytest.mark.slow
def test_a_label_stays_when_a_folder_of_long_pages_is_added(tmp_path, embedder_installed):
    """A note's score was read from its BM25 against the folder's average length: adding a
    folder of long pages made the budget row for "kindergarten fees" .39 (good) -> .69 (strong).
    The evidence is scored against a fixed length now, at the level of the query's best match."""
    notes, manual = tmp_path / "notes", tmp_path / "manual"
    write(notes / "budget.md", "# Budget\n\n| Item | Cost |\n|---|---|\n| Kindergarten fees | 320 |\n| Rent | 900 |\n")
    write(notes / "insurance.txt", "The car insurance premium rises by 4 % next year; cancellation fee 50.")
    write(notes / "recipe.txt", "Seville oranges make the best marmalade: boil the peel first.")
    words = "module function argument returns value parameter object class method attribute".split()
    for i in range(40):  # long pages that share no word with the queries
        write(
            manual / f"page{i}.html", f"<h1>Reference {i}</h1><p>" + " ".join(words[(i + j) % 10] for j in range(4000))
        )
    home = tmp_path / "home"
    _run("add", "--wait", str(notes), home=home)

    def scores() -> dict[tuple[str, str], tuple[float, str]]:
        out = {}
        for command in ("search", "query"):
            for query in ("kindergarten fees", "insurance premium", "marmalade oranges"):
                first = json.loads(_run(command, query, "--json", home=home).stdout)["results"][0]
                out[command, query] = (first["score"], first["label"])
        return out

    before = scores()
    _run("add", "--wait", str(manual), home=home)
    after = scores()
    for key, (score, label) in before.items():
        assert abs(after[key][0] - score) <= 0.05 and after[key][1] == label, (key, before[key], after[key])
