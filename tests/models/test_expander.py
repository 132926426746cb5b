from __future__ import annotations

from findling.models.expander import parse_expansion, prompt_for


def test_parse_well_formed():
    raw = (
        "lex: git undo commit\nlex: git reset\nsem: revert my last commit\nsem: remove previous commit\n"
        "hyde: Use git reset."
    )
    e = parse_expansion(raw, "undo git commit")
    assert e.lexical == ("git undo commit", "git reset")
    assert e.semantic == ("revert my last commit", "remove previous commit")
    assert e.hyde == "Use git reset."


def test_parse_repairs_bullets_tags_and_duplicates():
    raw = (
        "Sure! Here you go:\n1. Keywords: vitamin d bones\n- lex: vitamin d bones\n"
        "* Rephrased: does vitamin D help bones\n"
        "sem: VITAMIN D DEFICIENCY FRACTURES\nanswer: Low vitamin D raises fracture risk.\nIt weakens bone.\n"
    )
    e = parse_expansion(raw, "vitamin d deficiency fractures")
    assert e.lexical == ("vitamin d bones",)
    assert e.semantic == ("does vitamin D help bones",)  # the query itself is dropped, case-insensitively
    assert e.hyde == "Low vitamin D raises fracture risk. It weakens bone."


def test_parse_garbage_is_empty_not_an_error():
    for raw in ("", "The capital of France is Paris.", "lex:\nsem:   \nhyde:", "x" * 5000):
        e = parse_expansion(raw, "q")
        assert e.lexical == () and e.semantic == ()


def test_caps_variant_counts():
    raw = "\n".join(f"lex: k{i}" for i in range(9)) + "\n" + "\n".join(f"sem: s{i}" for i in range(9))
    e = parse_expansion(raw, "q", lexical=2, semantic=1)
    assert e.lexical == ("k0", "k1") and e.semantic == ("s0",)


def test_prompt_is_chatml_with_example_and_language_fallback():
    english = prompt_for("where is my tax form")
    assert english.startswith("<|im_start|>system\n") and english.endswith("<|im_start|>assistant\n")
    assert "where is my tax form" in english and "lex:" in english
    assert "language of the query" in prompt_for("wo ist mein Steuerformular", multilingual=True)
