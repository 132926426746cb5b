"""Every kind of file Findling knows, one row per extension: which reader reads it (or why none
does), the group the Type filter and the result facets put it in, a source file's grammar, and
whether OCR reads its pictures. Ingest, code symbols, the facets, the Type filter and the preview
all read this table (as Recoll's mimeconf maps each type to its handler and its GUI category): a
new kind of file is one row here."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FileKind:
    reader: str  # which extractor reads it (ingest/extract.py): markdown, rst, html, code, text, pdf, ...
    category: str  # its group in the Type filter and the facets (CATEGORIES)
    language: str = ""  # a source file's grammar, whose definitions are found (ingest/code_symbols.py)
    ocr: bool = False  # its pictures' words are read by the OCR model, when installed
    # a format recognised but not read (reader "unread", or "legacy-office" when its bytes are not
    # the format's): why, as the skipped list says it
    unread: str = ""


# Readers of no text: "never" files are not the user's words (media, binaries, databases) and
# are neither read nor listed; "unread" ones are listed as skipped with the row's reason;
# "legacy-office" ones are read as RTF or text when their bytes are that (a plain-text `.doc`)
NOT_READ = ("never", "unread", "legacy-office")


# The Type filter's groups, in the order the window lists them
CATEGORIES = (
    "Documents",
    "Spreadsheets",
    "Presentations",
    "Mail",
    "Notebooks",
    "Archives",
    "Markdown",
    "Text",
    "Web pages",
    "Code",
    "Pictures",
    "Music",
)


def _rows(
    extensions: str, reader: str, category: str, language: str = "", *, ocr: bool = False, unread: str = ""
) -> dict[str, FileKind]:
    return {ext: FileKind(reader, category, language, ocr, unread) for ext in extensions.split()}


# extension (lower case, no dot) -> its kind
KINDS: dict[str, FileKind] = {
    **_rows("md markdown mdown mkd mdx", "markdown", "Markdown"),
    **_rows("rst rest", "rst", "Text"),
    **_rows("html htm xhtml shtml", "html", "Web pages"),
    **_rows("txt text log org adoc asciidoc tex bib srt vtt nfo", "text", "Text"),
    **_rows("csv tsv", "text", "Spreadsheets"),
    # source files with a grammar: chunked at their definitions, `sym:` finds them
    **_rows("py pyi", "code", "Code", "python"),
    **_rows("js mjs cjs jsx", "code", "Code", "javascript"),
    **_rows("ts mts cts", "code", "Code", "typescript"),
    **_rows("tsx", "code", "Code", "tsx"),
    **_rows("go", "code", "Code", "go"),
    **_rows("rs", "code", "Code", "rust"),
    **_rows("java", "code", "Code", "java"),
    **_rows("c", "code", "Code", "c"),
    # a header may be either; C++'s grammar reads C's declarations too
    **_rows("h cc cpp cxx hpp hh hxx", "code", "Code", "cpp"),
    **_rows("cs", "code", "Code", "csharp"),
    **_rows("rb", "code", "Code", "ruby"),
    **_rows("sh bash zsh", "code", "Code", "bash"),
    # source and configuration without a grammar here: chunked as code, by lines
    **_rows(
        "kt kts scala php swift m mm fish ps1 sql lua pl pm r jl hs ml mli ex exs erl clj el vim dart zig nim "
        "css scss less vue svelte toml yaml yml ini cfg conf json xml gradle cmake mk proto graphql tf",
        "code",
        "Code",
    ),
    **_rows("pdf", "pdf", "Documents", ocr=True),
    **_rows("docx docm", "docx", "Documents"),
    **_rows("epub", "epub", "Documents"),
    **_rows("odt", "odt", "Documents"),
    **_rows("rtf", "rtf", "Documents"),
    **_rows("xlsx xlsm", "xlsx", "Spreadsheets"),
    **_rows("ods", "ods", "Spreadsheets"),
    **_rows("pptx pptm", "pptx", "Presentations"),
    **_rows("odp", "odp", "Presentations"),
    **_rows("ipynb", "notebook", "Notebooks"),
    **_rows("eml", "eml", "Mail"),
    **_rows("mbox", "mbox", "Mail"),
    # pictures: the words in their metadata, and by OCR in the picture (ingest/extractors/image.py)
    **_rows("jpg jpeg png tif tiff webp", "image", "Pictures", ocr=True),
    # Pillow does not decode HEIC: its metadata is read
    **_rows("heic", "image", "Pictures"),
    # a drawing's words: its title, description and labels, not its markup (ingest/extractors/svg.py)
    **_rows("svg", "svg", "Pictures"),
    # recordings: their tags (ingest/extractors/audio.py)
    **_rows("mp3 flac ogg opus m4a wav aiff aif wma", "audio", "Music"),
    # one file compressed is read as the file it holds; an archive's members are documents of their own
    **_rows("gz bz2 xz", "compressed", "Archives"),
    **_rows("zip", "zip", "Archives"),
    **_rows("7z", "7z", "Archives"),
    **_rows("tar tgz", "tar", "Archives"),
    # recognised but not read (no maintained reader): listed with the reason, never read as bytes
    **_rows("doc", "legacy-office", "Documents", unread="legacy Word format (.doc): not read; saved as .docx it is"),
    **_rows(
        "xls", "legacy-office", "Spreadsheets", unread="legacy Excel format (.xls): not read; saved as .xlsx it is"
    ),
    **_rows(
        "ppt",
        "legacy-office",
        "Presentations",
        unread="legacy PowerPoint format (.ppt): not read; saved as .pptx it is",
    ),
    # its reader (unrar) is not free to ship: named, so a search that misses a file inside one says why
    **_rows(
        "rar", "unread", "Archives", unread="RAR archive: its members are not read (zip, 7-Zip and tar archives' are)"
    ),
    # its one reader (extract-msg) is GPL-licensed and brings oletools and a GUI toolkit along
    **_rows("msg", "unread", "Mail", unread="Outlook message (.msg): not read; saved as .eml (Outlook: Save As) it is"),
    # never worth reading: their text, if any, is not the user's words
    **_rows(
        "gif bmp ico icns psd aac mp4 mkv avi mov webm wmv zst jar war whl deb rpm dmg iso img exe dll so dylib "
        "o a lib obj class pyc pyo wasm bin dat db sqlite duckdb wal onnx pt safetensors gguf npy npz parquet "
        "arrow ttf otf woff woff2 eot key pages numbers sketch fig blend fbx stl glb lock pdb idx pack swp",
        "never",
        "Other",
    ),
}


def extensions_read_by(*readers: str) -> frozenset[str]:
    """The extensions (no dot) that these readers read."""
    return frozenset(ext for ext, kind in KINDS.items() if kind.reader in readers)


def extensions_in(category: str) -> tuple[str, ...]:
    """The extensions (no dot) of a Type filter group, in the table's order."""
    return tuple(ext for ext, kind in KINDS.items() if kind.category == category)


def category_of(ext: str) -> str:
    """The group of an extension (no dot); "Other" for a kind the table does not list."""
    kind = KINDS.get(ext.lower())
    return kind.category if kind is not None else "Other"


# Groups of text people write to be read (pages, mail, notes), as against code, configuration and
# data: the embedder reaches them first (ingest/embedding.py).
PROSE_CATEGORIES = frozenset({"Documents", "Presentations", "Mail", "Notebooks", "Markdown", "Text", "Web pages"})
PROSE_EXTENSIONS = tuple(sorted(ext for ext, kind in KINDS.items() if kind.category in PROSE_CATEGORIES))


def is_prose(ext: str) -> bool:
    """Whether files with this extension (no dot) are prose; a file with none (README, a kernel's
    ABI notes) is read as prose, one of an unknown extension (.S, .dts, Kconfig's) as code."""
    return ext == "" or ext.lower() in PROSE_EXTENSIONS
