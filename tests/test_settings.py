"""Every settings key is checked, with a message naming the key and what it allows."""

from __future__ import annotations

import pytest

from findling.errors import FindlingError
from findling.records import SearchMode, SearchRequest
from findling.settings import Settings, load_settings, save_settings, settings_path


@pytest.mark.parametrize(
    "section, key, value, says",
    [
        ("index", "max_file_mb", -1, "between"),
        ("index", "max_file_mb", "nan", "got nan"),
        ("index", "exclude", [1, 2], "list of strings"),
        ("index", "chunk_overlap", 5.0, "between 0 and 0.9"),
        ("index", "memory_limit_mb", 0, "between 64"),
        ("index", "file_timeout_s", 0, "between"),
        ("index", "follow_outside_links", 1, "true or false"),
        ("search", "limit", -5, "between 1"),
        ("search", "match", "some", "one of most, all, any"),
        ("models", "threads", -2, "between 0"),
        ("models", "threads", True, "whole number"),
        ("models", "provider", "banana", "one of auto, cpu, cuda, directml, coreml"),
        ("pipeline", "rrf_k", 0, "between"),
        ("pipeline", "reranker", "magic", "one of auto"),
    ],
)
def test_bad_values_are_named(tmp_path, section, key, value, says):
    text = f"[{section}]\n{key} = {value!r}\n".replace("'", '"')
    if value == "nan":
        text = f"[{section}]\n{key} = nan\n"
    if value is True:
        text = f"[{section}]\n{key} = true\n"
    path = settings_path(tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FindlingError) as info:
        load_settings(tmp_path)
    assert f"'{section}.{key}'" in str(info.value) and says in str(info.value)


def test_good_values_load_and_ints_widen_to_floats(tmp_path):
    path = settings_path(tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('[index]\nmax_file_mb = 5\nexclude = ["build/"]\n[models]\nprovider = "cpu"\n')
    settings = load_settings(tmp_path)
    assert settings.index.max_file_mb == 5.0 and settings.index.exclude == ["build/"]


def test_saving_refuses_what_loading_would(tmp_path):
    settings = Settings()
    settings.search.limit = 0
    with pytest.raises(FindlingError, match="'search.limit'"):
        save_settings(settings, tmp_path)


def test_query_values_are_checked(engine):
    from findling.errors import QuerySyntaxError

    with pytest.raises(QuerySyntaxError):
        engine.find(SearchRequest("after:10000y notes", mode=SearchMode.KEYWORD))
    with pytest.raises(QuerySyntaxError):
        engine.find(SearchRequest("notes", mode=SearchMode.KEYWORD, limit=-5))
    with pytest.raises(QuerySyntaxError):
        engine.find(SearchRequest("notes", mode=SearchMode.KEYWORD, limit=0))


def test_cli_result_count_is_checked(tmp_path, capsys):
    from findling.cli import main

    for n in ("0", "-5", "x"):
        with pytest.raises(SystemExit) as info:
            main(["--home", str(tmp_path), "search", "notes", "-n", n])
        assert info.value.code == 2
    assert "between 1 and 10000" in capsys.readouterr().err


def test_every_setting_is_declared_once_with_help_and_what_it_allows():
    """Type, default, range or choices and help live in one declaration (settings.SPECS) that
    loading, `findling settings` and the Settings dialog all read."""
    from findling.settings import SPECS, validate

    assert len(SPECS) >= 50
    for key, spec in SPECS.items():
        assert len(spec.help) > 10, key
        if spec.kind in (int, float):
            assert spec.range is not None and spec.range[0] <= spec.default <= spec.range[1], key
        if spec.choices is not None:
            assert spec.default in spec.choices, key
    validate(Settings())  # every default passes its own check


def test_findling_settings_lists_each_value_default_and_help(tmp_path, capsys):
    import json

    from findling.cli import main
    from findling.settings import SPECS

    path = settings_path(tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[search]\nlimit = 7\n", encoding="utf-8")
    assert main(["--home", str(tmp_path), "settings", "--json"]) == 0
    rows = {row["key"]: row for row in json.loads(capsys.readouterr().out)["settings"]}
    assert set(rows) == set(SPECS)
    assert rows["search.limit"]["value"] == 7 and rows["search.limit"]["default"] == 20
    assert rows["search.limit"]["allowed"] == "1–10000" and "results" in rows["search.limit"]["help"]
    assert rows["search.match"]["allowed"] == "most, all, any"
    assert main(["--home", str(tmp_path), "settings"]) == 0
    text = capsys.readouterr().out
    assert "* search.limit = 7  [1–10000]" in text and "  search.k1 = 1.2  [0–10]" in text
