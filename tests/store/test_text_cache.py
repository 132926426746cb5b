"""The document cache serves results' metadata and text, and never stale ones: an edited,
moved or deleted file is read from the database again."""

from __future__ import annotations

import os

from findling.engine import Engine
from findling.records import SearchMode, SearchRequest
from tests.helpers import record_statements, write


def test_results_come_from_the_cache_and_follow_changes(tmp_path, settings, docs):
    write(docs / "a.md", "# Alpha\n\nThe walrus sleeps on the ice floe.")
    write(docs / "b.md", "# Beta\n\nThe otter eats a clam on its belly.")
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs)
        engine.index()
        cold = engine.find(SearchRequest("walrus", mode=SearchMode.KEYWORD)).hits[0]
        engine.warm()
        assert engine._documents.warmed
        warm = engine.find(SearchRequest("walrus", mode=SearchMode.KEYWORD)).hits[0]
        assert (warm.title, warm.snippet, warm.highlights, warm.path) == (
            cold.title,
            cold.snippet,
            cold.highlights,
            cold.path,
        )

        # each change is searched three times: checked one by one, then all checked at once,
        # then trusted as they are
        write(docs / "a.md", "# Alpha two\n\nThe walrus now swims under the ice.")
        engine.index()
        for _ in range(3):
            hit = engine.find(SearchRequest("walrus", mode=SearchMode.KEYWORD)).hits[0]
            assert hit.title == "Alpha two" and "swims" in hit.snippet

        os.rename(docs / "b.md", docs / "c.md")
        engine.index()
        for _ in range(3):
            hit = engine.find(SearchRequest("otter", mode=SearchMode.KEYWORD)).hits[0]
            assert os.path.basename(hit.path) == "c.md" and "clam" in hit.snippet
            assert "clam" in engine.document_text(hit.doc_id).text

        write(docs / "a.md", "# Alpha three\n\nThe walrus dives for food.")
        engine.index()
        for _ in range(3):
            hit = engine.find(SearchRequest("walrus", mode=SearchMode.KEYWORD)).hits[0]
            assert hit.title == "Alpha three" and "dives" in hit.snippet

        (docs / "c.md").unlink()
        engine.index()
        for _ in range(3):
            assert engine.find(SearchRequest("otter", mode=SearchMode.KEYWORD)).hits == ()


def test_with_nothing_written_since_the_copy_a_search_reads_no_versions(tmp_path, settings, docs):
    write(docs / "a.md", "# Alpha\n\nThe walrus sleeps on the ice floe.")
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs)
        engine.index()
        engine.warm()
        asked = record_statements(engine)
        hit = engine.find(SearchRequest("walrus", mode=SearchMode.KEYWORD)).hits[0]
        assert "walrus" in hit.snippet
        assert not [sql for sql in asked if "indexed_at" in sql]


def test_warming_in_slices_of_documents_keeps_each_whole(tmp_path, settings, docs, monkeypatch):
    import findling.store.text_cache as text_cache

    monkeypatch.setattr(text_cache, "_DOCS_A_READ", 1)  # one document a read: several reads
    settings.index.chunk_tokens = 32
    body = " ".join(f"word{i}" for i in range(600))
    write(docs / "long.md", "# Long\n\n" + body + " zebra")
    write(docs / "short.md", "# Short\n\nzebra crossing")
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs)
        engine.index()
        doc_id = next(
            h.doc_id for h in engine.find(SearchRequest("zebra", mode=SearchMode.KEYWORD)).hits if h.title == "Long"
        )
        before = engine.document_text(doc_id).text
        engine.warm()
        assert engine.document_text(doc_id).text == before
        assert {h.title for h in engine.find(SearchRequest("zebra", mode=SearchMode.KEYWORD)).hits} == {"Long", "Short"}
