"""Errors a user can meet. Each says what is so; what the user can do about it is a `Remedy`,
which each face words its own way (a command in the terminal, a menu in the window:
faces/presentation.py)."""

from __future__ import annotations

from enum import StrEnum


class Remedy(StrEnum):
    """What would set a situation right, as a fact; `subject` (beside it) names what it acts on."""

    UPDATE_INDEX = "update_index"  # read the folders again
    UPDATE_OR_WAIT = "update_or_wait"  # as above, or wait for the run in progress to reach it
    ADD_FOLDER = "add_folder"  # the file's folder is not a source
    GET_MODEL = "get_model"  # subject: the model's name
    LIST_MEMBERS = "list_members"  # subject: the container whose listing names its members
    SHOW_MORE = "show_more"  # subject: how many results would reach it


class FindlingError(Exception):
    """Base class: the message says what is so, as it is shown; `remedy` and `subject`, when
    set, say what would set it right, for each face to word."""

    def __init__(self, *args: object, remedy: Remedy | None = None, subject: str = "") -> None:
        super().__init__(*args)
        self.remedy = remedy
        self.subject = subject


class StoreLockedError(FindlingError):
    """Another process (usually the running app) holds the database."""


class StoreCorruptError(FindlingError):
    """The database file cannot be opened as a Findling index."""


class StoreReadOnlyError(FindlingError):
    """The data directory cannot be written."""


class StoreWriteError(FindlingError):
    """A write to the index failed (disk full, I/O error); the transaction was rolled back."""


class SchemaTooNewError(FindlingError):
    """The database was written by a newer Findling."""


class ExtensionError(FindlingError):
    """A DuckDB extension is missing or does not match the engine version."""


class SourceError(FindlingError):
    """A folder cannot be added or removed as a source."""


class SourceGoneError(SourceError):
    """A write for a folder that was removed meanwhile (a run still indexing it): refused, so
    nothing of a removed folder comes back."""


class QuerySyntaxError(FindlingError):
    """A query filter has a value Findling cannot read (e.g. a bad date)."""


# The longest search or question any face takes (CLI, window, MCP, HTTP): a page pasted as a
# question took the generator 216 s and 6.5 GB, a megabyte failed inside onnxruntime.
MAX_QUERY_CHARS = 2_000


def check_query_length(text: str, what: str = "a search") -> None:
    """A QuerySyntaxError saying the cap when `text` is longer than MAX_QUERY_CHARS."""
    if len(text) > MAX_QUERY_CHARS:
        raise QuerySyntaxError(
            f"{what} is at most {MAX_QUERY_CHARS:,} characters; this one has {len(text):,}: shorten it"
        )


class NotFoundError(FindlingError):
    """A document reference (a docid or a path) that names no indexed document."""


class ExtractionError(FindlingError):
    """A file's text cannot be extracted; recorded on the document and skipped."""


class SharedError(FindlingError):
    """A published collection that cannot be read or written: unreachable, not a collection, or
    the optional Lance library not installed."""
