"""Every document gets a first vector before any gets its second; machine-made text keeps its
first only and `status` says why; a stopped run says what it kept; the background run's
threads are at the lowest priority."""

from __future__ import annotations

import threading

import pytest

from findling.engine import Engine
from findling.faces.presentation import held_back_lines, semantic_line
from findling.records import SearchMode, SearchRequest
from tests.helpers import write

TOPICS = ["invoices", "receipts", "payroll", "shipping", "returns", "taxes"]


def _page(topic: str) -> str:
    sections = "\n\n".join(
        f"## {topic.title()} part {i}\n\n" + f"The {topic} handbook explains step {i} of {topic} in detail. " * 12
        for i in range(4)
    )
    return f"# {topic.title()} handbook\n\nHow the office handles {topic}.\n\n{sections}\n"


@pytest.fixture
def engine(tmp_path, settings, embedder_installed):
    settings.index.chunk_tokens = 64
    with Engine(tmp_path / "home", settings=settings) as engine:
        yield engine


def test_every_document_is_reached_before_any_goes_deep(engine, docs):
    for topic in TOPICS:
        write(docs / f"{topic}.md", _page(topic))
    write(docs / "note.txt", "A one-line note about the parking permit.")
    engine.add_source(docs)
    engine.index(embed=False)
    seen = []
    report = engine.embed(progress=lambda p: seen.append(p))
    steps = [(p.base + p.done, p.base + p.total, p.depth.whole) for p in seen if p.depth is not None]
    assert steps[-1] == (7, 7, 7)
    # no document is whole beyond the one-window note until every document has a vector
    assert all(whole <= 1 for done, total, whole in steps if done < total)
    assert report.documents == 7 and report.deepened == 6
    status = engine.status()
    assert status.embedded == 7 and status.first_only == 0
    assert "by their opening" not in semantic_line(status, "terminal")


def test_a_stop_after_the_first_pass_keeps_what_it_did(engine, docs):
    for topic in TOPICS:
        write(docs / f"{topic}.md", _page(topic))
    engine.add_source(docs)
    engine.index(embed=False)
    stop = threading.Event()

    def progress(p):
        if p.depth is not None and p.base + p.done == p.base + p.total and p.done:
            stop.set()  # every document reached: stop before the second pass

    report = engine.embed(progress=progress, cancel=stop)
    assert report.cancelled and report.documents == 6 and report.deepened == 0
    status = engine.status()
    assert status.embedded == 6 and status.first_only == 6
    assert "6 of them by their opening so far" in semantic_line(status, "terminal")
    found = engine.find(SearchRequest("how the office pays salaries", mode=SearchMode.SEMANTIC, limit=3))
    assert found.hits and "payroll" in found.hits[0].path
    assert any("by their opening only" in n.text for n in found.notes)
    # the next run goes deep, and the first vectors give way: one vector set per document
    engine.embed()
    cur = engine.database.cursor()
    table = cur.execute("SELECT table_name FROM vector_models").fetchall()[0][0]
    firsts = cur.execute(f"SELECT count(*) FROM {table} WHERE start_char = 0").fetchall()[0][0]
    assert firsts == 6 and engine.status().first_only == 0


def test_machine_made_text_is_held_at_its_first_window_and_said(engine, docs):
    write(docs / "regs.h", "".join(f"#define mmGFX_REG_{i:04X} 0x{i:04x}\n" for i in range(600)))
    write(docs / "manual.md", _page("payroll"))
    engine.add_source(docs)
    report = engine.index().embedding
    assert report.documents == 2 and report.deepened == 1
    status = engine.status()
    assert status.held_back == (("numbers", 1),)
    assert held_back_lines(status) == [
        "1 document kept at its first window, machine-made: mostly numeric constants "
        "(register definitions, tables, firmware)"
    ]
    assert engine.index().embedding.deepened == 0  # held back, not waiting: no later run embeds it


def test_background_embedding_runs_at_the_lowest_priority(engine, docs, monkeypatch):
    import sys

    from findling.ingest import embedding
    from findling.priority import thread_nice

    if not sys.platform.startswith("linux"):
        pytest.skip("per-thread nice values are Linux's")
    seen = {}
    real = embedding.embed_pending

    def spy(*args, **kwargs):
        seen["nice"] = thread_nice()
        return real(*args, **kwargs)

    monkeypatch.setattr(embedding, "embed_pending", spy)
    write(docs / "note.md", _page("taxes"))
    engine.add_source(docs)
    engine.index()
    assert seen["nice"] == 19 and thread_nice() < 19  # the caller's thread keeps its own


def test_each_prose_document_gets_its_openings_next_windows_before_any_goes_deep(engine, docs, monkeypatch):
    """The words of a question were a page's second to fourth window for three of the four
    kernel pages first vectors missed: after every first vector, each prose page's next windows
    come before any page is embedded whole."""
    from findling.ingest import embedding

    def long_page(topic: str, aside: str = "") -> str:
        body = " ".join(f"The {topic} handbook explains step {i} of {topic} in detail." for i in range(60))
        words = body.split()
        return f"# {topic.title()} handbook\n\n" + " ".join(words[:150]) + f" {aside} " + " ".join(words[150:]) + "\n"

    write(
        docs / "returns.md", long_page("returns", "If the fire alarm sounds, everyone gathers at the north car park.")
    )
    for topic in TOPICS[:4]:
        write(docs / f"{topic}.md", long_page(topic))
    engine.add_source(docs)
    engine.index(embed=False)
    monkeypatch.setattr(embedding, "_depth_pass", lambda *args: None)  # stop after the opening
    engine.embed()
    cur = engine.database.cursor()
    table = cur.execute("SELECT table_name FROM vector_models").fetchall()[0][0]
    counts = dict(cur.execute(f"SELECT doc_id, count(*) FROM {table} GROUP BY doc_id").fetchall())
    assert sorted(counts.values()) == [1 + embedding.OPENING_WINDOWS] * 5
    assert engine.status().first_only == 5  # not whole yet: the depth pass replaces them
    found = engine.find(SearchRequest("where do we assemble when there is a fire", SearchMode.SEMANTIC, 3))
    assert found.hits and found.hits[0].path.endswith("returns.md")
    monkeypatch.undo()
    engine.embed()
    total = cur.execute(f"SELECT count(*), count(DISTINCT doc_id) FROM {table}").fetchall()[0]
    assert total[1] == 5 and total[0] > 5 * (1 + embedding.OPENING_WINDOWS) and engine.status().first_only == 0


def test_the_waiting_text_is_counted_in_the_models_tokens_by_extension(engine, docs):
    """Issue 61: a window is cut at about 450 characters, and the model reads its tokens: a
    header of hexadecimal register names costs it twice what a page of prose does. The time
    left counts the waiting text in tokens, each extension's measured on a sample of it with
    the embedder's own tokenizer, and the sample must tell the whole."""
    from findling.ingest.embed_work import token_density, tokens_waiting
    from findling.ingest.embedding_windows import batch_windows, read_documents
    from findling.store.vectors import ensure_table, work_waiting

    for topic in TOPICS:
        write(docs / f"{topic}.md", f"# {topic}\n\n" + f"The {topic} handbook explains each step in detail. " * 40)
    for n in range(40):
        write(
            docs / f"regs{n}.h",
            "".join(f"#define mmREG_{n:02X}_{i:04X}_BASE_IDX 0x{i * 7919 + n:08x}\n" for i in range(120)),
        )
    engine.add_source(docs)
    engine.index(embed=False)
    embedder = engine.models.embedder()
    spec = embedder.spec
    with engine._db.transaction() as tx:
        table = ensure_table(tx, spec.vector_key, embedder.dimension or 384)
    cur = engine._db.cursor()
    one_window = int(spec.window_length * 3.5)
    density = token_density(cur, table, spec, one_window, embedder.count_tokens)
    assert density["h"] > 1.5 * density["md"], density  # sampled: 24 of the 40 headers
    first, chars = work_waiting(cur, table, one_window)
    assert first == 46 and set(chars) == {"md", "h"}
    ids = [row[0] for row in cur.execute("SELECT id FROM documents").fetchall()]
    titles = dict(cur.execute("SELECT id, coalesce(title, '') FROM documents").fetchall())
    *_, texts = batch_windows(spec, titles, read_documents(cur, ids))
    truth = sum(embedder.count_tokens(texts))
    assert tokens_waiting({e: float(n) for e, n in chars.items()}, density) == pytest.approx(truth, rel=0.1)


def test_an_openings_windows_are_work_done_for_the_time_left(engine, docs, monkeypatch):
    """The depth pass reads an opening's windows again at no cost: the text they cover is no
    longer waiting, or the whole pass's time left counts it twice (on the kernel's
    Documentation/ three windows of each of 18,000 pages, an eighth of the pass)."""
    from findling.ingest import embedding

    seen: dict[str, float] = {}
    real_opening, real_depth = embedding._opening_pass, embedding._depth_pass

    def opening(db, embedder, run, progress, cancel):
        seen["opening"] = run.whole_waiting["md"]
        real_opening(db, embedder, run, progress, cancel)

    def depth(db, embedder, run, progress, cancel):
        seen["depth"] = run.whole_waiting["md"]
        real_depth(db, embedder, run, progress, cancel)
        seen["after"] = run.whole_waiting["md"]

    monkeypatch.setattr(embedding, "_opening_pass", opening)
    monkeypatch.setattr(embedding, "_depth_pass", depth)
    for topic in TOPICS[:4]:
        write(docs / f"{topic}.md", f"# {topic}\n\n" + f"The {topic} handbook explains each step in detail. " * 150)
    engine.add_source(docs)
    engine.index(embed=False)
    engine.embed()
    # no document is whole yet: each one's three opening windows (200 characters or more here)
    assert seen["depth"] < seen["opening"] - 4 * 3 * 150, seen
    assert seen["after"] == pytest.approx(0.0, abs=1.0), seen  # and nothing counted twice


def test_a_run_that_goes_on_says_how_many_are_whole_in_all(engine, docs, monkeypatch):
    """A stopped run said "4,116 embedded whole" where status said 7,012: the one counted this
    run's, the other every whole document. A run now says both."""
    from findling.faces.presentation import embedded_words
    from findling.ingest import embedding

    write(docs / "note.txt", "A one-line note about the parking permit.")
    write(docs / "memo.txt", "A short memo about the coffee machine on the second floor.")
    for topic in TOPICS[:3]:
        write(docs / f"{topic}.md", _page(topic))
    engine.add_source(docs)
    engine.index(embed=False)
    real_depth = embedding._depth_pass
    monkeypatch.setattr(embedding, "_depth_pass", lambda *args: None)  # as if stopped before it
    first = engine.embed()
    assert (first.deepened, first.whole) == (0, 2)  # the two short ones were whole with their first window
    monkeypatch.setattr(embedding, "_depth_pass", real_depth)
    second = engine.embed()
    assert (second.deepened, second.whole) == (3, 5)
    assert "3 embedded whole, 5 in all (" in embedded_words(second)
    assert "in all" not in embedded_words(first)  # nothing went deep: no "0 embedded whole"


def test_a_warm_process_embeds_prose_from_its_copy_of_the_text(tmp_path, settings, embedder_installed, monkeypatch):
    """After the first pass a window reads prose from its copy of the text (store/text_cache.py),
    not by scanning the chunks' text column into DuckDB's cache (150 MB on the kernel's
    Documentation/ + arch/, kept by the window); the vectors are the same windows either way."""
    from findling.ingest import embedding
    from findling.store.vectors import vector_tables

    settings.index.chunk_tokens = 64
    files = {f"{topic}.md": _page(topic) for topic in TOPICS[:4]}
    files["tool.py"] = "\n\n".join(
        f'def step_{i}(x):\n    """Step {i} of the tool, explained."""\n    return x + {i}\n' for i in range(60)
    )
    from findling.ingest import embedding_windows

    asked: dict[str, list[int]] = {}
    real = embedding_windows.read_documents

    def vectors_of(home, warm: bool) -> list[tuple]:
        for name, text in files.items():
            write(tmp_path / "docs" / name, text)
        calls = asked.setdefault(home, [])

        def recorded(cur, ids):
            calls.extend(ids)
            return real(cur, ids)

        monkeypatch.setattr(embedding, "read_documents", recorded)  # the first pass's reads
        monkeypatch.setattr(embedding_windows, "read_documents", recorded)  # the later passes'
        with Engine(tmp_path / home, settings=settings) as engine:
            engine.add_source(tmp_path / "docs")
            engine.index(embed=False)
            if warm:
                engine.warm()
            engine.embed()
            cur = engine._db.cursor()
            (table,) = vector_tables(cur)
            ids = dict(cur.execute("SELECT id, path FROM documents").fetchall())
            rows = cur.execute(f"SELECT doc_id, ordinal, start_char, end_char, hash FROM {table}").fetchall()
        monkeypatch.setattr(embedding, "read_documents", real)
        monkeypatch.setattr(embedding_windows, "read_documents", real)
        asked[home] = [ids[d].rsplit("/", 1)[-1] for d in calls]
        return sorted((ids[d].rsplit("/", 1)[-1], *rest) for d, *rest in rows)

    cold = vectors_of("cold", warm=False)
    warm = vectors_of("warm", warm=True)
    assert cold == warm and len(cold) > 40
    for page in (name for name in files if name.endswith(".md")):
        assert asked["cold"].count(page) >= 2  # its first window, then its opening and the rest
        assert asked["warm"].count(page) == 1  # its first window only: the rest from the copy
    assert asked["warm"].count("tool.py") >= 2  # code is named by its definitions: the database
