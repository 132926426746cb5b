"""Which stemmer a document is read with: its language, guessed from its function words."""

from __future__ import annotations

from findling.text.language import detect_language


def test_function_words_name_the_language():
    portuguese = "Os gatos dormem no jardim, e o cachorro está debaixo da árvore que o pai plantou. "
    assert detect_language(portuguese * 3) == "pt"
    assert detect_language("Die Katzen schlafen heute im Garten, und der Hund liegt unter dem Baum. " * 3) == "de"
    assert detect_language("The cats sleep in the garden today, and the dog is under the tree. " * 3) == "en"


def test_a_table_of_the_os_module_s_names_is_not_portuguese():
    """`os` is Portuguese's article and Python's module: the Python docs' table of audit events
    (os.chdir, os.listdir, ... and a few English lines) was read as Portuguese."""
    rows = " ".join(f"os.{name} path, mode" for name in ("chdir", "listdir", "remove", "rename", "scandir") * 8)
    text = "This table contains all events raised by sys.audit calls in the standard library. " + rows
    assert detect_language(text) == "en"


def test_program_text_repeating_one_marker_stays_english():
    """Prose uses many of its language's function words; a demo script repeats one name that
    happens to be one (gnuplot's examples load `*.dem` files: "dem" is German)."""
    demo = "".join(f'print \'demo {i}\'\nload "surface{i}.dem"\npause -1 "Hit return to continue"\n' for i in range(40))
    assert detect_language(demo) == "en"
    minified = "".join(f"function(o){{return o.x{i}=o.y{i}||o}};" for i in range(60))  # `o`: Portuguese "the"
    assert detect_language(minified) == "en"


def test_danish_and_norwegian_are_not_each_other_s_rival():
    """Their markers differ by one word: the margin asked of the language found is over the next
    language of another family, or neither would ever be found."""
    danish = (
        "Katten sover i haven, og hunden ligger under træet. Vi har læst hele eftermiddagen og talt om "
        "de bøger, som vi vil købe til sommer, og det er ikke for sent. "
    )
    norwegian = (
        "Katten sover i hagen, og hunden ligger under treet. Vi har lest hele ettermiddagen og snakket "
        "om bøkene som vi vil kjøpe til sommeren, og det er ikke for sent å komme av dem. "
    )
    assert detect_language(danish * 3) == "da"
    assert detect_language(norwegian * 3) == "no"
