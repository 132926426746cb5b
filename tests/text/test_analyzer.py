from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from findling.records import SearchMode, SearchRequest
from findling.text.analyzer import fold, is_stopword, iter_tokens, query_terms, term_counts, term_sequence


def test_fold_case_and_accents():
    assert fold("Crème Brûlée") == "creme brulee"
    assert fold("STRASSE") == fold("Straße")


def test_stemming_and_digits():
    assert term_sequence("Running runs runner") == ["run", "run", "runner"]
    assert term_sequence("error 404 in 2024") == ["error", "404", "in", "2024"]


def test_identifiers_kept_whole_and_split():
    tokens = list(iter_tokens("snake_case getUserName x86_64 HTTPServer"))
    assert [t.term for t in tokens] == ["snake_case", "getusername", "x86_64", "httpserver"]
    assert tokens[0].parts == ("snake", "case")
    assert tokens[1].parts == ("get", "user", "name")
    assert tokens[2].parts == ("x86", "64")
    assert tokens[3].parts == ("http", "server")


def test_term_counts_include_parts_and_weight():
    counts = term_counts("snake_case snake", weight=2.0)
    assert counts == {"snake_case": 2.0, "snake": 4.0, "case": 2.0}


def test_spans_point_into_original_text():
    text = "  __init__ and Café"
    for token in iter_tokens(text):
        assert fold(text[token.start : token.end]).strip("_") in (token.term, "cafe")
    assert [text[t.start : t.end] for t in iter_tokens(text)] == ["init", "and", "Café"]


def test_unspaced_scripts_are_overlapping_bigrams_with_their_characters():
    assert term_sequence("日本語abc") == ["日本", "本語", "abc"]
    assert term_sequence("京") == ["京"]
    counts = term_counts("北京大学")
    assert {t for t in counts} == {"北京", "京大", "大学", "北", "京", "大", "学"}
    assert all(v == 1 for v in counts.values())  # each character indexed once
    assert query_terms("ภาษาไทย", ["en"])[:2] == ["ภา", "าษ"]


def test_query_terms_per_language():
    assert query_terms("houses", ["en"]) == ["hous"]
    assert set(query_terms("Häuser", ["de", "en"])) >= {"haus"}


def test_stopwords():
    assert is_stopword("The") and not is_stopword("python")
    # as a query writes them: a question's last word, a contraction, a word before a comma
    assert is_stopword("you?") and is_stopword("on,") and is_stopword("(the") and is_stopword('"Why')
    assert not is_stopword("3.11?") and not is_stopword("t-test") and not is_stopword("?")
    assert is_stopword("isn't") and is_stopword("don't")  # as "is" and "not" are
    assert not is_stopword("now()")  # a function, called


@settings(max_examples=400, deadline=None)
@given(
    st.text(st.sampled_from(list("北京大学东ab_ c\nカタ한국어ไทย，。x1Zé")), max_size=80), st.sampled_from([1.0, 2.0])
)
def test_index_counts_are_the_tokens_terms_and_parts_whatever_the_script(text, weight):
    """term_counts counts unspaced runs in bulk (numpy); it must index exactly what
    iter_tokens yields, bigram by bigram and character by character."""
    expected: Counter[str] = Counter()
    for token in iter_tokens(text):
        expected[token.term] += weight  # type: ignore[assignment]
        for part in token.parts:
            expected[part] += weight  # type: ignore[assignment]
    assert term_counts(text, weight=weight) == expected


def test_ligatures_and_undecomposed_letters_fold_as_people_type_them():
    assert fold("Œufs brouillés") == "oeufs brouilles"
    assert fold("Ærø Łódź Þór") == "aero lodz thor"
    assert query_terms("oeufs", ["fr"]) == query_terms("œufs", ["fr"])


def test_an_index_from_before_ligature_folding_reads_those_documents_again(tmp_path, settings):
    import duckdb

    from findling.engine import Engine
    from tests.helpers import index_files

    with Engine(tmp_path / "home", settings=settings) as engine:
        index_files(engine, tmp_path / "docs", {"recette.md": "Battre les œufs en neige.", "plain.md": "eggs"})
    con = duckdb.connect(str(tmp_path / "home" / "findling.duckdb"))
    con.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")  # as the last version left it
    con.close()
    with Engine(tmp_path / "home", settings=settings) as engine:
        report = engine.index()
        assert (report.updated, report.unchanged) == (1, 1)
        assert engine.find(SearchRequest("oeufs", mode=SearchMode.KEYWORD)).total_matched == 1


def _sequence_token_by_token(text: str) -> list[str]:
    """term_sequence as it read each token on its own (the reference the one-pass reading keeps)."""
    from findling.text.analyzer import _TOKEN, _analyse, _bigrams, is_unspaced

    out: list[str] = []
    for raw in _TOKEN.findall(text):
        if is_unspaced(raw):
            out.extend(token.term for token in _bigrams(raw, 0))
            continue
        analysed = _analyse(raw, "en")
        if analysed is not None:
            out.append(analysed[0])
    return out


_WORDS = st.sampled_from(
    [
        "parse_known_args",
        "readFileSync",
        "running",
        "runs",
        "ＡＢＣ",
        "東京都庁",
        "naïve",
        "__",
        "x86_64",
        "Café",
        "の",
        "e\u0301",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_WORDS, st.text(max_size=12)), max_size=40))
def test_one_reading_of_a_text_gives_its_counts_and_its_sequence(words):
    """Indexing reads a document's text once for its term counts and its positions."""
    from findling.text.analyzer import body_terms

    text = " ".join(words)
    counts, sequence = body_terms(text, "en")
    assert counts == term_counts(text, "en")
    assert sequence == _sequence_token_by_token(text) == term_sequence(text, "en")
