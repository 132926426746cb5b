"""The database schema and its migrations. Each migration runs once, in a transaction,
and keeps existing data; the version lives in `meta`."""

from __future__ import annotations

import os
from collections.abc import Callable

import duckdb

from findling.errors import SchemaTooNewError
from findling.store.documents import document_text, write_title_terms
from findling.store.maintenance import sort_title_postings
from findling.store.sql import id_list
from findling.store.vectors import create_vector_table
from findling.text.analyzer import DEFAULT_LANGUAGE, LETTERS_CLASS, UNSPACED_CLASS, title_terms
from findling.text.code_languages import LANGUAGE_OF_EXTENSION

Migration = list[str] | Callable[[duckdb.DuckDBPyConnection], None]


def _hash_vectors(con: duckdb.DuckDBPyConnection) -> None:
    """Schema 6: vectors carry the hash of the text they were computed from, changed
    documents' vectors wait for reuse, and HTML is read again for its main content only.

    The vector tables are copied into new ones rather than altered: DuckDB 1.5.5 cannot
    replay an ALTER TABLE ADD COLUMN on a table with a function default from the WAL."""

    con.execute(
        "CREATE TABLE IF NOT EXISTS stale_vectors "
        "(table_name VARCHAR NOT NULL, hash UBIGINT NOT NULL, vec FLOAT[] NOT NULL)"
    )
    for model, table, dim in con.execute("SELECT model, table_name, dim FROM vector_models").fetchall():
        hashed = con.execute(
            "SELECT count(*) FROM information_schema.columns WHERE table_name = ? AND column_name = 'hash'", [table]
        ).fetchall()[0][0]
        if hashed:
            continue
        fresh = f"{table}_h"
        create_vector_table(con, fresh, dim)
        con.execute(f"""INSERT INTO {fresh} SELECT seq, doc_id, ordinal, start_char, end_char, vec, NULL
                        FROM {table} ORDER BY seq""")
        con.execute(f"DROP TABLE {table}")
        con.execute("UPDATE vector_models SET table_name = ? WHERE model = ?", [fresh, model])
    # Pages lost their navigation, sidebars and footers (ingest/extractors/html.py).
    con.execute("UPDATE documents SET size = -1, hash = NULL WHERE ext IN ('html', 'htm', 'xhtml', 'shtml', 'epub')")


def _sorted_title_postings(con: duckdb.DuckDBPyConnection) -> None:
    """Schema 17: the title field's postings in term order (store/maintenance.py keeps them so)."""

    sort_title_postings(con)


def _title_field(con: duckdb.DuckDBPyConnection) -> None:
    """Schema 10: the title field (a document's title and file name), whose query words the
    keyword lane weighs (search/keyword/lane.py). Filled here from what the index holds: nothing
    is read again."""

    con.execute("CREATE TABLE IF NOT EXISTS title_postings (term_id INTEGER NOT NULL, doc_id INTEGER NOT NULL)")
    rows = con.execute("SELECT id, coalesce(title, ''), path, language FROM documents WHERE status = 'ok'").fetchall()
    write_title_terms(
        con,
        [
            (doc_id, sorted(title_terms(title, os.path.basename(path), language or DEFAULT_LANGUAGE)))
            for doc_id, title, path, language in rows
        ],
    )


_GRAMMAR_EXTENSIONS = ", ".join(f"'{ext}'" for ext in sorted(LANGUAGE_OF_EXTENSION))


def _near_signatures(con: duckdb.DuckDBPyConnection) -> None:
    """Schema 13: each document's MinHash signature (text/shingles.py), to list nearly identical
    documents once. Computed here from the text the index holds, in slices of documents:
    nothing is read again from disk."""
    con.execute("CREATE TABLE IF NOT EXISTS near_signatures (doc_id INTEGER NOT NULL, sig BLOB NOT NULL)")
    _sign(con, [r[0] for r in con.execute("SELECT id FROM documents WHERE status = 'ok' ORDER BY id").fetchall()])


def _sign(con: duckdb.DuckDBPyConnection, ids: list[int]) -> None:
    """Write the signatures of these documents (ascending ids) from the text the index holds,
    in slices of documents, in place of any they had."""
    from findling.text.shingles import signature  # numpy: only an upgrade or ingest loads it

    for at in range(0, len(ids), 500):
        part = ids[at : at + 500]
        rows = con.execute(
            f"""SELECT doc_id, start_char, end_char, text FROM chunks
                WHERE doc_id BETWEEN {part[0]} AND {part[-1]} ORDER BY doc_id, ordinal"""
        ).fetchall()
        by_doc: dict[int, list[tuple[int, int, str]]] = {}
        wanted = set(part)
        for doc_id, start, end, text in rows:
            if doc_id in wanted:
                by_doc.setdefault(doc_id, []).append((start, end, text))
        con.execute(f"DELETE FROM near_signatures WHERE doc_id IN {id_list(part)}")
        found = [(doc_id, sig) for doc_id, chunks in by_doc.items() if (sig := signature(document_text(chunks)))]
        if found:
            con.executemany("INSERT INTO near_signatures VALUES (?, ?)", found)


def _signatures_without_typography(con: duckdb.DuckDBPyConnection) -> None:
    """Schema 20: signatures read punctuation past ASCII (’ “ ” — ¶) as spaces, not letters
    (text/shingles.py), so that a rendered page and its source are known as nearly the same.
    Only documents holding such characters change; theirs are computed again here from the
    text the index holds: nothing is read again from disk."""
    from findling.text.shingles import SEPARATORS_CLASS

    ids = con.execute(
        f"""SELECT DISTINCT c.doc_id FROM chunks c JOIN documents d ON d.id = c.doc_id
            WHERE d.status = 'ok' AND regexp_matches(c.text, '{SEPARATORS_CLASS}') ORDER BY 1"""
    ).fetchall()
    _sign(con, [r[0] for r in ids])


# Why no PRIMARY KEY / UNIQUE on documents or postings: DuckDB keeps ART indexes in
# memory and rewrites them on update; ids come from sequences and the indexer is the
# only writer, so the constraints would cost memory and buy nothing. `terms.term` is
# the exception: every query looks terms up by name.
MIGRATIONS: list[Migration] = [
    [
        "CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR)",
        "CREATE SEQUENCE source_ids START 1",
        """CREATE TABLE sources (
            id INTEGER NOT NULL, path VARCHAR NOT NULL,
            include VARCHAR[] NOT NULL DEFAULT [], exclude VARCHAR[] NOT NULL DEFAULT [],
            added_at TIMESTAMP DEFAULT current_timestamp)""",
        "CREATE SEQUENCE doc_ids START 1",
        """CREATE TABLE documents (
            id INTEGER NOT NULL, source_id INTEGER NOT NULL, path VARCHAR NOT NULL,
            ext VARCHAR NOT NULL, size BIGINT NOT NULL, mtime DOUBLE NOT NULL, hash VARCHAR,
            title VARCHAR, language VARCHAR, mime VARCHAR,
            status VARCHAR NOT NULL,  -- ok | failed | skipped
            error VARCHAR, length REAL NOT NULL DEFAULT 0,
            indexed_at TIMESTAMP DEFAULT current_timestamp)""",
        """CREATE TABLE chunks (
            doc_id INTEGER NOT NULL, ordinal INTEGER NOT NULL, text VARCHAR NOT NULL,
            start_char INTEGER NOT NULL, end_char INTEGER NOT NULL, heading VARCHAR NOT NULL DEFAULT '')""",
        "CREATE SEQUENCE term_ids START 1",
        # df (documents holding the term) is kept with the term, in the same transaction
        # as the postings, so a query learns its terms' idf from the lookup it makes anyway.
        "CREATE TABLE terms (id INTEGER NOT NULL, term VARCHAR NOT NULL UNIQUE, df INTEGER NOT NULL DEFAULT 0)",
        # dl (the document's length) is copied into each posting so that scoring needs no
        # join with documents unless a filter asks for one.
        "CREATE TABLE postings (term_id INTEGER NOT NULL, doc_id INTEGER NOT NULL, tf REAL NOT NULL, dl REAL NOT NULL)",
    ],
    [
        # One table of FLOAT[dim] vectors per embedding model (see store/vectors.py).
        "CREATE SEQUENCE vector_seq START 1",
        """CREATE TABLE vector_models (
            model VARCHAR NOT NULL, table_name VARCHAR NOT NULL, dim INTEGER NOT NULL,
            created_at TIMESTAMP DEFAULT current_timestamp)""",
    ],
    [
        # Query expansions, cached by (query, model): generation is the slowest stage.
        """CREATE TABLE expansions (
            query VARCHAR NOT NULL, model VARCHAR NOT NULL, raw VARCHAR NOT NULL,
            created_at TIMESTAMP DEFAULT current_timestamp)""",
    ],
    [
        # The exact bytes of the rare path that is not valid UTF-8 (see pathnames.py); the
        # `path` column holds its readable form. Side tables, not new columns: DuckDB 1.5.5
        # fails to replay an ALTER TABLE ADD COLUMN on these tables from the WAL (their
        # `DEFAULT current_timestamp`), so a kill right after the upgrade would lose the index.
        "CREATE TABLE raw_paths (doc_id INTEGER NOT NULL, raw BLOB NOT NULL)",
        "CREATE TABLE source_raw_paths (source_id INTEGER NOT NULL, raw BLOB NOT NULL)",
    ],
    [
        # Chinese, Japanese, Korean, Thai... became overlapping bigrams (text/analyzer.py):
        # documents holding such text are read again by the next `index` (a size that
        # matches no file and no hash make them changed), everything else is kept.
        f"""UPDATE documents SET size = -1, hash = NULL
            WHERE id IN (SELECT DISTINCT doc_id FROM chunks WHERE regexp_matches(text, '{UNSPACED_CLASS}'))""",
    ],
    _hash_vectors,
    [
        # Where each page of a PDF begins in its text, so a result can name its page and the
        # viewer open there. PDFs are read again by the next `index` to fill it in; their
        # vectors are reused (the text is the same).
        "CREATE TABLE IF NOT EXISTS pages "
        "(doc_id INTEGER NOT NULL, page INTEGER NOT NULL, start_char INTEGER NOT NULL)",
        "UPDATE documents SET size = -1, hash = NULL WHERE ext = 'pdf'",
    ],
    [
        # Ligatures and letters without a decomposition (œ, æ, ø, ł, ð, þ…) fold to what people
        # type (text/analyzer.py): documents holding them are read again by the next `index`.
        f"""UPDATE documents SET size = -1, hash = NULL
            WHERE id IN (SELECT DISTINCT doc_id FROM chunks WHERE regexp_matches(text, '{LETTERS_CLASS}'))""",
    ],
    [
        # A document's author (an e-mail's sender), from its properties: `author:` filters by it and
        # its words find the document. A side table, as raw_paths (documents cannot be altered
        # safely). Files whose formats carry one are read again by the next `index`.
        "CREATE TABLE IF NOT EXISTS doc_fields (doc_id INTEGER NOT NULL, author VARCHAR NOT NULL)",
        """UPDATE documents SET size = -1, hash = NULL
            WHERE ext IN ('pdf', 'docx', 'docm', 'epub', 'odt', 'ods', 'odp', 'xlsx', 'xlsm', 'pptx', 'pptm', 'eml')""",
    ],
    _title_field,
    [
        # A web page's share of text inside links: index and contents pages are nearly all links,
        # and keyword search ranks them below pages of content (search/keyword/lane.py). Web pages are
        # read again by the next `index` to measure it; their vectors are reused.
        "CREATE TABLE IF NOT EXISTS link_shares (doc_id INTEGER NOT NULL, share REAL NOT NULL)",
        "UPDATE documents SET size = -1, hash = NULL WHERE ext IN ('html', 'htm', 'xhtml', 'shtml')",
    ],
    [
        # A source file's definitions (ingest/code_symbols.py): `sym:`, outlines, and results named by
        # the function they fall in. Source files with a grammar are read again by the next `index`
        # (chunked at their definitions now); vectors of unchanged windows are reused.
        """CREATE TABLE IF NOT EXISTS symbols (
            doc_id INTEGER NOT NULL, name VARCHAR NOT NULL, qualname VARCHAR NOT NULL, kind VARCHAR NOT NULL,
            start_char INTEGER NOT NULL, end_char INTEGER NOT NULL, line INTEGER NOT NULL,
            end_line INTEGER NOT NULL, signature VARCHAR NOT NULL, doc VARCHAR NOT NULL)""",
        f"UPDATE documents SET size = -1, hash = NULL WHERE ext IN ({_GRAMMAR_EXTENSIONS})",
    ],
    _near_signatures,
    [
        # How many of a document's pictures or scanned pages OCR read (ingest/ocr_pages.py): status
        # and results say the text came from OCR. Nothing is read again for it: turning OCR on
        # changes the hashes of pictures and PDFs, and the next `index` reads those.
        "CREATE TABLE IF NOT EXISTS ocr_pages (doc_id INTEGER NOT NULL, pages INTEGER NOT NULL)",
    ],
    [
        # Documents inside files (an archive's members, addressed `bundle.zip › docs/inner.md`),
        # each with the file they go with. Archives are read again by the next `index`: their
        # members become documents of their own.
        "CREATE TABLE IF NOT EXISTS members (doc_id INTEGER NOT NULL, container_id INTEGER NOT NULL)",
        "UPDATE documents SET size = -1, hash = NULL "
        "WHERE ext IN ('zip', 'tar', 'tgz', 'tbz2', 'txz', 'gz', 'bz2', 'xz')",
    ],
    [
        # Mail read again: each attachment, attached message and mailbox message becomes a
        # document of its own (`message.eml › report.docx`), no longer text inside its file.
        "UPDATE documents SET size = -1, hash = NULL WHERE ext IN ('eml', 'mbox')",
    ],
    _sorted_title_postings,
    [
        # A web page's entries pointing elsewhere count as links (ingest/extractors/html.py,
        # entry_share): a module index whose rows carry a line of description, a glossary, an API
        # index. Web pages are read again by the next `index` to measure it; their vectors are reused.
        "UPDATE documents SET size = -1, hash = NULL WHERE ext IN ('html', 'htm', 'xhtml', 'shtml')",
    ],
    [
        # A file of markup read as text (XML, a Devhelp index of every function of a manual) holds
        # its share of lines that link elsewhere (html.markup_link_share). Documents whose text
        # begins with a tag are read again by the next `index`; their vectors are reused.
        """UPDATE documents SET size = -1, hash = NULL
            WHERE ext NOT IN ('html', 'htm', 'xhtml', 'shtml')
              AND id IN (SELECT doc_id FROM chunks WHERE ordinal = 0 AND starts_with(ltrim(text), '<'))""",
    ],
    _signatures_without_typography,
    [
        # A NUL or two in text that is otherwise UTF-8 is text (ingest/extractors/text.py): files
        # that failed as binary content are read again by the next `index`.
        """UPDATE documents SET size = -1, hash = NULL
            WHERE status = 'failed' AND starts_with(coalesce(error, ''), 'binary content in a ')""",
    ],
    [
        # Plain text and Markdown opening with an underlined line or an AsciiDoc title line are
        # titled by it (ingest/extractors/text.py, underlined_title): such files are read again
        # by the next `index`. A new title is in each passage the embedder reads, so those are
        # embedded again (Git's 241 manual pages in AsciiDoc: 2.0 s read, 153 s embedded).
        r"""UPDATE documents SET size = -1, hash = NULL
            WHERE ext NOT IN ('html', 'htm', 'xhtml', 'shtml', 'rst')
              AND id IN (SELECT doc_id FROM chunks WHERE ordinal = 0
                         AND regexp_matches(text, '^\s*(=[ \t]+\S|[^\n]{1,120}\n[ \t]*(===|---|~~~))'))""",
        # A file of no known type whose bytes no text encoding reads is not text (ingest/extract.py):
        # those listed as failures are read again by the next `index`, which leaves them out.
        "UPDATE documents SET size = -1, hash = NULL "
        "WHERE status = 'failed' AND error = 'cannot detect the text encoding'",
    ],
    [
        # A language is told by how many of its function words a text uses, not how often it
        # repeats one (text/language.py): program text was read as German or Spanish, a table of
        # os.* names as Portuguese. Documents read as a language of spaced words other than
        # English are read again by the next `index`; their passages, and so vectors, stay.
        "UPDATE documents SET size = -1, hash = NULL "
        "WHERE coalesce(language, '') NOT IN ('', 'en', 'ja', 'zh', 'ko', 'th', 'lo', 'km', 'my')",
    ],
    [
        # Word positions, one row per posting (search/keyword/phrases.py): quoted phrases and NEAR are
        # matched in every document, not only in the first keyword candidates. Every document
        # without them is read again by the next `index`; its passages, and so vectors, stay.
        """CREATE TABLE IF NOT EXISTS positions (
            term_id INTEGER NOT NULL, doc_id INTEGER NOT NULL, pos INTEGER[] NOT NULL)""",
        """UPDATE documents SET size = -1, hash = NULL
            WHERE status = 'ok' AND length > 0 AND id NOT IN (SELECT doc_id FROM positions)""",
    ],
    [
        # A name for this index, kept by its copies: what the vector files beside it belong to
        # (search/vector_snapshot.py)
        "INSERT INTO meta VALUES ('index_id', CAST(uuid() AS VARCHAR)) ON CONFLICT (key) DO NOTHING",
    ],
    [
        # When a document says it was written (an e-mail's Date header), apart from its file's mtime,
        # which tells whether the file changed: `after:`/`before:`, the Date column and newer-first
        # read it (store/documents.py dated_sql). Messages are read again by the next `index`.
        "CREATE TABLE IF NOT EXISTS doc_dates (doc_id INTEGER NOT NULL, dated DOUBLE NOT NULL)",
        "UPDATE documents SET size = -1, hash = NULL WHERE ext = 'eml'",
    ],
    [
        # A spreadsheet row keeps its empty cells' places (ingest/extractors/office.py): values
        # stood under other columns' headings. Spreadsheets are read again by the next `index`.
        "UPDATE documents SET size = -1, hash = NULL WHERE ext IN ('xlsx', 'xlsm', 'ods')",
    ],
    [
        # One table of file kinds (file_kinds.py): TypeScript's .mts/.cts and C++'s .hxx, which the
        # grammars read but ingest took for plain text, are source files now. Read again.
        "UPDATE documents SET size = -1, hash = NULL WHERE ext IN ('mts', 'cts', 'hxx')",
    ],
    [
        # Every document's first window before any document's second (ingest/embedding.py): the
        # documents embedded so far by their first window only, and why the rest is held back
        # ("" while it waits). Documents embedded before are whole: none is listed.
        """CREATE TABLE IF NOT EXISTS vector_reach (
            table_name VARCHAR NOT NULL, doc_id INTEGER NOT NULL, held VARCHAR NOT NULL)""",
    ],
    [
        # A word goes on through its combining marks and soft hyphens (text/analyzer.py): text
        # written decomposed (`nai` U+0308 `ve`), Indic scripts and `data&shy;base` fell apart
        # into pieces. Documents holding a mark or an ignorable are read again by the next
        # `index`; their passages, and so vectors, stay.
        r"""UPDATE documents SET size = -1, hash = NULL
            WHERE id IN (SELECT DISTINCT doc_id FROM chunks
                         WHERE regexp_matches(text, '[\pM\x{00AD}\x{200C}\x{200D}\x{2060}\x{FEFF}]'))""",
    ],
    [
        # A .doc, .xls or .ppt that is text (or RTF) inside is read as what it is, not skipped as
        # legacy Office; an SVG picture gives its title, description and labels, not its markup
        # (ingest/extract.py). Such files are read again by the next `index`.
        "UPDATE documents SET size = -1, hash = NULL WHERE ext IN ('doc', 'xls', 'ppt', 'svg')",
    ],
    [
        # The folders whose .gitignore files Findling does not follow (a row each): Debian's kernel
        # tree ignores `/*` at its root, and nothing was read. A side table, as raw_paths.
        "CREATE TABLE IF NOT EXISTS source_options (source_id INTEGER NOT NULL, gitignore BOOLEAN NOT NULL)",
    ],
    [
        # Each folder's self-test (search/lane_balance.py): how its own documents, questioned by
        # themselves, say the two lanes are to be weighed in hybrid search (store/lane_weights.py)
        """CREATE TABLE IF NOT EXISTS lane_weights (
            source_id INTEGER NOT NULL, model VARCHAR NOT NULL, documents INTEGER NOT NULL,
            queries INTEGER NOT NULL, meaning DOUBLE NOT NULL, by_kind VARCHAR NOT NULL,
            mrr_shipped DOUBLE NOT NULL, mrr_chosen DOUBLE NOT NULL, seconds DOUBLE NOT NULL,
            made DOUBLE NOT NULL)""",
    ],
    [
        # Collections another Findling published (ingest/sharing.py), attached read-only: each is a
        # source whose documents come from its publication, not from scanning a folder here
        # (store/attached.py)
        """CREATE TABLE IF NOT EXISTS attached (
            source_id INTEGER NOT NULL, uri VARCHAR NOT NULL, name VARCHAR NOT NULL,
            version BIGINT NOT NULL, embedder VARCHAR NOT NULL, documents INTEGER NOT NULL,
            checked DOUBLE NOT NULL, error VARCHAR NOT NULL)""",
    ],
]

SCHEMA_VERSION = len(MIGRATIONS)


def current_version(con: duckdb.DuckDBPyConnection) -> int:
    # fetchall, not fetchone: a result left open keeps its transaction open on this
    # connection, and DuckDB then refuses every CHECKPOINT of the process.
    exists = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'meta' AND table_schema = 'main'"
    ).fetchall()[0][0]
    if not exists:
        return 0
    rows = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchall()
    return int(rows[0][0]) if rows else 0


def migrate(con: duckdb.DuckDBPyConnection) -> int:
    version = current_version(con)
    if version > SCHEMA_VERSION:
        raise SchemaTooNewError(
            f"this index was written by a newer Findling (schema {version}, this version knows "
            f"{SCHEMA_VERSION}); update Findling to open it"
        )
    for target in range(version, SCHEMA_VERSION):
        con.execute("BEGIN TRANSACTION")
        try:
            migration = MIGRATIONS[target]
            if callable(migration):
                migration(con)
            else:
                for statement in migration:
                    con.execute(statement)
            con.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", [str(target + 1)])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    return SCHEMA_VERSION
