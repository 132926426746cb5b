"""Errors a user can meet. Each carries a message a person can act on."""


class FindlingError(Exception):
    """Base class: the message is shown to the user as it is."""


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


class NotFoundError(FindlingError):
    """A document reference (a docid or a path) that names no indexed document."""


class ExtractionError(FindlingError):
    """A file's text cannot be extracted; recorded on the document and skipped."""
