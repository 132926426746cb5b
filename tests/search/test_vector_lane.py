"""The vector lane end to end: index, embed, search by meaning, filters, deletes."""

from __future__ import annotations

import os

import numpy as np
import pytest

from findling.engine import Engine
from findling.records import SearchMode, SearchRequest
from findling.search.relevance import relevance
from tests.helpers import assert_index_consistent, write


@pytest.fixture
def semantic(tmp_path, settings, docs, embedder_installed):
    settings.models.threads = 2
    write(docs / "db.md", "# Outage report\n\nERROR: connection refused on port 5432 while the nightly job ran.")
    write(docs / "cat.txt", "The cat slept on the warm windowsill all afternoon.")
    write(docs / "paris.md", "# Travel\n\nParis is the capital and largest city of France.")
    write(docs / "code.py", "def add(a, b):\n    return a + b\n")
    engine = Engine(tmp_path / "home", settings=settings)
    engine.add_source(docs)
    report = engine.index()
    assert report.embedding.documents == 4 and not report.embedding.skipped
    yield engine
    engine.close()


def _top(result):
    return os.path.basename(result.hits[0].path)


def test_finds_by_meaning_without_shared_words(semantic):
    assert _top(semantic.find(SearchRequest("database server unreachable", mode=SearchMode.SEMANTIC))) == "db.md"
    assert _top(semantic.find(SearchRequest("kitten napping", mode=SearchMode.SEMANTIC))) == "cat.txt"
    assert semantic.find(SearchRequest("kitten napping", mode=SearchMode.KEYWORD)).hits == ()  # BM25 cannot
    result = semantic.find(SearchRequest("French capital", mode=SearchMode.SEMANTIC))
    hit = result.hits[0]
    assert os.path.basename(hit.path) == "paris.md"
    explained = next(r for r in result.explain.results if r.doc_id == hit.doc_id)
    assert explained.evidence.coverage is None  # judged by meaning alone
    assert 0.3 < explained.evidence.cosine <= 1.0
    assert hit.score == pytest.approx(relevance(explained.evidence), abs=1e-5) == explained.final
    assert "Paris" in hit.snippet


def test_filters_apply_to_vector_results(semantic):
    names = {
        os.path.basename(h.path)
        for h in semantic.find(SearchRequest("anything at all ext:md", mode=SearchMode.SEMANTIC)).hits
    }
    assert names == {"db.md", "paris.md"}


def test_changed_and_deleted_files_follow(semantic, docs):
    (docs / "cat.txt").unlink()
    write(docs / "paris.md", "# Travel\n\nBerlin is the capital of Germany.")
    st = (docs / "paris.md").stat()
    os.utime(docs / "paris.md", (st.st_atime, st.st_mtime + 5))
    report = semantic.index()
    assert report.embedding.documents == 1
    names = [
        os.path.basename(h.path) for h in semantic.find(SearchRequest("kitten napping", mode=SearchMode.SEMANTIC)).hits
    ]
    assert "cat.txt" not in names
    assert _top(semantic.find(SearchRequest("German capital", mode=SearchMode.SEMANTIC))) == "paris.md"
    assert_index_consistent(semantic)
    cur = semantic.database.cursor()
    table = cur.execute("SELECT table_name FROM vector_models").fetchone()[0]
    orphans = cur.execute(f"SELECT count(*) FROM {table} v ANTI JOIN documents d ON d.id = v.doc_id").fetchone()[0]
    assert orphans == 0


def test_exact_search_matches_brute_force(semantic):
    index = semantic._search.vectors.index_for(semantic.models.embedder().spec.name)
    index.refresh()
    q = semantic.models.embedder().embed(["a question"], kind="query")[0]
    hits = index.search(q, 10)
    rows = semantic.database.cursor().execute(f"SELECT doc_id, vec FROM {index.table}").fetchall()
    best = {}
    for doc, score in ((d, float(np.dot(v, q))) for d, v in rows):
        best[int(doc)] = max(best.get(int(doc), -2.0), float(score))
    expected = sorted(best, key=lambda d: -best[d])[:10]
    assert [h.doc_id for h in hits] == expected
    assert np.isclose(hits[0].cosine, best[expected[0]])


def test_without_model_bm25_still_works(tmp_path, settings, docs, monkeypatch):
    monkeypatch.setenv("FINDLING_MODELS_MANIFEST", str(tmp_path / "nothing.toml"))
    (tmp_path / "nothing.toml").write_text(
        '[roles]\nembedder = { default = "gone" }\n[models.gone]\nrole = "embedder"\nrepo = "x/y"\n'
        'files = [{ path = "model.onnx", kind = "model" }]\n'
    )
    write(docs / "a.txt", "plain words")
    with Engine(tmp_path / "home2", settings=settings) as engine:
        engine.add_source(docs)
        report = engine.index()
        assert "no embedder model installed" in report.embedding.skipped.text
        assert len(engine.find(SearchRequest("plain", mode=SearchMode.KEYWORD)).hits) == 1
        result = engine.find(SearchRequest("plain", mode=SearchMode.SEMANTIC))
        assert result.hits == () and "semantic search is off" in result.notes[0].text
