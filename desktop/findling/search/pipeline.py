"""The hybrid query pipeline (docs/pipeline.md): strong-signal check →
expansion → BM25 and vector lanes in parallel → weighted RRF → rerank → position-aware
blending → normalized scores, every stage timed and recorded for the explain panel."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Literal

import numpy as np

from findling.errors import FindlingError
from findling.models.expander import Expansion, expand, parse_expansion
from findling.models.judge import LlmJudge
from findling.models.remote import ModelServerError
from findling.models.service import ModelService
from findling.records import (
    Evidence,
    ExpansionExplain,
    Lane,
    ListScore,
    MatchMode,
    Note,
    QueryExplain,
    ResultExplain,
    Stage,
    StageName,
    Weighting,
)
from findling.search.blend import blend
from findling.search.fusion import Fused, RankedList, weighted_rrf
from findling.search.keyword.hits import Bm25Result, LaneHit
from findling.search.keyword.lane import Bm25Lane
from findling.search.lane_balance import query_kind
from findling.search.normalize import minmax, sigmoid
from findling.search.query_parser import ParsedQuery, parse_query
from findling.search.relevance import as_shown, lane_agreement, relative, relevance, with_meaning_assumed
from findling.search.results import RankedEntry
from findling.search.vector_lane import VectorLane, VectorLaneHit, VectorResult
from findling.settings import PipelineSettings
from findling.store.db import Database
from findling.store.documents import link_shares
from findling.store.expansions import cached_expansion, save_expansion
from findling.store.lane_weights import weights_of
from findling.store.text_cache import DocumentCache
from findling.tuning import HUB_FROM
from findling.vocabulary import QueryKind

NewerFirst = Callable[[list[Fused], dict[int, float]], list[Fused]]


@dataclass(frozen=True)
class PipelineResult:
    entries: tuple[RankedEntry, ...]
    explain: QueryExplain
    terms: tuple[str, ...]
    notes: tuple[Note, ...] = ()
    lanes: tuple[Lane, ...] = ()  # the lanes that ran
    matched: int = 0  # documents holding the query's words (as the keyword lane matched them)
    terms_apart: Mapping[str, frozenset[str]] = field(default_factory=dict)  # as SearchResult's


@dataclass
class _Lists:
    lists: list[RankedList] = field(default_factory=list)
    scores: dict[str, dict[int, tuple[float, float]]] = field(default_factory=dict)  # list -> doc -> (raw, norm)
    spans: dict[int, tuple[int, int]] = field(default_factory=dict)  # best vector span per doc
    terms: tuple[str, ...] = ()
    terms_apart: Mapping[str, frozenset[str]] = field(default_factory=dict)
    keyword: dict[int, LaneHit] = field(default_factory=dict)  # the original query's BM25 hits
    keyword_result: Bm25Result | None = None  # ... and the search that found them (its plan)
    semantic: dict[int, VectorLaneHit] = field(default_factory=dict)  # ... and vector hits
    query_vector: np.ndarray | None = None


class Pipeline:
    def __init__(
        self,
        db: Database,
        bm25: Bm25Lane,
        vectors: VectorLane,
        models: ModelService,
        settings: PipelineSettings,
        documents: DocumentCache,
        newer_first: NewerFirst,
    ) -> None:
        """`newer_first(ranked, score_of)`: the engine's one ordering of every list, best first
        with a nudge for newer files."""
        self._db = db
        self.documents = documents
        self._newer_first = newer_first
        self._cursor = db.cursor
        self.bm25 = bm25
        self.vectors = vectors
        self.models = models
        self.settings = settings
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="findling-lane")

    # -- stages -------------------------------------------------------------------------

    def _strong_signal(self, parsed: ParsedQuery) -> tuple[bool, dict[str, Any]]:
        s = self.settings
        lane = self.bm25.search(parsed, s.strong_k, "any")
        norm = minmax([h.score for h in lane.hits])
        top = norm[0] if norm else 0.0
        second = norm[1] if len(norm) > 1 else 0.0
        strong = bool(norm) and top >= s.strong_top and top - second >= s.strong_gap and len(norm) > 1
        return strong, {"top": round(top, 4), "second": round(second, 4), "hits": len(norm)}

    def _expansion(self, query: str) -> tuple[Expansion | None, str | Note, bool]:
        """(expansion, reason if none, cached)."""
        reason = self.models.unavailable_reason("generator")
        if reason:
            return None, reason, False
        spec = self.models.spec("generator")
        raw = cached_expansion(self._cursor(), query, spec.name)
        s = self.settings
        if raw is not None:
            return parse_expansion(raw, query, s.lexical_variants, s.semantic_variants), "", True
        try:
            generator = self.models.generator()
            multilingual = not query.isascii()
            result = expand(generator, query, s.lexical_variants, s.semantic_variants, multilingual)
        except FindlingError as exc:  # a model server that does not answer: the search goes on without
            return None, str(exc), False
        if not self._db.read_only:  # a read-only index still answers, just without the cache
            with self._db.transaction() as tx:
                save_expansion(tx, query, spec.name, result.raw)
        return result, "", False

    def _keyword_jobs(
        self, parsed: ParsedQuery, expansion: Expansion | None, limit: int, match: MatchMode
    ) -> list[tuple[str, float, Callable[[], Bm25Result]]]:
        """The BM25 lists to run: the query's (twice as deep, matched as `match` says), then
        each lexical variant's (any of its words)."""
        s = self.settings
        jobs: list[tuple[str, float, Callable[[], Bm25Result]]] = [
            ("bm25 original", s.weight_original, lambda: self.bm25.search(parsed, limit * 2, match))
        ]
        for i, variant in enumerate(expansion.lexical if expansion else (), 1):
            vp = parse_query(variant).with_filters(parsed.filters)
            jobs.append((f"bm25 lex {i}", s.weight_variant, partial(self.bm25.search, vp, limit, "any")))
        return jobs

    def _vector_jobs(
        self, parsed: ParsedQuery, expansion: Expansion | None, limit: int
    ) -> list[tuple[str, float, Callable[[], VectorResult]]]:
        """The vector lists to run: the query's (twice as deep), each semantic variant's, the HyDE passage's."""
        s = self.settings
        embedder = self.models.embedder()
        texts = [("vector original", s.weight_original, parsed.text, limit * 2)]
        for i, variant in enumerate(expansion.semantic if expansion else (), 1):
            texts.append((f"vector sem {i}", s.weight_variant, variant, limit))
        if expansion and expansion.hyde and s.hyde:
            texts.append(("vector hyde", s.weight_hyde, expansion.hyde, limit))
        return [
            (name, weight, partial(self.vectors.search, embedder, text, n, parsed.filters))
            for name, weight, text, n in texts
        ]

    def _lanes(
        self, parsed: ParsedQuery, expansion: Expansion | None, limit: int, lanes: tuple[str, ...], match: MatchMode
    ) -> _Lists:
        """Every list of every lane, run side by side."""
        bm25_jobs = self._keyword_jobs(parsed, expansion, limit, match) if "bm25" in lanes else []
        vector_jobs = self._vector_jobs(parsed, expansion, limit) if "vector" in lanes else []
        bm25_futures = [(name, weight, self._pool.submit(fn)) for name, weight, fn in bm25_jobs]
        vector_futures = [(name, weight, self._pool.submit(fn)) for name, weight, fn in vector_jobs]
        out = _Lists()
        terms: list[str] = []
        for name, weight, bm25_future in bm25_futures:
            bm25_result = bm25_future.result()
            hits = bm25_result.hits
            if name == "bm25 original":
                out.keyword = {h.doc_id: h for h in hits}
                out.keyword_result = bm25_result
            norm = minmax([h.score for h in hits])
            out.scores[name] = {h.doc_id: (h.score, n) for h, n in zip(hits, norm)}
            out.lists.append(
                RankedList(name, "bm25", weight, tuple(h.doc_id for h in hits), tuple(h.score for h in hits))
            )
            if name == "bm25 original":
                terms.extend(bm25_result.terms)
                out.terms_apart = bm25_result.plan.apart if bm25_result.plan is not None else {}
        for name, weight, vector_future in vector_futures:
            vector_result = vector_future.result()
            vhits = vector_result.hits
            if name == "vector original":
                out.semantic = {h.doc_id: h for h in vhits}
                out.query_vector = vector_result.query_vector
            out.scores[name] = {h.doc_id: (h.cosine, h.score) for h in vhits}
            out.lists.append(
                RankedList(name, "vector", weight, tuple(h.doc_id for h in vhits), tuple(h.cosine for h in vhits))
            )
            for h in vhits:
                out.spans.setdefault(h.doc_id, (h.start_char, h.end_char))
        out.terms = tuple(dict.fromkeys(terms))
        return out

    def _evidence(
        self, parsed: ParsedQuery, lists: _Lists, doc_ids: list[int], lanes: tuple[str, ...], use_vectors: bool
    ) -> dict[int, Evidence]:
        """Every candidate's evidence from both lanes, also for the lane that did not rank
        it (its BM25 match or best chunk looked up directly): a document is judged by what
        it holds, not by whether it made a lane's top list."""
        keyword: dict[int, LaneHit] = dict(lists.keyword)
        semantic: dict[int, VectorLaneHit] = dict(lists.semantic)
        plan = lists.keyword_result.plan if lists.keyword_result is not None else None
        if "bm25" in lanes:
            keyword.update(self.bm25.evidence(parsed, [d for d in doc_ids if d not in keyword], plan))
        if use_vectors and lists.query_vector is not None:
            model = self.models.spec("embedder").vector_key
            semantic.update(self.vectors.evidence(model, lists.query_vector, [d for d in doc_ids if d not in semantic]))
        # When no document holds any query word, keyword evidence tells nothing about any
        # one of them: they are judged by meaning alone, as semantic search judges them.
        keywords_told = "bm25" in lanes and bool(lists.keyword)
        # The keyword lane's score carries the prior against pages of links already; a page
        # found by meaning does not, and with vectors off the list is keyword search's own
        linked = link_shares(self._cursor(), doc_ids) if use_vectors else {}
        ratios = self.bm25.giants() if use_vectors else {}
        # a page of links the query names ("python module index") is what it asks for
        priored = {d for d, share in linked.items() if share > HUB_FROM} | {d for d in doc_ids if d in ratios}
        named = self.bm25.named(parsed, sorted(priored), plan)
        found = []
        for doc_id in doc_ids:
            hit = keyword.get(doc_id)
            vector = semantic.get(doc_id)
            found.append(
                Evidence(
                    coverage=(hit.coverage if hit else 0.0) if keywords_told else None,
                    saturation=(hit.saturation if hit else 0.0) if keywords_told else None,
                    cosine=vector.cosine if vector is not None else None,
                    link_share=linked.get(doc_id),
                    named=named.get(doc_id),
                    length_ratio=ratios.get(doc_id),
                )
            )
        return dict(zip(doc_ids, relative(with_meaning_assumed(found) if use_vectors else found)))

    def _reranker(self, mode: str) -> tuple[Callable[[str, list[str]], Sequence[float]] | None, str | Note]:
        """(callable scoring (query, passages) -> [0,1] scores, its name) or (None, reason)."""
        if mode == "off":
            return None, "reranking is off"
        if mode in ("auto", "cross-encoder"):
            remote = self.models.remote_reranker()
            if remote is not None:
                return remote.scores, remote.name
            reason = self.models.unavailable_reason("reranker")
            if reason is None:
                ce = self.models.reranker(self.settings.rerank_max_tokens)
                return lambda query, passages: np.atleast_1d(
                    sigmoid(ce.logits(query, passages))
                ).tolist(), f"cross-encoder {ce.spec.name}"
            return None, reason
        if mode == "llm":
            reason = self.models.unavailable_reason("generator")
            if reason is not None:
                return None, reason
            judge = LlmJudge(self.models.generator())
            return judge.scores, judge.name
        return None, f"unknown reranker '{mode}'"

    def _rerank_texts(
        self, doc_ids: list[int], spans: dict[int, tuple[int, int]], terms: tuple[str, ...]
    ) -> dict[int, list[str]]:
        """Each candidate's best passages, title first: the window the vector lane matched,
        the window around the query terms, the document's start — distinct ones, up to
        `rerank_chunks`, each about `rerank_chars` long (a cross-encoder's cost grows with
        every token, and its training passages were short)."""
        found = self.documents.documents(self._cursor(), doc_ids)
        by_doc = {doc_id: doc.chunks for doc_id, doc in found.items()}
        titles = {doc_id: doc.meta.title for doc_id, doc in found.items()}
        width = self.settings.rerank_chars
        out: dict[int, list[str]] = {}
        for doc_id in doc_ids:
            chunks = by_doc.get(doc_id, [])
            title = titles.get(doc_id, "")
            windows: list[tuple[int, str]] = []
            span = spans.get(doc_id)
            if span is not None:
                for start, end, text in chunks:
                    if start <= span[0] < end:
                        lo = span[0] - start
                        windows.append((span[0], text[lo : lo + width]))
                        break
            wanted = max(1, self.settings.rerank_chunks)
            if terms and chunks and len(windows) < wanted:  # reading every chunk costs: only when needed
                best = max(chunks, key=lambda c: sum(c[2].lower().count(t) for t in terms))
                lowered = best[2].lower()
                hits = [lowered.find(t) for t in terms if t in lowered]
                lo = max(0, min(hits) - width // 4) if hits else 0
                windows.append((best[0] + lo, best[2][lo : lo + width]))
            if chunks:
                windows.append((0, chunks[0][2][:width]))
            passages: list[str] = []
            seen: set[int] = set()
            length = chunks[-1][1] if chunks else 0
            # a document that two passages would nearly cover gets one: more would re-read it
            allowed = self.settings.rerank_chunks if length > 2 * width else 1
            for position, text in windows:
                if any(abs(position - p) < width // 2 for p in seen):
                    continue  # overlaps a passage already chosen
                seen.add(position)
                passages.append(f"{title}\n{text}" if title else text)
                if len(passages) >= max(1, allowed):
                    break
            out[doc_id] = passages or [title]
        return out

    # -- the whole query ----------------------------------------------------------------

    def run(
        self,
        query: str,
        parsed: ParsedQuery,
        limit: int = 10,
        lanes: tuple[Lane, ...] = ("bm25", "vector"),
        expand_query: bool | None = None,
        rerank: str | None = None,
        min_score: float = 0.0,
        match: MatchMode = "most",
    ) -> PipelineResult:
        """Rank for the query over `lanes`, each of which can run (the engine has checked).
        `match` is keyword search's: the keyword lane matches so when it ranks alone, and
        any of the words beside the vector lane (whose candidates it judges by coverage)."""
        s = self.settings
        stages = StageLog()
        use_vectors = "vector" in lanes
        expansion, cached = self._expand_stage(parsed, s.expand if expand_query is None else expand_query, stages)
        with stages.timed("lanes") as stage:
            lists = self._lanes(parsed, expansion, max(limit, s.rerank_top), lanes, "any" if use_vectors else match)
            stage.detail = {lst.name: len(lst.doc_ids) for lst in lists.lists}
        with stages.timed("fusion") as stage:
            fused, evidence, relevance_of, weighting = self._fuse(parsed, lists, lanes, use_vectors)
            stage.reason, stage.detail = s.fusion, {"candidates": len(fused)}
            both = [e for e in evidence.values() if e.agreement is not None]
            if both:  # how far meaning weighed more (relevance.HYBRID), for the query as a whole
                agreement = lane_agreement([e.saturation or 0.0 for e in both], [e.cosine or 0.0 for e in both])
                stage.detail["lanes agree"] = f"{agreement:.0%}"
        reranked = self._rerank_stage(
            parsed, fused, lists, relevance_of, s.reranker if rerank is None else rerank, stages
        )
        results = self._explained(reranked, fused, lists, evidence, relevance_of, min_score, limit)
        explain = QueryExplain(
            query=query,
            mode="+".join(lanes) + ("+expand" if expansion else "") + ("+rerank" if reranked.scored else ""),
            stages=stages.stages,
            expansion=None
            if expansion is None
            else ExpansionExplain(
                lexical=tuple(expansion.lexical),
                semantic=tuple(expansion.semantic),
                hyde=expansion.hyde,
                cached=cached,
                raw=expansion.raw,
            ),
            candidates=len(fused),
            results=tuple(results),
            timings_ms=stages.timings(),
            weighting=weighting,
        )
        entries = tuple(RankedEntry(r.doc_id, r.fused, r.final, lists.spans.get(r.doc_id)) for r in results)
        matched = lists.keyword_result.total if lists.keyword_result is not None else 0
        return PipelineResult(
            entries, explain, lists.terms, lanes=lanes, matched=matched, terms_apart=lists.terms_apart
        )

    def _expand_stage(self, parsed: ParsedQuery, wanted: bool, stages: StageLog) -> tuple[Expansion | None, bool]:
        """Strong-signal check, then expansion unless the keywords already answer: (expansion, cached)."""
        if not wanted or not parsed.has_terms:
            why = "expansion off" if not wanted else "no terms"
            stages.skipped("strong_signal", why)
            stages.skipped("expansion", why)
            return None, False
        with stages.timed("strong_signal") as stage:
            strong, stage.detail = self._strong_signal(parsed)
        if strong:
            stages.skipped("expansion", "skipped_strong")
            return None, False
        with stages.timed("expansion") as stage:
            expansion, reason, cached = self._expansion(parsed.text)
            if expansion is None:
                stage.status, stage.reason = "skipped", reason
            else:
                stage.reason = "cached" if cached else ""
                stage.detail = {
                    "lexical": len(expansion.lexical),
                    "semantic": len(expansion.semantic),
                    "hyde": bool(expansion.hyde),
                }
        return expansion, cached

    def _fuse(
        self, parsed: ParsedQuery, lists: _Lists, lanes: tuple[Lane, ...], use_vectors: bool, weigh: bool = True
    ) -> tuple[list[Fused], dict[int, Evidence], dict[int, float], Weighting | None]:
        """Weighted RRF of every list, kept to the documents that obey the query's hard constraints,
        then (fusion "evidence") ordered by each candidate's absolute relevance, the lanes
        weighed as each candidate's folder's self-test says (with `weigh`); with each
        candidate's evidence and relevance, and the weighting of the best one's folder."""
        s = self.settings
        fused = weighted_rrf(lists.lists, s.rrf_k, s.bonus_first, s.bonus_top3)
        # Quoted phrases and exclusions are hard constraints in every mode: the vector lane and
        # the expansion's variants find documents without them.
        allowed = self.bm25.satisfying(parsed, [f.doc_id for f in fused])
        fused = [f for f in fused if f.doc_id in allowed]
        evidence = self._evidence(parsed, lists, [f.doc_id for f in fused], lanes, use_vectors)
        kind = query_kind(parsed.text)
        weighed = weigh and s.self_test and use_vectors and "bm25" in lanes
        folders = self._weights(list(evidence), kind) if weighed else {}
        for doc_id, (_, share, _) in folders.items():
            evidence[doc_id] = replace(evidence[doc_id], meaning_share=share)
        relevance_of = {doc_id: as_shown(relevance(ev)) for doc_id, ev in evidence.items()}
        if s.fusion == "evidence":
            fused.sort(key=lambda f: -relevance_of[f.doc_id])  # stable: equal scores keep the RRF order
        said = folders.get(fused[0].doc_id) if fused else None
        weighting = Weighting(said[0], kind, said[1], said[2]) if said else None
        return fused, evidence, relevance_of, weighting

    def _weights(self, doc_ids: list[int], kind: QueryKind) -> dict[int, tuple[str, float, int]]:
        """Each candidate whose folder has a self-test: (the folder, the meaning share for this
        kind of query, the self-test queries it was read from)."""
        found = weights_of(self._cursor(), doc_ids, self.models.spec("embedder").vector_key)
        return {doc_id: (folder, *weights.for_kind(kind)) for doc_id, (folder, weights) in found.items()}

    def candidates(self, parsed: ParsedQuery, limit: int) -> list[tuple[int, Evidence]]:
        """A query's candidates from both lanes with their evidence, best by rank fusion first,
        as hybrid search gathers them before any folder's weights (a folder's self-test, which
        weighs them itself: search/self_test.py)."""
        lanes: tuple[Lane, ...] = ("bm25", "vector")
        lists = self._lanes(parsed, None, limit, lanes, "any")
        fused, evidence, _, _ = self._fuse(parsed, lists, lanes, True, weigh=False)
        return [(f.doc_id, evidence[f.doc_id]) for f in sorted(fused, key=lambda f: -f.score)]

    def _rerank_stage(
        self,
        parsed: ParsedQuery,
        fused: list[Fused],
        lists: _Lists,
        relevance_of: dict[int, float],
        mode: str,
        stages: StageLog,
    ) -> _Reranked:
        """The head of the fused list scored by the reranker and blended with its relevance (both
        absolute, so the blend is too); then every list ordered by its final scores."""
        s = self.settings
        head = fused[: s.rerank_top]
        scorer, how = self._reranker(mode) if head and mode != "off" else (None, "reranking is off")
        out = _Reranked(list(fused), dict(relevance_of))
        if scorer is None:
            stages.skipped("rerank", how)
            stages.skipped("blend", "no rerank scores")
            return self._ordered(out)
        with stages.timed("rerank") as stage:
            texts = self._rerank_texts([f.doc_id for f in head], lists.spans, lists.terms)
            flat = [(doc, text) for doc in texts for text in texts[doc]]
            try:
                values = scorer(parsed.text, [t for _, t in flat]) if flat else []
            except ModelServerError as exc:  # a server that does not answer: the list stands as fused
                stage.status, stage.reason = "skipped", str(exc)
                values = None
            else:
                stage.reason, stage.detail = how, {"candidates": len(head), "passages": len(flat)}
        if values is None:
            stages.skipped("blend", "no rerank scores")
            return self._ordered(out)
        out.scored = True
        for (doc, _), value in zip(flat, values):
            out.rerank[doc] = max(out.rerank.get(doc, 0.0), float(value))
        with stages.timed("blend"):
            blended = blend([relevance_of[f.doc_id] for f in head], [out.rerank.get(f.doc_id, 0.0) for f in head])
            for b in blended:
                out.blended[head[b.index].doc_id] = (b.score, b.fusion_weight)
                out.final[head[b.index].doc_id] = b.score
            out.ranked = [head[b.index] for b in blended] + fused[s.rerank_top :]
        return self._ordered(out)

    def _ordered(self, out: _Reranked) -> _Reranked:
        if self.settings.fusion == "evidence":
            out.ranked = self._newer_first(out.ranked, out.final)
        return out

    def _explained(
        self,
        reranked: _Reranked,
        fused: list[Fused],
        lists: _Lists,
        evidence: dict[int, Evidence],
        relevance_of: dict[int, float],
        min_score: float,
        limit: int,
    ) -> list[ResultExplain]:
        """The first `limit` results at or above `min_score`, each with every score it was given."""
        fused_rank = {f.doc_id: i + 1 for i, f in enumerate(fused)}
        results: list[ResultExplain] = []
        for f in reranked.ranked:
            final = reranked.final[f.doc_id]
            if final < min_score:
                continue
            span = lists.spans.get(f.doc_id)
            blended = reranked.blended.get(f.doc_id)
            results.append(
                ResultExplain(
                    doc_id=f.doc_id,
                    lists=tuple(
                        ListScore(c.list_name, c.lane, c.rank, *lists.scores[c.list_name][f.doc_id], c.weight, c.rrf)
                        for c in f.contributions
                    ),
                    rrf=f.rrf,
                    bonus=f.bonus,
                    fused=f.score,
                    fused_rank=fused_rank[f.doc_id],
                    rerank=reranked.rerank.get(f.doc_id) if reranked.scored else None,
                    fusion_weight=blended[1] if blended else None,
                    blended=blended[0] if blended else None,
                    final=final,
                    chunk_start=span[0] if span else None,
                    chunk_end=span[1] if span else None,
                    evidence=evidence[f.doc_id],
                    relevance=relevance_of[f.doc_id],
                )
            )
            if len(results) >= limit:
                break
        return results

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


@dataclass
class _Reranked:
    ranked: list[Fused]
    final: dict[int, float]  # each candidate's final score: blended when reranked, else its relevance
    scored: bool = False  # a reranker ran
    rerank: dict[int, float] = field(default_factory=dict)
    blended: dict[int, tuple[float, float]] = field(default_factory=dict)  # doc -> (blended, fusion weight)


@dataclass
class _OpenStage:
    status: Literal["ran", "skipped"] = "ran"
    reason: str | Note = ""  # a Note when what would let it run is known (its model)
    detail: dict[str, Any] = field(default_factory=dict)


def _stage(
    name: StageName,
    status: Literal["ran", "skipped"],
    reason: str | Note,
    ms: float = 0.0,
    detail: dict[str, Any] | None = None,
) -> Stage:
    if isinstance(reason, Note):
        return Stage(name, status, reason.text, ms, detail or {}, reason.remedy, reason.subject)
    return Stage(name, status, reason, ms, detail or {})


class StageLog:
    """The explain record's stages, each timed as it runs: `with stages.timed("fusion") as stage:`."""

    def __init__(self) -> None:
        self._stages: list[Stage] = []
        self._started = time.perf_counter()

    @contextmanager
    def timed(self, name: StageName) -> Iterator[_OpenStage]:
        stage = _OpenStage()
        started = time.perf_counter()
        yield stage
        ms = (time.perf_counter() - started) * 1000.0
        self._stages.append(_stage(name, stage.status, stage.reason, ms, stage.detail))

    def skipped(self, name: StageName, reason: str | Note) -> None:
        self._stages.append(_stage(name, "skipped", reason))

    @property
    def stages(self) -> tuple[Stage, ...]:
        return tuple(self._stages)

    def timings(self) -> dict[str, float]:
        """Milliseconds by stage (those that were timed) and in all."""
        out: dict[str, float] = {s.name: round(s.ms, 2) for s in self._stages if s.ms}
        out["total"] = round((time.perf_counter() - self._started) * 1000.0, 2)
        return out
