"""`findling eval --held-out`'s parts that need no index: the sets file, which tuning splits a
held-out set's model is fitted on, the fit itself, and the set builders for code without
docstrings and kernel-style sections."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest

from findling.devtools import code_set, section_set
from findling.devtools.held_out import fitted, fitting_pool, hybrid_model, load_sets
from findling.errors import FindlingError
from findling.records import Evidence
from findling.search import relevance

SETS = """
[[set]]
name = "A test"
collection = "a"
check = "$DATA/a:test"
fit = ["$DATA/a:train"]

[[set]]
name = "A paragraphs"
collection = "a"
check = "$DATA/a-para:test"
fit = ["$DATA/a-para:dev"]
workdir = "apara"

[[set]]
name = "B questions"
collection = "b"
check = "q.tsv@$DATA/b"

[[set]]
name = "C test"
collection = "c"
check = "$DATA/c:test"
fit = ["$DATA/c:dev"]
"""


def test_the_sets_file_expands_paths_and_refuses_to_fit_on_a_test_split(tmp_path, monkeypatch):
    monkeypatch.setenv("DATA", "/data")
    (tmp_path / "sets.toml").write_text(SETS)
    sets = load_sets(tmp_path / "sets.toml", tmp_path / "w")
    assert [(s.check, s.fit, s.workdir.name, s.metric) for s in sets] == [
        ("/data/a:test", ("/data/a:train",), "a", "ndcg@10"),
        ("/data/a-para:test", ("/data/a-para:dev",), "apara", "ndcg@10"),
        ("q.tsv@/data/b", (), "b", "mrr@10"),
        ("/data/c:test", ("/data/c:dev",), "c", "ndcg@10"),
    ]
    (tmp_path / "bad.toml").write_text(SETS.replace("a-para:dev", "a-para:test"))
    with pytest.raises(FindlingError, match="never for fitting"):
        load_sets(tmp_path / "bad.toml", tmp_path / "w")


def test_a_set_with_no_other_collection_to_fit_on_is_refused_before_any_work(tmp_path):
    """`eval --held-out` with such a file ran its evaluations, then failed with numpy's "need at
    least one array to concatenate"."""
    alone = "[[set]]\nname = 'a'\ncollection = 'a'\ncheck = '/data/a:test'\nfit = ['/data/a:train']\n"
    (tmp_path / "alone.toml").write_text(alone)
    with pytest.raises(FindlingError, match="a: no other collection .* has a `fit` split"):
        load_sets(tmp_path / "alone.toml", tmp_path / "w")


def _split(name: str, rng: np.random.Generator, keyword_helps: bool) -> dict:
    """Candidates of 40 queries (query, coverage, saturation, cosine, rrf, label): the relevant
    one is closest in meaning and, where keywords help, matches more of the words."""
    rows = []
    for q in range(40):
        for d in range(10):
            label = int(d == 0)
            cosine = 0.3 + 0.3 * label + rng.normal(0, 0.05)
            saturation = 0.2 + (0.5 * label if keyword_helps else 0.0) + rng.normal(0, 0.1)
            rows.append((q, min(1, max(0, saturation)), max(0, saturation), cosine, 0.0, label))
    return {"name": name, "rows": np.asarray(rows), "qrels": {str(q): {"x": 1} for q in range(40)}, "queries": []}


def test_a_held_out_collection_is_never_in_its_own_fit():
    rng = np.random.default_rng(1)
    tuning = {
        ("a", "a:train"): _split("a/train", rng, True),
        ("a", "a-para:dev"): _split("a-para/dev", rng, True),
        ("b", "b:dev"): _split("b/dev", rng, False),
    }
    assert [d["name"] for d in fitting_pool(tuning, "a")] == ["b/dev"]
    assert [d["name"] for d in fitting_pool(tuning, "b")] == ["a/train", "a-para/dev"]
    model = fitted(fitting_pool(tuning, "b"))
    assert model.cosine + model.cosine_gap > 0  # closer in meaning is more likely relevant


def test_the_held_out_model_orders_hybrid_results_only_while_it_is_in_force():
    shipped = relevance.HYBRID
    keyword_only = relevance.ScoreModel(intercept=0.0, saturation=5.0)
    a = Evidence(coverage=1.0, saturation=0.9, cosine=0.2)
    b = Evidence(coverage=0.2, saturation=0.1, cosine=0.8)
    with hybrid_model(keyword_only):
        assert relevance.relevance(a) > relevance.relevance(b)
    assert relevance.HYBRID is shipped


def test_code_without_docstrings_becomes_questions_for_its_files(tmp_path):
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "shapes.py").write_text(
        textwrap.dedent(
            '''
            class Box:
                def area(self):
                    """Compute the area of the box from its sides."""
                    # width times height
                    w = self.w
                    h = self.h
                    return w * h

            def copy(x):
                """Return a copy."""
                y = list(x)
                z = y
                return z

            def twice(x):
                """Return a copy of the list with every item twice."""
                out = []
                for item in x:
                    out += [item, item]
                return out
            '''
        )
    )
    (src / "test").mkdir()
    test = 'def test_a():\n    """Check the area of a box here."""\n    a = 1\n    b = 2\n    assert a < b\n'
    (src / "test" / "test_shapes.py").write_text(test)
    made = code_set.build(src, tmp_path / "out", questions=10)
    assert made == {"functions": 2, "questions": 2, "candidates": 2}  # "Return a copy." is too short
    area = (tmp_path / "out" / "functions" / "pkg" / "shapes" / "Box.area.py").read_text()
    assert "def area(self)" in area and "Compute" not in area and "width" not in area
    rows = [
        line.split("\t")
        for split in ("dev", "test")
        for line in (tmp_path / "out" / f"questions-{split}.tsv").read_text().splitlines()[1:]
    ]
    assert sorted(r[1] for r in rows) == ["pkg/shapes/Box.area", "pkg/shapes/twice"]
    assert "Compute the area of the box from its sides." in [r[0] for r in rows]


def test_kernel_style_sections_become_heading_queries(tmp_path):
    src = tmp_path / "Documentation"
    (src / "translations").mkdir(parents=True)
    long = "The scheduler picks the next task to run on each processor. " * 12
    (src / "sched.rst").write_text(
        f"========\nSchedule\n========\n\n1.2 Completely fair scheduling\n------------------------------\n\n{long}\n\n"
        f"Scheduler usage notes\n---------------------\n\n{long}\n\nUsage\n-----\n\n{long}\n"
    )
    (src / "other.rst").write_text(f"Scheduler usage notes\n=====================\n\n{long}\n")
    (src / "translations" / "it.rst").write_text(f"Pianificazione equa\n===================\n\n{long}\n")
    made = section_set.build(src, tmp_path / "out")
    queries = [json.loads(line)["text"] for line in (tmp_path / "out" / "queries.jsonl").read_text().splitlines()]
    # numbering dropped; "Scheduler usage notes" heads two sections, "Usage" is one word
    assert queries == ["Completely fair scheduling"]
    assert made["documents"] == 4
    corpus = (tmp_path / "out" / "corpus.jsonl").read_text()
    assert "Completely fair" not in corpus and "Pianificazione" not in corpus
    assert (tmp_path / "out" / "qrels" / "dev.tsv").read_text().splitlines()[1].startswith("q0\t")


def test_the_shipped_hybrid_calibrates_each_query_s_first_three():
    from findling.devtools.fit_scores import QUERY_LEVEL, _features, as_shipped

    rng = np.random.default_rng(2)
    data = [_split("a/train", rng, True), _split("b/dev", rng, False)]
    features = [_features(d["rows"]) for d in data]
    weights = {"cosine": 6.0, "cosine_gap": 2.0, "saturation_share": 1.0}
    model = as_shipped(data, features, weights)
    assert model.cosine == 6.0 and all(getattr(model, c) == getattr(relevance.HYBRID, c) for c in QUERY_LEVEL)
    predicted, relevant = [], []
    for d, f in zip(data, features):
        rows = d["rows"]
        logit = model.intercept + sum(getattr(model, c) * f[c] for c in (*weights, *QUERY_LEVEL))
        for q in np.unique(rows[:, 0]):
            idx = np.nonzero(rows[:, 0] == q)[0]
            top = idx[np.argsort(-logit[idx])[:3]]
            predicted.extend(1 / (1 + np.exp(-logit[top])))
            relevant.extend(rows[top, 5])
    assert abs(np.mean(predicted) - np.mean(relevant)) < 0.01
