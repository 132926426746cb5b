"""The keyword lane's plan of a query: its word groups with their bits and idf, what a document
must hold, the term MaxScore may leave unscored, and the index's figures the plan is made with."""

from __future__ import annotations

from dataclasses import dataclass, field

from findling.search.keyword.words import WordGroup
from findling.text.analyzer import is_unspaced


@dataclass(frozen=True)
class CorpusStats:
    at: float  # time.monotonic() when read
    documents: int
    average_length: float
    languages: tuple[str, ...]
    giants: dict[int, float]  # document -> its length over the average, where the prior against giants applies
    language_docs: dict[str, int]  # each language's documents ("": none detected)


@dataclass(frozen=True)
class KeywordPlan:
    term_masks: dict[int, int]  # term id -> bitmask of the groups it serves
    dfs: dict[int, int]  # term id -> document frequency
    required: int
    excluded_ids: tuple[int, ...]
    # each quoted phrase's words as written, analysed in each document's own language (phrases.py)
    phrases: tuple[tuple[str, ...], ...]
    excluded_phrases: tuple[tuple[str, ...], ...]
    terms: tuple[str, ...]
    nears: tuple[tuple[int, tuple[str, ...]], ...] = ()  # (other words allowed between, the words)
    group_idf: tuple[float, ...] = ()  # each group's weight; a word no document holds weighs the most
    # each term's weight in the BM25 sum: its group's idf, times how often a long query repeats it
    term_idf: dict[int, float] = field(default_factory=dict)
    most: bool = False  # match "most": any word, the title field and nearness counting too
    every: int = 0  # the groups that match "all" requires
    word_groups: tuple[frozenset[str], ...] = ()  # those groups' terms, for their nearness in a text
    # the query has function words ("what is RCU"): it asks something, it does not name a page
    sentence: bool = False
    # a stem only some of the index's languages make is matched in their documents only: the
    # conditions on a posting row saying so (language_sql), for the query's terms and for its
    # excluded words' terms; and each such term with those languages, for texts
    in_language: tuple[str, ...] = ()
    excluded_in_language: tuple[str, ...] = ()
    apart: dict[str, frozenset[str]] = field(default_factory=dict)
    # the query's best match's evidence score over its ranking score (REFERENCE_LENGTH): every
    # candidate's saturation is its score times this, so the evidence keeps the lane's order and
    # its level is the best match's own, whatever the folder's average length; 0: not known yet
    anchor: float = 0.0


def required_groups(match: str, every: int, phrases: int, whole_words: int) -> int:
    """The groups a document must match: a quoted phrase's in every mode; with "all", every
    word (but stopwords); with "most", the parts of each split word together."""
    if match == "all":
        return phrases | every
    return phrases | (whole_words if match == "most" else 0)


def split_words(planned: list[WordGroup]) -> list[int]:
    """The group bits of each query word of an unspaced script that was split into bigrams
    (one bit per bigram). The parts of a word joined by a hyphen or a dot (IL-6, β-blockers,
    os.path) are words of their own: coverage ranks a document that lacks one lower; required
    together, they dropped every abstract that spells a claim's term another way
    (docs/eval/README.md, "Split words")."""
    words: dict[str, int] = {}
    for bit, group in enumerate(g for g in planned if not g.phrase):
        if is_unspaced(group.label):
            words[group.label] = words.get(group.label, 0) | (1 << bit)
    return [bits for bits in words.values() if bits & (bits - 1)]


def count_whole_words(compounds: list[int], term_masks: dict[int, int]) -> int:
    """The bits of the split words whose parts all occur in the index: each such word's parts
    are required together. A word with a part no document holds stays optional, as any
    other word the index lacks."""
    known = 0
    for mask in term_masks.values():
        known |= mask
    return sum(bits for bits in compounds if bits & known == bits)


def dominant_term(plan: KeywordPlan) -> int | None:
    """The query term whose postings outnumber all the others' four to one, if its groups are
    its own (so a document's mask tells whether it holds it): what MaxScore leaves unscored."""
    if len(plan.term_masks) < 2:
        return None
    term = max(plan.term_masks, key=lambda t: (plan.dfs[t], t))
    rest = sum(df for t, df in plan.dfs.items() if t != term and t in plan.term_masks)
    shared = any(m & plan.term_masks[term] for t, m in plan.term_masks.items() if t != term)
    return term if plan.dfs[term] >= 4 * rest and not shared else None
