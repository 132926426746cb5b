"""The numbers measurement chose for ranking, fusing and answering, each declared once with why.

settings.py holds what a user may set (settings.toml, the Settings dialog); these are not
theirs to set: each was chosen by a sweep over the tuning sets (`findling eval`, SciFact train,
NFCorpus dev, the Python-docs questions) or by a speed measurement (`findling bench`), and
docs/eval/ records the figures. search/ and answer/ import them from here and declare no tuned
number of their own (tests/test_tuning.py holds that).
"""

from __future__ import annotations

# --- The keyword lane (search/keyword/) -------------------------------------------------------

# What names a long page (its title, the words together in one paragraph) says less in a
# short one: an abstract's title is a tenth of its text and BM25F counts it already, and in
# an abstract every word is near every other. The title bonus and nearness count in full
# among a manual's pages (Python docs, avgdl ~4,100 words: .94) and hardly at all among
# abstracts (~250: .06), where plain BM25 ranks best: a folder's pages are long pages by
# their average length in words against this. Tuned on the Python-docs questions, SciFact
# train and NFCorpus dev (docs/eval/README.md: "no coverage; title and nearness x long_page_weight").
LONG_PAGE = 1000.0
# The evidence a result's label and relevance read (saturation) is the document's BM25 against a
# fixed length, not the folder's average: adding a folder of long pages made a short note's
# "kindergarten fees" .39 -> .69 (its length over the average fell, so its score rose). The
# ranking keeps the average; the evidence is the document's own.
REFERENCE_LENGTH = 1000.0
# the most frequent index terms a prefix (`conf*`) stands for
PREFIX_EXPANSIONS = 64
# A phrase's words joined in SQL at most: a longer phrase is narrowed by its rarest words, then
# read word by word in the candidates' positions. A 76-word paragraph quoted whole, joined word by
# word, ran DuckDB out of memory on the kernel's 25,000 documents.
JOINED_WORDS = 6

# Nearness (search/keyword/proximity.py): the first NEARNESS_POOL results are ordered again by
# score · (1 + NEARNESS_WEIGHT · (most query words within NEARNESS_WIDTH characters of one
# paragraph) / (words in the query)); the same first results whatever the number asked for.
NEARNESS_POOL = 10
# results read with the pool for their snippets; a deeper list (why-not ranks 100,000) reads the pool alone
NEARNESS_READ_WITH_POOL = 100
# characters, about 60 words, in one paragraph: the entries of an index, a glossary or a table
# (the paragraphs of its text) hold the words of a question one or two at a time. Nearness
# within one paragraph of 400 characters: Python docs MRR@10 .720 → .757 (docs/eval/README.md)
NEARNESS_WIDTH = 400
NEARNESS_WEIGHT = 2.0

# --- The query (search/query_parser.py, search/results.py) ------------------------------------

# `a NEAR b`: at most this many other words between them, as Xapian's NEAR
NEAR_WORDS = 10
# unquoted words past which a query reads as plain text (query by example)
PLAIN_TEXT_WORDS = 40
# a query this long is a pasted passage: asked by meaning
PASSAGE_WORDS = 12

# --- Relevance and fusion (search/relevance.py, search/blend.py) ------------------------------

# lane agreement: the share of the keyword lane's best this-many candidates among the meaning lane's
AGREEMENT_TOP = 10
# A page whose text is mostly links or entries pointing elsewhere (an index, a table of contents,
# a module index, a glossary) holds every word of a question somewhere and answers none: from
# HUB_FROM of its text in them its score falls linearly, to HUB_FLOOR of itself at HUB_TO. The
# keyword lane applies it in SQL (search/keyword/sql.py), the pipeline to a page's relevance. A
# query with every word in the page's title field names it ("python module index"): no prior.
# Why these bounds: docs/eval/relevance-models.md.
HUB_FROM = 0.35
HUB_TO = 0.85
HUB_FLOOR = 0.2
NAMED = 0.999999  # the share of the query's weight in the title field that names a page: all of it
# A document many times longer than the index's average (a changelog of every release, the
# whole API's list of symbols) holds every word of a question among thousands of unrelated
# entries, and its best passage, the best of so many, is close to many questions: from
# GIANT_FROM times the average its score falls with the log of its length, to GIANT_FLOOR at
# GIANT_TO times. A query naming the document asks for it: no prior. Why these bounds:
# docs/eval/relevance-models.md.
GIANT_FROM = 30.0
GIANT_TO = 300.0
GIANT_FLOOR = 0.5
# Position-aware blending of fusion and rerank scores, (last rank, fusion's weight): the fused
# order is trusted most at the top, the reranker more further down (docs/pipeline.md)
BLEND_BANDS: tuple[tuple[int, float], ...] = ((3, 0.75), (10, 0.60), (1_000_000, 0.40))

# --- The vector lane (search/vector_index.py, search/vector_codes.py) -------------------------

# candidates rescored with exact floats, at least (k × 8 when more)
RESCORE = 256
# of the rows, handed from the head's pass to the whole codes
SHORTLIST_SHARE = 1 / 200
# rows: below this many every row is scored whole (under 1 ms)
WHOLE_BELOW = 65_536
# a new dimension's scale covers 25 % more than the values seen
CODE_HEADROOM = 1.25

# --- What a search shows and looks through (search/service.py, search/why_not.py) ------------

# with no result above the weak score, this many are shown, marked weak
WEAK_SHOWN = 3
# A first search loads the embedder (and verifies its file): seconds the pipeline's stages do
# not hold. From this long it is named with the timings, so "2 results in 2347 ms" beside
# "15 candidates in 40 ms" says where the rest went.
LOADING_SHOWN_MS = 100.0
# how far down the results why-not looks for a document the limit cut
WHY_NOT_WIDE_LIMIT = 100
# documents ranked by keywords when looking for one of them
WHY_NOT_KEYWORD_DEPTH = 100_000
# documents ranked by meaning before "further down than that"
WHY_NOT_SEMANTIC_DEPTH = 1000

# --- Answers (answer/) ------------------------------------------------------------------------

# a quoted sentence may lack this many of the question's content words (the passage's title
# counting as its words): "When is my next dentist appointment?" is answered by "Next check-up
# for me: 18 March 2026" in dentist.txt, which lacks "appointment" alone
QUOTE_MISSING = 1
QUOTED_AT_MOST = 3
# For a question asking how or why, a sentence this close in meaning to it (the embedder's
# cosine, query against passage) is quoted although it lacks the question's words: manuals
# explain in their own words ("Recursively copy an entire directory tree" for "how do I copy a
# whole folder with everything in it"). On pydocs-questions (a tuning set) this quotes the
# page asked about in 76 answers of 89 with it in hybrid's top 3, against 47 by words alone;
# the everyday notes' questions ask for values and are untouched (docs/eval/ask.md).
CLOSE_IN_MEANING = 0.45
INTRODUCED_AT_MOST = 300  # characters of what a quoted "…:" introduces
QUOTE_CHARS = 400  # a quote longer than this is cut at a word
# what a quote read with the sentence before it counts as, beside the words it lacks: a sentence
# that needs another to answer is less sure than one that answers alone
LEANS_BACK = 0.5
# a model whose sentences fail this many times in a row has lost its way: it is stopped, and the
# passages are quoted instead (a small model does not come back; the answer comes sooner)
GIVE_UP_AFTER = 2
# a generated sentence must speak of at least this share of the question's content words
ON_TOPIC = 0.34
# share of a sentence's content words that may be missing from its passages: a connective or
# an inflection the stemmer does not join ("rose"/"risen"), never a number
MISSING_SHARE = 0.2

# --- A folder's self-test (search/lane_balance.py, search/self_queries.py) --------------------

# The meaning lane's shares of the hybrid model's weight a self-test may choose (0.5: as shipped)
SELF_TEST_SHARES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
# Documents a folder's self-test makes its queries from (two or three each), sampled by a hash
# of their paths; below SELF_TEST_FEWEST embedded documents a folder keeps the shipped weights
SELF_TEST_DOCUMENTS = 120
# ... read as far as their first chunks (a giant file's first pages)
SELF_TEST_CHUNKS = 24
SELF_TEST_FEWEST = 60
# queries of one kind needed for that kind to have a share of its own; fewer take the folder's
SELF_TEST_KIND_QUERIES = 40
# The candidates each self-test query gathers (per lane, twice this for the query itself):
# the rank of its source is read within the first ten, as MRR@10
SELF_TEST_CANDIDATES = 20
# A query word of a pasted sentence or paragraph left out at this rate: the source's text holds
# the sentence as it is, which no user's query does
SELF_TEST_DROPPED = 0.25
# the words of a sentence a self-test query is made of (before some are left out), and of a passage
SELF_TEST_SENTENCE_WORDS = (8, 30)
SELF_TEST_PASSAGE_WORDS = (40, 60)
# A lane fails a folder when it finds the sources of the self-test's sentences and passages
# less than half as often (MRR@10) as the other lane does. Where both lanes work, queries made of
# a document's own words favour the keyword lane everywhere, and the self-test's best share did
# not tell which lane real questions need: SciFact and NFCorpus (lanes alike on their test
# questions) chose 0.2, the stdlib code set (keywords .79, meaning .75) 0.3, and weighing by it
# cost the code set .021 MRR@10 (docs/eval/README.md, "Self-test"). On those the meaning lane
# finds sentences' sources .77 / .63 / .58 of the time, the keyword lane .97 / .96 / .68.
SELF_TEST_FAILING = 0.5
# A self-test is made again when the folder's embedded documents grew or shrank by this share
SELF_TEST_STALE = 0.25
