"""The BM25 lane: document-level Okapi BM25 computed in SQL over the query terms'
postings only (never a scan of every document), with required terms, exclusions,
phrases and filters.

    score(d) = Σ_t idf(t) · tf(t,d)·(k1+1) / (tf(t,d) + k1·(1 − b + b·|d|/avgdl))
    idf(t)   = log10(1 + (N − df(t) + 0.5) / (df(t) + 0.5))

the formula of DuckDB's fts `match_bm25` (whose log is base 10: a constant factor that
changes no ranking), so the two agree score for score on the same tokens."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import duckdb

from findling.records import Filters
from findling.search.filter_table import filter_sql
from findling.search.keyword import proximity
from findling.search.keyword.checks import browse, check_phrases, definitions_first
from findling.search.keyword.evidence import coverage_of, evidence_of, long_page_weight
from findling.search.keyword.hits import Bm25Result, LaneHit
from findling.search.keyword.phrases import constraint_sql
from findling.search.keyword.phrases import lookup as _lookup
from findling.search.keyword.phrases import near_in as _near_in
from findling.search.keyword.phrases import phrase_in as _phrase_in
from findling.search.keyword.plan import (
    CorpusStats,
    KeywordPlan,
    count_whole_words,
    dominant_term,
    required_groups,
    split_words,
)
from findling.search.keyword.sql import (
    coverage_sql,
    language_sql,
    long_page_sql,
    mask_case_sql,
    matched_sql,
    posting_bm25_sql,
    prior_sql,
)
from findling.search.keyword.words import (
    WordGroup,
    identifiers_by_parts,
    idf_of_group,
    languages_apart,
    top_groups,
    with_prefixes,
    word_groups,
)
from findling.search.query_parser import ParsedQuery
from findling.store.sql import id_list
from findling.text.analyzer import (
    DEFAULT_LANGUAGE,
    is_stopword,
    query_terms,
    stemmed_apart,
    terms_in,
)
from findling.tuning import GIANT_FROM, NEARNESS_POOL, NEARNESS_READ_WITH_POOL, NEARNESS_WEIGHT

MAX_GROUPS = 62  # one bit each in a BIGINT mask
_STATS_TTL = 2.0


def _and(conditions: Sequence[str]) -> str:
    """SQL conditions to append to a WHERE clause."""
    return "".join(f" AND {c}" for c in conditions)


_MAX_GIANTS = 500  # the longest documents the prior is written for; an index of more giants is a strange one


class Bm25Lane:
    def __init__(
        self,
        cursor: Callable[[], duckdb.DuckDBPyConnection],
        k1: float = 1.2,
        b: float = 0.75,
        max_terms: int = 16,
        title_boost: float = 2.0,
        synonyms: Callable[[], Mapping[str, tuple[str, ...]]] | None = None,
        prune: bool = True,
        passages: Callable[[list[int]], Mapping[int, tuple[str, Sequence[tuple[int, int, str]]]]] | None = None,
    ) -> None:
        self._cursor = cursor
        self._passages = passages  # documents' (language, chunks): match "most" orders its first results by nearness
        self.prune = prune  # the shapes _most_rows saves work with; off, the reference they equal
        self.k1 = k1
        self.b = b
        self.max_terms = max_terms
        self.title_boost = title_boost
        self._synonyms = synonyms or (lambda: {})
        self._stats: CorpusStats | None = None
        self._lock = threading.Lock()

    def invalidate(self) -> None:
        with self._lock:
            self._stats = None

    def giants(self) -> Mapping[int, float]:
        """The documents the prior against giant documents applies to, each with its length over
        the index's average: what keyword search and the pipeline's relevance take down."""
        return self._read_stats(self._cursor()).giants

    def _word_groups(
        self, parsed: ParsedQuery, cur: duckdb.DuckDBPyConnection | None = None, languages: list[str] | None = None
    ) -> list[WordGroup]:
        """word_groups in this index's languages, an identifier no document holds whole by its words."""
        cur = cur or self._cursor()
        languages = list(self._corpus_stats(cur)[2]) if languages is None else languages
        return identifiers_by_parts(cur, word_groups(parsed, languages, self._synonyms()), languages)

    def query_words(self, parsed: ParsedQuery, language: str | None = None) -> list[tuple[str, list[str]]]:
        """The query's words as the lane matches them, each with its analysed terms (`a OR b`
        is one entry): what a document lacks, said in the query's own words. With `language`,
        the terms a document of that language is matched by (analyzer.terms_in)."""
        words: dict[str, list[str]] = {}
        groups = self._word_groups(parsed)
        apart = languages_apart(groups)
        for group in groups:
            known = words.setdefault(group.label, [])
            terms = group.terms if language is None else terms_in(group.terms, apart, language)
            known.extend(t for t in terms if t not in known)
        return list(words.items())

    def _corpus_stats(self, cur: duckdb.DuckDBPyConnection) -> tuple[int, float, tuple[str, ...]]:
        stats = self._read_stats(cur)
        return stats.documents, stats.average_length, stats.languages

    def _read_stats(self, cur: duckdb.DuckDBPyConnection) -> CorpusStats:
        with self._lock:
            if self._stats is not None and time.monotonic() - self._stats.at < _STATS_TTL:
                return self._stats
        n, total_len = cur.execute(
            "SELECT count(*), coalesce(sum(length), 0) FROM documents WHERE status = 'ok'"
        ).fetchall()[0]
        counted = cur.execute(
            "SELECT language, count(*) FROM documents WHERE status = 'ok' GROUP BY language"
        ).fetchall()
        languages = tuple(sorted(language for language, _ in counted if language is not None))
        language_docs: dict[str, int] = {}
        for language, count in counted:
            language_docs[language or ""] = language_docs.get(language or "", 0) + int(count)
        avgdl = ((total_len / n) if n else 1.0) or 1.0
        # the few documents the prior against giants takes down, their factors written into the
        # ranking statement: no length to carry through the grouping of every posting row, and
        # nothing at all where the index holds none (the 100k-document bench)
        giants = {
            int(doc_id): length / avgdl
            for doc_id, length in cur.execute(
                "SELECT id, length FROM documents WHERE status = 'ok' AND length > ? ORDER BY length DESC LIMIT ?",
                [GIANT_FROM * avgdl, _MAX_GIANTS],
            ).fetchall()
        }
        stats = CorpusStats(time.monotonic(), int(n), avgdl, languages, giants, language_docs)
        with self._lock:
            self._stats = stats
        return stats

    def _plan(
        self, cur: duckdb.DuckDBPyConnection, parsed: ParsedQuery, languages: list[str], match: str, n_docs: int
    ) -> KeywordPlan:
        planned = self._word_groups(parsed, cur, languages)
        groups = [(list(g.terms), g.stop) for g in planned if not g.phrase]
        groups, known = with_prefixes(cur, groups)  # each prefix stands for the index terms it begins
        qtf: list[float] = [1.0] * len(groups)
        long = len(groups) > self.max_terms
        # the bigrams of a word of an unspaced script (北京大学) match together in every mode:
        # "most" lets a document lack a word, never half of one, where half of 北京 is 京都's
        compounds = [] if long else split_words(planned)
        if long:
            groups, qtf, known = top_groups(cur, groups, self.max_terms, n_docs)
        phrase_bits = 0
        for group in planned:
            if group.phrase:
                if len(groups) < MAX_GROUPS:
                    phrase_bits |= 1 << len(groups)
                groups.append((list(group.terms), False))
        phrases = tuple(phrase for phrase in parsed.phrases if _phrase_in(phrase, DEFAULT_LANGUAGE))
        nears = tuple((window, words) for window, words in parsed.near if len(_near_in(words, DEFAULT_LANGUAGE)) > 1)
        groups = groups[:MAX_GROUPS]
        all_stop = all(stop for _, stop in groups)
        excluded_terms = [t for w in parsed.excluded_words for t in query_terms(w, languages)]
        wanted = {t for terms, _ in groups for t in terms} | set(excluded_terms)
        ids = {t: known[t] for t in wanted if t in known}
        ids.update(_lookup(cur, {t for t in wanted if t not in known}))  # a word already looked up is not again
        apart = languages_apart(planned)
        excluded_apart = stemmed_apart(parsed.excluded_words, languages)
        language_docs = self._read_stats(cur).language_docs
        term_masks: dict[int, int] = {}
        every = 0  # the groups "every word" means: all but stopwords, unless the query is only those
        for bit, (terms, stop) in enumerate(groups):
            if (not stop or all_stop) and not long:
                every |= 1 << bit
            for term in terms:
                if term in ids:
                    term_id = ids[term][0]
                    term_masks[term_id] = term_masks.get(term_id, 0) | (1 << bit)
        required = required_groups(match, every, phrase_bits, count_whole_words(compounds, term_masks))
        qtf += [1.0] * (len(groups) - len(qtf))  # phrase groups
        group_idf = tuple(idf_of_group(terms, ids, n_docs) * weight for (terms, _), weight in zip(groups, qtf))
        term_idf: dict[int, float] = {}
        for (terms, _), weight in zip(groups, qtf):
            for t in terms:
                if t in ids:
                    term_idf[ids[t][0]] = max(term_idf.get(ids[t][0], 0.0), idf_of_group(terms, ids, n_docs) * weight)
        return KeywordPlan(
            term_masks=term_masks,
            dfs={term_id: df for term_id, df in ids.values()},
            required=required,
            excluded_ids=tuple(ids[t][0] for t in excluded_terms if t in ids),
            phrases=phrases,
            excluded_phrases=tuple(p for p in parsed.excluded_phrases if _phrase_in(p, DEFAULT_LANGUAGE)),
            nears=nears,
            terms=tuple(sorted(t for terms, _ in groups for t in terms)),
            group_idf=group_idf,
            term_idf=term_idf,
            most=match == "most",
            every=every & ~phrase_bits,
            word_groups=tuple(
                frozenset(terms) for bit, (terms, _) in enumerate(groups) if (every & ~phrase_bits) >> bit & 1
            ),
            sentence=any(all(is_stopword(w) for w in words) for words in parsed.groups),
            in_language=language_sql({ids[t][0]: ls for t, ls in apart.items() if t in ids}, language_docs),
            excluded_in_language=language_sql(
                {ids[t][0]: ls for t, ls in excluded_apart.items() if t in ids}, language_docs
            ),
            apart=apart,
        )

    def search(self, parsed: ParsedQuery, limit: int = 20, match: str = "most", shown: int | None = None) -> Bm25Result:
        """The documents matching the query, best first, `limit` of them; `shown`: how many of
        those a list shows (read with the nearness pool's, for their snippets), all by default."""
        started = time.perf_counter()
        cur = self._cursor()
        n_docs, avgdl, languages = self._corpus_stats(cur)
        if not parsed.has_terms:
            hits, total = browse(cur, parsed.filters, limit) if not parsed.filters.empty else ((), 0)
            return Bm25Result(hits, total, False, (), _ms(started))
        plan = self._plan(cur, parsed, list(languages), match, n_docs)
        relaxed = False
        nearness = plan.most and self._passages is not None and len(plan.word_groups) > 1
        fetch = max(limit, NEARNESS_POOL) if nearness else limit
        hits, total, plan = self._score(cur, plan, parsed.filters, fetch, n_docs, avgdl)
        if not hits and match == "all" and plan.required and not plan.phrases and not plan.nears:
            # without phrases nothing else is required: the same terms, any of them
            hits, total, plan = self._score(cur, replace(plan, required=0), parsed.filters, limit, n_docs, avgdl)
            relaxed = bool(hits)
        elif plan.most and hits and plan.every and not any(h.coverage >= 1.0 for h in hits):
            # "most" ranks partial matches too: say so when no document holds every word
            complete = replace(plan, required=plan.required | plan.every, most=False)
            relaxed = not self._score(cur, complete, parsed.filters, 1, n_docs, avgdl)[0]
        if nearness and hits:
            hits = self._nearer_first(plan, hits, shown or limit, NEARNESS_WEIGHT * long_page_weight(avgdl))
        hits = definitions_first(cur, parsed, hits)
        return Bm25Result(hits[:limit], total, relaxed, plan.terms, _ms(started), plan)

    def _nearer_first(
        self, plan: KeywordPlan, hits: tuple[LaneHit, ...], shown: int, weight: float
    ) -> tuple[LaneHit, ...]:
        """The first NEARNESS_POOL hits ordered again by proximity.boosted with `weight`. A boost only
        raises a score, so they stay above the rest. Saturation becomes the score over the most
        it could be with the boost (every word near the others), for every hit: evidence keeps
        the order."""
        assert self._passages is not None
        head = hits[:NEARNESS_POOL]
        # every result shown is read in the same read: their snippets find it read
        read = max(shown, NEARNESS_POOL) if shown <= NEARNESS_READ_WITH_POOL else NEARNESS_POOL
        texts = self._passages([h.doc_id for h in hits[:read]])
        scored = []
        for hit in head:
            language, chunks = texts.get(hit.doc_id, ("en", ()))
            share = proximity.nearness(
                chunks, plan.word_groups, language or "en", frozenset(terms_in(plan.terms, plan.apart, language or ""))
            )
            scored.append((proximity.boosted(hit.score, share, weight), hit))
        scored.sort(key=lambda pair: (-pair[0], pair[1].rank))
        most = 1 + weight

        def scaled(hit: LaneHit, score: float, rank: int) -> LaneHit:
            saturation = hit.saturation * score / hit.score / most if hit.score > 0 else 0.0
            return replace(hit, score=score, rank=rank, saturation=saturation)

        return tuple(scaled(hit, score, i + 1) for i, (score, hit) in enumerate(scored)) + tuple(
            scaled(hit, hit.score, hit.rank) for hit in hits[NEARNESS_POOL:]
        )

    def _any_plan(self, cur: duckdb.DuckDBPyConnection, parsed: ParsedQuery) -> KeywordPlan:
        """The query's plan matching any of its words: what another lane's documents are judged,
        named and constrained by when no search of this query made one."""
        n_docs, _avgdl, languages = self._corpus_stats(cur)
        return self._plan(cur, parsed, list(languages), "any", n_docs)

    def evidence(self, parsed: ParsedQuery, doc_ids: list[int], plan: KeywordPlan | None = None) -> dict[int, LaneHit]:
        """The lane's scores, coverage and saturation for the given documents (those another
        lane found), whatever their rank here: fusion weighs every candidate by the same
        evidence. Documents that match no query word are left out. `plan`: the one a search
        of this query already made (`Bm25Result.plan`), so the query is not analysed again."""
        if not doc_ids or not parsed.has_terms:
            return {}
        cur = self._cursor()
        n_docs, avgdl, _languages = self._corpus_stats(cur)
        plan = replace(plan or self._any_plan(cur, parsed), required=0, phrases=(), excluded_phrases=(), nears=())
        hits, _, _ = self._score(cur, plan, parsed.filters, len(doc_ids), n_docs, avgdl, only=doc_ids)
        return {h.doc_id: h for h in hits}

    def named(self, parsed: ParsedQuery, doc_ids: list[int], plan: KeywordPlan | None = None) -> dict[int, float]:
        """For each of the documents, the share of the query's weight its title field (title and
        file name) holds: how far the query names it. Documents whose title field holds no query
        word are left out, and all of them for a query with function words, which asks something
        ("what is RCU": the RCU chapter's list of pages is titled "RCU concepts"). `plan`: as for
        `evidence`."""
        if not doc_ids or not parsed.has_terms:
            return {}
        cur = self._cursor()
        plan = plan or self._any_plan(cur, parsed)
        if not plan.term_masks or sum(plan.group_idf) <= 0 or plan.sentence:
            return {}
        terms = ", ".join(str(int(t)) for t in plan.term_masks)
        sql = f"""SELECT doc_id, term_id FROM title_postings
                  WHERE term_id IN ({terms}) AND doc_id IN {id_list(doc_ids)}{_and(plan.in_language)}"""
        masks: dict[int, int] = {}
        for doc_id, term_id in cur.execute(sql).fetchall():
            masks[int(doc_id)] = masks.get(int(doc_id), 0) | plan.term_masks[int(term_id)]
        return {doc_id: min(1.0, coverage_of(plan.group_idf, mask)) for doc_id, mask in masks.items()}

    def satisfying(self, parsed: ParsedQuery, doc_ids: list[int]) -> set[int]:
        """The documents among `doc_ids` that meet the query's hard constraints: every quoted
        phrase, none of the excluded words or phrases. A lane that ranks by meaning finds
        documents by other means, and must still obey them."""
        if not parsed.has_constraints or not doc_ids:
            return set(doc_ids)
        cur = self._cursor()
        plan = self._any_plan(cur, parsed)
        keep = list(dict.fromkeys(doc_ids))
        if plan.excluded_ids:
            excluded = ", ".join(str(int(i)) for i in plan.excluded_ids)
            holding = {
                int(r[0])
                for r in cur.execute(
                    f"""SELECT DISTINCT doc_id FROM postings
                        WHERE term_id IN ({excluded}) AND doc_id IN {id_list(keep)}{_and(plan.excluded_in_language)}"""
                ).fetchall()
            }
            keep = [d for d in keep if d not in holding]
        # the terms every language of the index makes of the words: each document holds those
        languages = list(self._corpus_stats(cur)[2])
        written = [w for phrase in (*plan.phrases, *(words for _, words in plan.nears)) for w in phrase]
        apart = stemmed_apart(written, languages)
        words = {t for w in written for t in query_terms(w, languages) if t not in apart}
        if words and keep:
            ids = _lookup(cur, words)
            if len(ids) < len(words):
                return set()  # a phrase word no document holds
            term_ids = ", ".join(str(int(i)) for i, _ in ids.values())
            holding = {
                int(r[0])
                for r in cur.execute(
                    f"""SELECT doc_id FROM postings WHERE term_id IN ({term_ids}) AND doc_id IN {id_list(keep)}
                    GROUP BY doc_id HAVING count(DISTINCT term_id) = {len(ids)}"""
                ).fetchall()
            }
            keep = [d for d in keep if d in holding]
        if (plan.phrases or plan.nears or plan.excluded_phrases) and keep:
            rows = [(d, 0.0, 0, 0) for d in keep]
            keep = [int(r[0]) for r in check_phrases(cur, rows, plan, len(rows))]
        return set(keep)

    def _score(
        self,
        cur: duckdb.DuckDBPyConnection,
        plan: KeywordPlan,
        filters: Filters,
        limit: int,
        n_docs: int,
        avgdl: float,
        only: list[int] | None = None,
    ) -> tuple[tuple[LaneHit, ...], int, KeywordPlan]:
        if not plan.term_masks:
            return (), 0, plan
        # A required group with no known term cannot match anything.
        covered = 0
        for mask in plan.term_masks.values():
            covered |= mask
        if plan.required & ~covered:
            return (), 0, plan
        ids = sorted(plan.term_masks)
        giants = self._read_stats(cur).giants
        # One flat scan of the query terms' postings, with each term's idf and group bit
        # written into the SQL as literals (numbers computed here, never user text): no
        # joins to plan, which on DuckDB cost more than the scan itself.
        idf = {i: plan.term_idf[i] for i in ids}
        id_list = ", ".join(str(int(i)) for i in ids)
        where, params = filter_sql(filters)
        conditions = [f"term_id IN ({id_list})"]
        if only is not None:
            conditions.append(f"doc_id IN ({', '.join(str(int(d)) for d in only)})")
        if where:
            conditions.append(f"doc_id IN (SELECT d.id FROM documents d WHERE true{where})")
        if plan.excluded_ids:
            ex = ", ".join(str(int(i)) for i in plan.excluded_ids)
            conditions.append(
                f"doc_id NOT IN (SELECT doc_id FROM postings WHERE term_id IN ({ex}){_and(plan.excluded_in_language)})"
            )
        # phrases and NEAR, decided over the whole index by the word positions: never only among
        # the first candidates (a phrase said "No results" where its one document ranked 500th)
        conditions += constraint_sql(cur, plan.phrases, plan.excluded_phrases, plan.nears)
        # nothing but the words (in their languages) constrains the match: no filter, exclusion or `only`
        plain = self.prune and len(conditions) == 1 and not plan.required
        conditions.extend(plan.in_language)
        fetch = limit
        k1 = float(self.k1)
        if plan.most and sum(plan.group_idf) > 0:
            rows = self._most_rows(cur, plan, idf, conditions, params, avgdl, fetch, plain, giants)
        else:
            matched = matched_sql(self._bm25_sql(idf), mask_case_sql(plan), conditions, self._bm25_sql(idf, True))
            sql = f"""
            WITH m AS MATERIALIZED ({matched})
            SELECT m.doc_id, m.score * {prior_sql("0", giants)} AS score, m.mask, (SELECT count(*) FROM m) AS total,
                   m.fixed * {prior_sql("0", giants)} AS fixed
            FROM m LEFT JOIN link_shares h ON h.doc_id = m.doc_id
            ORDER BY score DESC, m.doc_id
            LIMIT ?"""
            rows = cur.execute(sql, [avgdl, *params, plan.required, plan.required, fetch]).fetchall()
        total = rows[0][3] if rows else 0  # rows: doc, score, mask, total, the evidence's score
        if rows and not plan.anchor:  # the best match anchors the evidence of every candidate
            top_score, top_evidence = float(rows[0][1]), float(rows[0][4])
            # at most the most a document can score: a best match past it (its title bonus) is
            # saturated, and the others stay below it, apart, as their scores are
            most = sum(plan.group_idf) * (k1 + 1)
            plan = replace(plan, anchor=min(top_evidence, most) / top_score if top_score > 0 else 1.0)
        hits = tuple(
            LaneHit(int(r[0]), float(r[1]), i + 1, *evidence_of(plan, int(r[2]), float(r[1]), k1))
            for i, r in enumerate(rows[:limit])
        )
        return hits, int(total), plan

    def _most_rows(
        self,
        cur: duckdb.DuckDBPyConnection,
        plan: KeywordPlan,
        idf: dict[int, float],
        conditions: list[str],
        params: list[object],
        avgdl: float,
        fetch: int,
        plain: bool,
        giants: Mapping[int, float],
    ) -> list[tuple[Any, ...]]:
        """Match "most": every document holding any query word (one that lacks a word is not
        dropped, as "all" drops it), its BM25 score times a bonus for the query's weight in its
        title field (title and file name: what a person names a document by; in full among
        long pages, long_page_weight), times the priors against pages of links and giant documents (prior_sql).
        Tuned on the Python-docs questions, SciFact train and NFCorpus dev (docs/eval/README.md).
        Rows: (doc, score, mask, total), best first.

        Grouping every posting of a word most documents hold was most of a search's time at
        100k documents. Where nothing but the words constrains the match (`plain`), two
        shapes give the same rows for less: a one-term query needs no grouping (each posting
        is a document), and a query with one term far commoner than the rest is ranked by
        MaxScore (Turtle & Flood, 1995): the documents holding any other term are scored in
        full, and when the last one kept outscores the most a document holding only the
        common term could, those hold the top; the others are only counted."""
        ids = sorted(plan.term_masks)
        common = dominant_term(plan) if plain else None
        lang = _and(plan.in_language)
        if plain and len(ids) == 1:
            (term,) = ids
            mask = plan.term_masks[term]
            rows = f"""
                SELECT doc_id, {self._bm25_sql({term: idf[term]})} AS score, {mask} AS mask,
                       {self._bm25_sql({term: idf[term]}, True)} AS fixed, dl,
                       CASE WHEN doc_id IN (SELECT doc_id FROM title_postings WHERE term_id = {term})
                            THEN {mask} ELSE 0 END AS title_mask
                FROM postings WHERE term_id = {term}{lang}"""
            total = f"(SELECT count(*) FROM postings WHERE term_id = {term}{lang})"
            return cur.execute(self._ranked_sql(plan, rows, total, avgdl, giants), [avgdl, fetch]).fetchall()
        if common is not None:
            others = ", ".join(str(int(i)) for i in ids if i != common)
            holding = f"""(SELECT doc_id FROM postings WHERE term_id IN ({others}){lang}
                          UNION ALL SELECT doc_id FROM title_postings WHERE term_id IN ({others}){lang})"""
            rows = self._grouped_sql(
                plan,
                idf,
                f"""SELECT doc_id, term_id, tf, dl, false AS title FROM postings WHERE term_id IN ({others}){lang}
                    UNION ALL
                    SELECT doc_id, term_id, tf, dl, false FROM postings
                    WHERE term_id = {common}{lang} AND doc_id IN {holding}
                    UNION ALL
                    SELECT doc_id, term_id, 0::REAL, 0::REAL, true FROM title_postings
                    WHERE term_id IN ({others}){lang}
                    UNION ALL
                    SELECT doc_id, term_id, 0::REAL, 0::REAL, true FROM title_postings
                    WHERE term_id = {common}{lang} AND doc_id IN {holding}""",
            )
            mask = plan.term_masks[common]
            # the documents holding the common term and no other: all of them, less those scored
            total = f"""((SELECT count(*) FROM m) + (SELECT count(*) FROM postings WHERE term_id = {common}{lang})
                        - (SELECT count(*) FROM m WHERE m.mask & {mask} <> 0))"""
            found = cur.execute(
                self._ranked_sql(plan, rows, total, avgdl, giants), [avgdl, plan.required, plan.required, fetch]
            ).fetchall()
            if len(found) >= fetch and found[fetch - 1][1] > self._most_alone(plan, common, idf[common], avgdl):
                return found
        every = ", ".join(str(int(i)) for i in ids)
        rows = self._grouped_sql(
            plan,
            idf,
            f"""SELECT doc_id, term_id, tf, dl, false AS title FROM postings WHERE {" AND ".join(conditions)}
                UNION ALL
                SELECT doc_id, term_id, 0::REAL, 0::REAL, true FROM title_postings WHERE term_id IN ({every}){lang}""",
        )
        return cur.execute(
            self._ranked_sql(plan, rows, "(SELECT count(*) FROM m)", avgdl, giants),
            [avgdl, *params, plan.required, plan.required, fetch],
        ).fetchall()

    def _bm25_sql(self, idf: dict[int, float], reference: bool = False) -> str:
        return posting_bm25_sql(idf, float(self.k1), float(self.b), reference)

    def _grouped_sql(self, plan: KeywordPlan, idf: dict[int, float], rows: str) -> str:
        """Documents from body rows and title rows (a row each, marked): a document counts only
        with a body posting, and its title rows add their groups' bits. One grouping: a join
        of the two fields' groupings cost 3 of a search's 14 ms at 100k documents."""
        mask_case = mask_case_sql(plan)
        return f"""
                SELECT doc_id,
                       sum(CASE WHEN NOT title THEN {self._bm25_sql(idf)} END) AS score,
                       sum(CASE WHEN NOT title THEN {self._bm25_sql(idf, True)} END) AS fixed,
                       max(dl) AS dl,
                       bit_or(CASE WHEN NOT title THEN (CASE term_id {mask_case} END) END) AS mask,
                       coalesce(bit_or(CASE WHEN title THEN (CASE term_id {mask_case} END) END), 0) AS title_mask
                FROM ({rows})
                GROUP BY doc_id
                HAVING bool_or(NOT title) AND (mask & ?) = ?"""

    def _ranked_sql(self, plan: KeywordPlan, rows: str, total: str, avgdl: float, giants: Mapping[int, float]) -> str:
        """The ranked statement over `rows` (doc_id, score, mask, title_mask): counted, as
        matched_sql's rows are, by a scalar over the MATERIALIZED rows."""
        in_title = coverage_sql(plan.group_idf, "m.title_mask")
        prior = prior_sql("0" if plan.sentence else in_title, giants)
        return f"""
            WITH m AS MATERIALIZED ({rows})
            SELECT m.doc_id,
                   m.score * (1 + {self._title_bonus(avgdl)!r}::DOUBLE * {in_title}) * {prior} AS score,
                   m.mask, {total} AS total,
                   m.fixed * (1 + {float(self.title_boost)!r}::DOUBLE * {long_page_sql("m.dl")} * {in_title}) * {prior}
                       AS fixed
            FROM m LEFT JOIN link_shares h ON h.doc_id = m.doc_id
            ORDER BY score DESC, m.doc_id
            LIMIT ?"""

    def _title_bonus(self, avgdl: float) -> float:
        """What the query's whole weight in a document's title field multiplies its score by, less 1."""
        return float(self.title_boost) * long_page_weight(avgdl)

    def _most_alone(self, plan: KeywordPlan, term: int, idf: float, avgdl: float) -> float:
        """More than a document holding `term` and no other query term can score: BM25's
        part per term stays below idf·(k1+1), its title share is at most the term's groups',
        and the prior against hubs only lowers a score."""
        share = coverage_of(plan.group_idf, plan.term_masks[term])
        return idf * (float(self.k1) + 1) * (1 + self._title_bonus(avgdl) * share)


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0
