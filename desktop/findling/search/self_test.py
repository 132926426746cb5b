"""A folder's self-test, run: its sampled documents question themselves through both lanes,
each query kept to the folder (another folder's documents change nothing of it), and the lane
weights their answers hold (search/lane_balance.py) are what hybrid search weighs that
folder's documents by. Run by the engine after embedding, at background priority, when the
folder has none or a stale one (store/lane_weights.py keeps it)."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from findling.records import Filters, Source
from findling.search.lane_balance import SHIPPED, SelfTestCase, lane_weights, mrr
from findling.search.pipeline import Pipeline
from findling.search.query_parser import parse_query
from findling.search.self_queries import SelfTestDocument, self_queries
from findling.store.lane_weights import SelfTestRecord
from findling.tuning import SELF_TEST_CANDIDATES


def self_test(
    pipeline: Pipeline,
    source: Source,
    documents: Sequence[SelfTestDocument],
    embedded: int,
    model: str,
    cancel: threading.Event | None = None,
) -> SelfTestRecord | None:
    """The folder's self-test record from its sampled `documents` (None: cancelled)."""
    started = time.perf_counter()
    only_here = Filters(folders=(source.path,))
    cases = []
    for query in self_queries(documents):
        if cancel is not None and cancel.is_set():
            return None
        found = pipeline.candidates(parse_query(query.text).with_filters(only_here), SELF_TEST_CANDIDATES)
        ids = [doc_id for doc_id, _ in found]
        source_at = ids.index(query.doc_id) if query.doc_id in ids else None
        cases.append(SelfTestCase(query.kind, tuple(e for _, e in found), source_at))
    weights = lane_weights(cases)
    return SelfTestRecord(
        source_id=source.id,
        model=model,
        documents=embedded,
        weights=weights,
        mrr_shipped=mrr(cases, SHIPPED),
        mrr_chosen=mrr(cases, weights.meaning),
        seconds=time.perf_counter() - started,
        made=time.time(),
    )
