"""Each folder's self-test result (search/lane_balance.py), kept with the index: the meaning lane's
share of the hybrid model's weight, overall and by kind of query, for the embedder that made
the vectors it was read from, and what it was read from (for `status` and staleness)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import duckdb

from findling.records import LaneWeights
from findling.store.documents import Chunk, document_text
from findling.store.sql import id_list
from findling.vocabulary import QUERY_KINDS


@dataclass(frozen=True)
class SelfTestRecord:
    source_id: int
    model: str  # the embedder whose vectors it was read from (its vector key)
    documents: int  # the folder's embedded documents then
    weights: LaneWeights
    mrr_shipped: float  # the self-test queries' MRR@10 under the shipped share ...
    mrr_chosen: float  # ... and under the chosen one
    seconds: float  # what it took
    made: float  # when (epoch seconds)


def save_self_test(tx: duckdb.DuckDBPyConnection, record: SelfTestRecord) -> None:
    tx.execute("DELETE FROM lane_weights WHERE source_id = ?", [record.source_id])
    w = record.weights
    tx.execute(
        "INSERT INTO lane_weights VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            record.source_id,
            record.model,
            record.documents,
            w.queries,
            w.meaning,
            json.dumps([[kind, share, n] for kind, share, n in w.by_kind]),
            record.mrr_shipped,
            record.mrr_chosen,
            record.seconds,
            record.made,
        ],
    )


def _weights(queries: int, meaning: float, by_kind: str) -> LaneWeights:
    """A row's weights; a kind this version does not know (or a damaged list) is left out."""
    kinds = []
    try:
        for kind, share, n in json.loads(by_kind)[: len(QUERY_KINDS)]:
            if kind in QUERY_KINDS and 0.0 <= float(share) <= 1.0:
                kinds.append((kind, float(share), int(n)))
    except (ValueError, TypeError):
        kinds = []
    share = float(meaning) if 0.0 <= float(meaning) <= 1.0 else 0.5
    return LaneWeights(share, int(queries), tuple(kinds))


def self_tests(cur: duckdb.DuckDBPyConnection) -> list[SelfTestRecord]:
    rows = cur.execute(
        "SELECT source_id, model, documents, queries, meaning, by_kind, mrr_shipped, mrr_chosen, seconds, made "
        "FROM lane_weights ORDER BY source_id"
    ).fetchall()
    return [
        SelfTestRecord(int(s), str(m), int(d), _weights(q, share, k), float(a), float(b), float(t), float(at))
        for s, m, d, q, share, k, a, b, t, at in rows
    ]


def weights_of(
    cur: duckdb.DuckDBPyConnection, doc_ids: Sequence[int], model: str
) -> dict[int, tuple[str, LaneWeights]]:
    """The documents among `doc_ids` whose folder has a self-test read with `model`'s vectors:
    their folder's path and weights. One query, a few rows: every hybrid search asks it."""
    if not doc_ids:
        return {}
    rows = cur.execute(
        f"""SELECT d.id, s.path, w.queries, w.meaning, w.by_kind FROM documents d
            JOIN lane_weights w ON w.source_id = d.source_id AND w.model = ?
            JOIN sources s ON s.id = d.source_id
            WHERE d.id IN {id_list(doc_ids)}""",
        [model],
    ).fetchall()
    return {int(d): (str(path), _weights(q, share, k)) for d, path, q, share, k in rows}


def self_test_sample(
    cur: duckdb.DuckDBPyConnection, source_id: int, table: str, limit: int
) -> tuple[int, list[tuple[int, str, str]]]:
    """(the folder's embedded documents, `limit` of them as (id, path, extension)), chosen by a
    hash of their paths: the same folder gives the same sample, and a grown one mostly keeps it."""
    embedded = f"""FROM documents d WHERE d.source_id = ? AND d.status = 'ok'
                   AND EXISTS (SELECT 1 FROM {table} v WHERE v.doc_id = d.id)"""
    count = cur.execute(f"SELECT count(*) {embedded}", [source_id]).fetchall()[0][0]
    rows = cur.execute(
        f"SELECT d.id, d.path, coalesce(d.ext, '') {embedded} ORDER BY md5(d.path), d.id LIMIT ?", [source_id, limit]
    ).fetchall()
    return int(count), [(int(i), str(p), str(e)) for i, p, e in rows]


def opening_texts(cur: duckdb.DuckDBPyConnection, doc_ids: Sequence[int], chunks: int) -> dict[int, str]:
    """Each document's text as far as its first `chunks` chunks: a giant one is not read whole."""
    if not doc_ids:
        return {}
    rows = cur.execute(
        f"""SELECT doc_id, start_char, end_char, text FROM chunks
            WHERE doc_id IN {id_list(doc_ids)} AND ordinal < ? ORDER BY doc_id, ordinal""",
        [chunks],
    ).fetchall()
    found: dict[int, list[Chunk]] = {}
    for doc_id, start, end, text in rows:
        found.setdefault(doc_id, []).append((start, end, text))
    return {doc_id: document_text(parts) for doc_id, parts in found.items()}


def self_test_json(record: SelfTestRecord) -> str:
    """A self-test as a published collection carries it (ingest/sharing.py): a reader with the
    same embedder takes it instead of testing the same documents again."""
    w = record.weights
    return json.dumps(
        {
            "documents": record.documents,
            "queries": w.queries,
            "meaning": w.meaning,
            "by_kind": [[kind, share, n] for kind, share, n in w.by_kind],
            "mrr_shipped": record.mrr_shipped,
            "mrr_chosen": record.mrr_chosen,
            "seconds": record.seconds,
            "made": record.made,
        }
    )


def self_test_from_json(source_id: int, model: str, text: str) -> SelfTestRecord | None:
    """A published self-test for this source, checked as a stored row is; None when there is
    none or it is not one (a damaged or hostile collection's)."""
    if not text or len(text) > 10_000:
        return None
    try:
        d = json.loads(text)
        return SelfTestRecord(
            source_id,
            model,
            max(0, int(d["documents"])),
            _weights(max(0, int(d["queries"])), float(d["meaning"]), json.dumps(d["by_kind"])),
            float(d["mrr_shipped"]),
            float(d["mrr_chosen"]),
            max(0.0, float(d["seconds"])),
            float(d["made"]),
        )
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
