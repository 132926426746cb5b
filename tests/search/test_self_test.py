"""A folder's self-test through the engine (search/self_test.py): made after embedding, kept
with the index, made again only when stale, a function of its own folder only, applied to its
folder's documents in hybrid search and said in the explain record and by `--explain`."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from findling.engine import Engine
from findling.faces.payloads import status_json
from findling.faces.terminal import print_status
from findling.records import LaneWeights, SearchRequest
from findling.search.lane_balance import SHIPPED
from findling.store.lane_weights import SelfTestRecord, save_self_test, self_tests

pytestmark = pytest.mark.slow

_TOPICS = {
    "garden": "soil compost seedlings watering pruning tomatoes mulch harvest",
    "sailing": "mainsail jib tacking harbour mooring knots anchor tide",
    "baking": "dough yeast oven flour proofing crust butter sugar",
    "astronomy": "telescope nebula orbit comet galaxy planets eclipse stars",
}


def _registers(folder: Path, files: int, seed: int) -> Path:
    """Machine-made data: lines of hexadecimal values, which the embedder cannot tell apart."""
    rng = random.Random(seed)
    folder.mkdir(parents=True)
    for i in range(files):
        lines = [" ".join(f"0x{rng.getrandbits(16):04x}" for _ in range(rng.randint(10, 18))) + "." for _ in range(8)]
        (folder / f"regs_{i:03d}.txt").write_text("\n\n".join(lines) + "\n", encoding="utf-8")
    return folder


def _notes(folder: Path, files: int, seed: int) -> Path:
    """Short notes on four topics, each a few sentences of its topic's words."""
    rng = random.Random(seed)
    folder.mkdir(parents=True)
    topics = list(_TOPICS.items())
    for i in range(files):
        topic, words = topics[i % len(topics)]
        vocabulary = words.split()
        sentences = [
            "The " + " and ".join(rng.sample(vocabulary, 3)) + f" of note {i} matter when {topic} goes well."
            for _ in range(6)
        ]
        (folder / f"note_{i:03d}.md").write_text(f"# {topic} note {i}\n\n" + " ".join(sentences) + "\n")
    return folder


def _record(engine: Engine, folder: Path) -> SelfTestRecord:
    source = next(s for s in engine.sources() if s.path == str(folder))
    return next(r for r in self_tests(engine.database.cursor()) if r.source_id == source.id)


def test_a_folder_tests_itself_after_embedding_and_only_its_own_documents_count(
    tmp_path, settings, embedder_installed, capsys
):
    registers = _registers(tmp_path / "registers", 64, seed=1)
    alone = Engine(tmp_path / "alone", settings=settings)
    try:
        alone.add_source(registers)
        report = alone.index()
        assert report.embedding is not None and [w[0] for w in report.embedding.weighed] == [str(registers)]
        by_itself = _record(alone, registers)
        assert by_itself.weights.queries >= 60 and by_itself.documents == 64
        # nothing changed: the self-test stands, none is made again
        again = alone.index()
        assert again.embedding is not None and again.embedding.weighed == ()
        # `status` says it under the folder
        status = alone.status()
        assert status.sources[0].weights == by_itself.weights
        print_status(status_json(status))
        assert f"self-test: words and meaning weighted as shipped ({by_itself.weights.queries} queries)" in (
            capsys.readouterr().out
        )
    finally:
        alone.close()

    # the same folder beside an unrelated one: its self-test is the same, the other has its own
    both = Engine(tmp_path / "both", settings=settings)
    try:
        notes = _notes(tmp_path / "notes", 64, seed=2)
        both.add_source(registers)
        both.add_source(notes)
        report = both.index()
        assert report.embedding is not None
        assert sorted(w[0] for w in report.embedding.weighed) == sorted([str(registers), str(notes)])
        beside = _record(both, registers)
        assert (beside.weights, beside.mrr_shipped, beside.documents) == (
            by_itself.weights,
            by_itself.mrr_shipped,
            by_itself.documents,
        )
        assert _record(both, notes).source_id != beside.source_id
    finally:
        both.close()


def test_hybrid_search_weighs_each_folders_documents_by_its_self_test(tmp_path, settings, embedder_installed, capsys):
    registers = _registers(tmp_path / "registers", 8, seed=3)  # too few to test themselves
    notes = _notes(tmp_path / "notes", 12, seed=4)
    engine = Engine(tmp_path / "home", settings=settings)
    try:
        engine.add_source(registers)
        engine.add_source(notes)
        report = engine.index()
        assert report.embedding is not None and report.embedding.weighed == ()  # below the fewest documents
        request = SearchRequest("compost seedlings garden")
        before = engine.find(request)
        assert before.explain is not None and before.explain.weighting is None
        source = next(s for s in engine.sources() if s.path == str(notes))
        model = engine.searcher.models.spec("embedder").vector_key
        weights = LaneWeights(0.2, 120, (("words", 0.1, 60),))
        with engine.database.transaction() as tx:
            save_self_test(tx, SelfTestRecord(source.id, model, 12, weights, 0.5, 0.6, 1.0, time.time()))
        after = engine.find(request)
        assert after.explain is not None
        weighting = after.explain.weighting
        assert weighting is not None and (weighting.folder, weighting.kind) == (str(notes), "words")
        assert (weighting.meaning, weighting.queries) == (0.1, 60)  # the kind's own share
        paths = engine.document_paths()
        shares = {(Path(paths[r.doc_id]).parent.name, r.evidence.meaning_share) for r in after.explain.results}
        assert ("notes", 0.1) in shares and all(
            share == (0.1 if folder == "notes" else None) for folder, share in shares
        )
        # another embedder's self-test does not apply
        with engine.database.transaction() as tx:
            tx.execute("UPDATE lane_weights SET model = 'another'")
        assert engine.find(request).explain.weighting is None  # type: ignore[union-attr]
    finally:
        engine.close()

    from findling.faces.explaining import self_test_line, weighting_sentence

    said = weighting_sentence(weighting)
    assert "words find more than meaning: weighted 0.9 / 0.1, from 60 self-test queries" in said
    line = self_test_line("/data/papers", SHIPPED, 240, 17.4)
    assert line.endswith("neither words nor meaning failed its 240 self-test queries: weighted as shipped (17 s)")
