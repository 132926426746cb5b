"""The measurement tools' own logic: known-item files, scoring, the JSON shape, the
calibration table, and that fitting refuses test splits."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from findling.cli import main
from findling.devtools.eval import _Calibration, load_known_items, result_name
from findling.devtools.fit_scores import fit_logistic
from findling.devtools.fit_scores import main as fit_main
from findling.errors import FindlingError
from tests.helpers import write


def test_known_items_file_format(tmp_path):
    questions = write(
        tmp_path / "q.tsv",
        "# query\ttargets\tkind\n"
        'FATAL: "too many clients"\truntime-config-connection, max-conn\tidentifier\n'
        "\n"
        "restore one table\tapp-pgrestore\n",
    )
    items = load_known_items(questions)
    assert [i.query for i in items] == ['FATAL: "too many clients"', "restore one table"]
    assert items[0].targets == {"runtime-config-connection", "max-conn"} and items[0].kind == "identifier"
    assert items[1].kind == ""
    with pytest.raises(FindlingError, match="q2.tsv:1"):
        load_known_items(write(tmp_path / "q2.tsv", "only a query\n"))
    assert result_name("/x/html/sql-createindex.html") == "sql-createindex"
    assert result_name("/x/README") == "README"


def test_calibration_buckets_count_top_results():
    table = _Calibration()
    table.add([0.95, 0.55, 0.05], [True, False, False])
    table.add([0.52, 0.0, 1.0], [True, False, True])
    rows = {row["from"]: row for row in table.table()}
    assert rows[0.5] == {"from": 0.5, "to": 0.6, "results": 2, "relevant": 0.5}
    assert rows[0.9]["results"] == 2 and rows[0.9]["relevant"] == 1.0  # 1.0 falls in the last bucket
    assert rows[0.0]["results"] == 2 and rows[0.3]["relevant"] is None


def test_eval_known_items_json(tmp_path, capsys):
    folder = tmp_path / "manual"
    write(
        folder / "sql-createindex.html",
        "<html><title>CREATE INDEX</title><body>CREATE INDEX builds an index "
        "on a table column to speed up lookups.</body></html>",
    )
    write(
        folder / "app-pgrestore.html",
        "<html><title>pg_restore</title><body>pg_restore restores a database "
        "from an archive made by pg_dump, or a single table of it.</body></html>",
    )
    write(folder / "tutorial.html", "<html><title>Tutorial</title><body>Getting started with tables.</body></html>")
    questions = write(
        tmp_path / "q.tsv",
        "how do I make lookups on a column faster\tsql-createindex\tquestion\n"
        "restore a single table from a dump\tapp-pgrestore,nothing-else\tkeywords\n"
        "xylophone\ttutorial\tkeywords\n",
    )
    code = main(
        [
            "--home",
            str(tmp_path / "unused"),
            "eval",
            "--known-items",
            str(questions),
            str(folder),
            "--modes",
            "bm25",
            "--workdir",
            str(tmp_path / "work"),
            "--calibration",
            "--json",
        ]
    )
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    bm25 = result["modes"]["bm25"]
    assert set(bm25) >= {"mrr@10", "hit@1", "hit@3", "p50_ms", "p95_ms", "kinds", "calibration"}
    assert bm25["hit@1"] == pytest.approx(2 / 3, abs=1e-3) and bm25["mrr@10"] == pytest.approx(2 / 3, abs=1e-3)
    assert bm25["kinds"]["question"] == {"mrr@10": 1.0, "hit@1": 1.0, "hit@3": 1.0, "queries": 1}
    assert bm25["kinds"]["keywords"]["queries"] == 2 and bm25["kinds"]["keywords"]["hit@1"] == 0.5
    assert result["documents"] == 3 and result["queries"] == 3
    # a second run reuses the index in --workdir
    main(["eval", "--known-items", str(questions), str(folder), "--modes", "bm25", "--workdir", str(tmp_path / "work")])
    assert "0 added, 0 read again, 3 unchanged" in capsys.readouterr().err


def test_logistic_fit_recovers_a_known_model():
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 1, size=(20000, 2))
    p = 1 / (1 + np.exp(-(-2.0 + 3.0 * x[:, 0] + 1.0 * x[:, 1])))
    y = (rng.uniform(0, 1, len(p)) < p).astype(float)
    w = fit_logistic(x, y)
    assert w == pytest.approx([-2.0, 3.0, 1.0], abs=0.2)


def test_fitting_refuses_test_splits(tmp_path):
    with pytest.raises(SystemExit):
        fit_main(["--workdir", str(tmp_path), "somewhere/scifact:test"])


def test_calibration_rises_allows_sampling_noise_only():
    from findling.devtools.eval import rises

    def table(*rows):
        return [{"results": n, "relevant": share} for n, share in rows]

    assert rises(table((400, 0.05), (200, 0.2), (129, 0.736), (46, 0.652)))  # 46 results: noise
    assert not rises(table((400, 0.05), (400, 0.5), (400, 0.3)))  # a real fall
    assert rises(table((400, 0.5), (5, 0.0), (400, 0.6)))  # tiny buckets are not judged


def test_eval_keyword_mode_is_findling_search(tmp_path):
    """`findling eval`'s bm25 mode ranks exactly as keyword search does, in its default
    match mode (every word, relaxed when no document has them all) or the one asked for, and
    lists a copy once, as the list a person sees does; so does its hybrid mode."""
    from findling.devtools.eval import _runner
    from findling.engine import Engine
    from findling.records import SearchMode, SearchRequest
    from findling.settings import Settings

    folder = tmp_path / "docs"
    write(folder / "both.md", "# Vacuum\n\nvacuum reclaims storage held by dead tuples.\n")
    write(folder / "vacuum.md", "# Vacuum\n\nvacuum vacuum vacuum, and vacuum again.\n")
    write(folder / "storage.md", "# Storage\n\nstorage storage storage everywhere.\n")
    write(folder / "other.md", "# Other\n\nnothing to see.\n")
    write(folder / "copy" / "vacuum.md", "# Vacuum\n\nvacuum vacuum vacuum, and vacuum again.\n")  # same bytes
    for match in ("all", "any"):
        settings = Settings()
        settings.search.match = match
        engine = Engine(tmp_path / f"home-{match}", settings=settings)
        try:
            engine.add_source(folder)
            engine.index(embed=False)
            paths = engine.document_paths()
            for query in ("vacuum storage", "vacuum", "vacuum xylophone"):
                ranked = [paths[row[0]] for row in _runner(engine, "bm25")(query).rows]
                shown = engine.find(SearchRequest(query, SearchMode.KEYWORD, limit=100))
                assert ranked == [h.path for h in shown.hits], (match, query)
                # no embedder here: hybrid is keyword search, and eval's hybrid is `query`'s list
                fused = [paths[row[0]] for row in _runner(engine, "hybrid")(query).rows]
                assert fused == [h.path for h in engine.find(SearchRequest(query, limit=100)).hits], (match, query)
            copies = [h for h in engine.find(SearchRequest("vacuum", SearchMode.KEYWORD)).hits if h.copies]
            assert len(copies) == 1  # the two vacuum.md: one result naming the other
            rows = _runner(engine, "bm25")("vacuum").rows
            assert sorted(paths[d].split("/docs/")[1] for row in rows if len(row) > 1 for d in row) == [
                "copy/vacuum.md",
                "vacuum.md",
            ]  # eval judges that result by both
            # the mode decides: "all" keeps only the document holding both words
            names = [paths[row[0]].rsplit("/", 1)[-1] for row in _runner(engine, "bm25")("vacuum storage").rows]
            if match == "all":
                assert names == ["both.md"]
            else:
                assert set(names) == {"both.md", "vacuum.md", "storage.md"}
        finally:
            engine.close()


def test_eval_keyword_mode_orders_equal_scores_as_findling_search(tmp_path, monkeypatch, long_pages):
    """Pages whose evidence is equal score the same to the precision a result shows, but
    their unrounded scores can differ by float noise (nearness made one page's saturation
    0.9999999999999999 and the next one's 1.0). The lane's order decides between
    them in the list a person sees, and eval must measure that list, not the noise."""
    import findling.search.service as engine_module
    from findling.devtools.eval import _runner
    from findling.engine import Engine
    from findling.records import SearchMode, SearchRequest
    from findling.settings import Settings

    folder = tmp_path / "docs"
    for i in range(6):
        # distinct pages, not copies, each scoring as the others: equal evidence, equal as shown
        filler = " ".join(f"w{i}x{j}" for j in range(30))
        write(folder / f"pathlib glob {i}.txt", "pathlib Path glob " * 3 + filler)
        os.utime(folder / f"pathlib glob {i}.txt", (1.7e9, 1.7e9))  # as old as each other: recency is no tiebreak
    calls = iter(range(1000))
    exact = engine_module.relevance
    # each later page a hair above the one before: noise no result shows
    monkeypatch.setattr(engine_module, "relevance", lambda e: exact(e) + next(calls) * 1e-12)
    with Engine(tmp_path / "home", settings=Settings()) as engine:
        engine.add_source(folder)
        engine.index(embed=False)
        shown = engine.find(SearchRequest("pathlib glob", SearchMode.KEYWORD, limit=100))
        assert len(shown.hits) == 6 and len({h.score for h in shown.hits}) == 1  # equal as shown
        lane = engine._bm25.search(engine.searcher.parse(SearchRequest("pathlib glob"))[0], 100)
        assert [h.doc_id for h in shown.hits] == [h.doc_id for h in lane.hits]
        assert [row[0] for row in _runner(engine, "bm25")("pathlib glob").rows] == [h.doc_id for h in shown.hits]


def test_eval_leaves_out_the_query_own_document(tmp_path):
    """ArguAna-style data: each query is also a document, under the same id. BEIR's
    evaluation skips that document, so the counter-argument the query should find counts
    at rank 1, not 2, as in the published figures."""
    from findling.devtools.eval import evaluate, judged_ids

    assert judged_ids("q1", [("q1",), ("d1",), ("q1x",)], {}) == ["d1", "q1x"]
    data = tmp_path / "argu"
    (data / "qrels").mkdir(parents=True)
    argument = "school uniforms suppress pupils individuality and cost families money"
    counter = "uniforms cost families less money than fashion and pupils show individuality otherwise"
    corpus = [
        {"_id": "q1", "title": "", "text": argument},
        {"_id": "d1", "title": "", "text": counter},
        {"_id": "d2", "title": "", "text": "homework loads on pupils"},
    ]
    (data / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in corpus))
    (data / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": argument}) + "\n")
    (data / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    result = evaluate(data, modes=("bm25",), workdir=tmp_path / "work")
    assert result["modes"]["bm25"]["ndcg@10"] == 1.0
    assert result["modes"]["bm25"]["mrr@10"] == 1.0


def test_eval_judges_a_result_by_the_best_rated_copy_it_names():
    """NFCorpus rates one of two identical abstracts and not the other: a result naming both
    counts as the rated one, once, whichever of them the list happens to show first."""
    from findling.devtools.eval import judged_ids, ndcg_at

    rels = {"b": 2, "c": 1}
    assert judged_ids("q", [("a", "b"), ("c",), ("d",)], rels) == ["b", "c", "d"]
    assert judged_ids("q", [("b", "a"), ("d",)], rels) == ["b", "d"]
    # the ideal still counts the copies apart: naming them in one row never scores above 1
    both = {"a": 1, "b": 1}
    assert ndcg_at(judged_ids("q", [("a", "b")], both), both) < 1.0
