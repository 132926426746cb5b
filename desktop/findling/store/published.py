"""A published collection on a path or object storage: Lance datasets, written by one publisher
and read by any number of Findlings (ingest/sharing.py). No DuckDB here.

A collection at URI is two datasets:
- `documents.lance`: one row per document (its path, what dated and titled it, its whole text,
  and the vectors of its windows, with the text hash that names each window), and
- `versions.lance`: one row per publication, naming the version of `documents.lance` it made.
  A publication changes the documents in more than one commit (removals, then the changed and
  new rows); the row in `versions.lance` comes last, so a reader that reads the documents at
  the version it names sees one whole publication, never half of one.

Credentials and the endpoint come from the environment as the AWS tools read them
(AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ENDPOINT_URL); every call has a
time budget, so an unreachable collection is said, not waited on. Lance and pyarrow are the
optional `findling[shared]` extra, imported here only when a collection is used."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from findling.errors import SharedError
from findling.store.sql import text_list

if TYPE_CHECKING:
    import pyarrow as pa

FORMAT = 1  # the layout of a collection's rows; a reader refuses a newer one
DOCUMENTS = "documents.lance"
VERSIONS = "versions.lance"
# what one remote call may take before the collection is said to be unreachable
CONNECT_SECONDS = 3
REQUEST_SECONDS = 20


@dataclass(frozen=True)
class Publication:
    """One row of versions.lance: what a reader needs before it reads a document."""

    version: int  # of documents.lance
    name: str
    root: str  # the folder the documents were indexed from, on the publisher's machine
    embedder: str  # the vector key of the model that made the vectors ("" : none)
    dim: int
    documents: int
    published: float  # Unix time
    format: int = FORMAT
    self_test: str = ""  # the folder's self-test with that embedder (store/lane_weights.py), as JSON


@dataclass(frozen=True)
class PublishedDocument:
    """A document as published: what a reader's indexer needs to analyse it as its own."""

    path: str
    ext: str
    size: int
    mtime: float
    hash: str
    kind: str  # steers chunking, as an extractor's kind does
    title: str
    mime: str
    author: str
    dated: float
    link_share: float
    ocr_pages: int
    notes: str
    pages: tuple[int, ...]
    text: str
    chunks: tuple[tuple[int, int, str], ...] = ()  # (start, end, heading) as the publisher cut them
    window_hashes: tuple[int, ...] = ()
    vectors: Any = None  # float32 array (windows × dim), or None


def _lance() -> Any:
    import sys

    # store/db.py marks an absent pandas as known-absent (a None module), which pyarrow's lazy
    # pandas check takes for a module; it makes that check once, here, without the mark
    absent = "pandas" in sys.modules and sys.modules["pandas"] is None
    if absent:
        del sys.modules["pandas"]
    try:
        import lance
        import pyarrow

        _ = pyarrow.lib._pandas_api.have_pandas
    except ImportError:
        raise SharedError(
            "shared collections need the optional Lance library: pip install 'findling[shared]'"
        ) from None
    finally:
        if absent:
            sys.modules["pandas"] = None  # type: ignore[assignment]
    return lance


def storage_options(uri: str) -> dict[str, str]:
    """Time budgets for every collection; for s3:// the endpoint and HTTP as the AWS tools'
    environment says (Lance reads the keys and region from the environment itself)."""
    options = {
        "connect_timeout": f"{CONNECT_SECONDS}s",
        "timeout": f"{REQUEST_SECONDS}s",
        "client_max_retries": "1",
        "client_retry_timeout": str(REQUEST_SECONDS),
    }
    if uri.startswith("s3://"):
        endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
        if endpoint:
            options["aws_endpoint"] = endpoint
            if endpoint.startswith("http://"):
                options["allow_http"] = "true"
        region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
        if region:
            options["aws_region"] = region
    return options


def normalise_uri(uri: str) -> str:
    """A path becomes absolute (a collection on a shared folder); a URL stays as written."""
    if "://" in uri:
        return uri.rstrip("/")
    return os.path.abspath(os.path.expanduser(uri))


def _at(uri: str, name: str) -> str:
    return f"{uri.rstrip('/')}/{name}"


def _unreachable(uri: str, exc: BaseException) -> SharedError:
    return SharedError(f"cannot read the shared collection {uri}: {_said(exc)}")


def _said(exc: BaseException) -> str:
    """Lance's message as a person reads it: its first line, without the library's source
    locations, retry counters and request query strings, bounded."""
    import re

    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    text = text.removeprefix("LanceError(IO): ")
    text = re.sub(r", /(?:home|rust)/\S*.*$", "", text)  # where in Lance's source it was raised
    text = re.sub(r"\?\S*", "", text)  # a request's query string
    text = re.sub(r" in [\d.]+[mµn]?s(, after \d+ retries)?(, max_retries: \d+)?(, retry_timeout: \w+)?", "", text)
    text = re.sub(r"\s+- HTTP error: ", ": ", text)
    return text[:240]


def _open(uri: str, name: str, version: int | None = None) -> Any:
    lance = _lance()
    return lance.dataset(_at(uri, name), version=version, storage_options=storage_options(uri))


def _not_found(exc: BaseException) -> bool:
    """Lance's word for a dataset that is not there (not an endpoint that answered 404)."""
    return isinstance(exc, FileNotFoundError) or "was not found" in str(exc)


def latest(uri: str) -> Publication:
    """The collection's last publication; SharedError when it cannot be read or is not one."""
    try:
        rows = _open(uri, VERSIONS).to_table().to_pylist()
    except SharedError:
        raise
    except Exception as exc:
        if _not_found(exc):
            raise SharedError(f"no published collection at {uri}") from None
        raise _unreachable(uri, exc) from None
    if not rows:
        raise SharedError(f"no published collection at {uri}")
    row = max(rows, key=lambda r: int(r["version"]))
    if int(row["format"]) > FORMAT:
        raise SharedError(f"{uri} was published by a newer Findling (format {row['format']}): update Findling")
    return Publication(
        int(row["version"]),
        str(row["name"]),
        str(row["root"]),
        str(row["embedder"]),
        int(row["dim"]),
        int(row["documents"]),
        float(row["published"]),
        int(row["format"]),
        str(row.get("self_test") or ""),
    )


def published_keys(uri: str, version: int) -> dict[str, tuple[str, float, int]]:
    """Path -> (hash, mtime, vectors) of every document in that version: what tells a reader,
    or the next publication, which documents changed."""
    import pyarrow.compute as pc

    try:
        table = _open(uri, DOCUMENTS, version).to_table(columns=["path", "hash", "mtime", "window_hashes"])
    except Exception as exc:
        raise _unreachable(uri, exc) from None
    windows = pc.fill_null(pc.list_value_length(table.column("window_hashes")), 0).to_pylist()
    return {
        p: (h, m, int(w))
        for p, h, m, w in zip(
            table.column("path").to_pylist(),
            table.column("hash").to_pylist(),
            table.column("mtime").to_pylist(),
            windows,
            strict=True,
        )
    }


def read_documents(uri: str, version: int, paths: Sequence[str], batch: int = 256) -> Iterator[list[PublishedDocument]]:
    """These documents of that version, in batches, vectors and all: most of the collection by
    one pass over it, a few by their paths."""
    try:
        dataset = _open(uri, DOCUMENTS, version)
        total = dataset.count_rows()
    except Exception as exc:
        raise _unreachable(uri, exc) from None
    if not paths:
        return
    if len(paths) * 2 >= total:
        wanted = set(paths)
        parts = iter(dataset.to_batches(batch_size=batch))
        while True:
            try:
                part = next(parts)
            except StopIteration:
                return
            except Exception as exc:
                raise _unreachable(uri, exc) from None
            found = [d for d in _readable(uri, part) if d.path in wanted]
            if found:
                yield found
    for at in range(0, len(paths), batch):
        try:
            table = dataset.to_table(filter=f"path IN {text_list(paths[at : at + batch])}")
        except Exception as exc:
            raise _unreachable(uri, exc) from None
        yield _readable(uri, table)


def _readable(uri: str, table: Any) -> list[PublishedDocument]:
    """The rows as documents, or a SharedError saying the dataset is not one Findling reads."""
    try:
        return _documents(table)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SharedError(f"{uri} is not a collection this Findling can read ({type(exc).__name__}: {exc})") from None


# a document's one-value columns, each with what its value must be (a damaged or foreign
# dataset's other types fail here, said, instead of further in)
_PLAIN: dict[str, Any] = {
    "path": str,
    "ext": str,
    "size": int,
    "mtime": float,
    "hash": str,
    "kind": str,
    "title": str,
    "mime": str,
    "author": str,
    "dated": float,
    "link_share": float,
    "ocr_pages": int,
    "notes": str,
    "text": str,
}


def _documents(table: Any) -> list[PublishedDocument]:
    """Rows as documents; the vectors go to numpy without a Python float each."""
    import numpy as np

    rows = table.select([n for n in table.schema.names if n != "vectors"]).to_pylist()
    vectors = table.column("vectors")
    vectors = vectors.combine_chunks() if hasattr(vectors, "combine_chunks") else vectors
    offsets = vectors.offsets.to_numpy()
    flat = vectors.values  # one entry per window: a fixed-size list of the model's dimension
    dim = flat.type.list_size if hasattr(flat.type, "list_size") else 0
    values = flat.flatten().to_numpy(zero_copy_only=False).astype(np.float32, copy=False) if dim > 0 else None
    out = []
    for i, r in enumerate(rows):
        lo, hi = int(offsets[i]), int(offsets[i + 1])
        block = values[lo * dim : hi * dim].reshape(hi - lo, dim) if values is not None and hi > lo else None
        out.append(
            PublishedDocument(
                **{name: kind(r[name]) for name, kind in _PLAIN.items()},
                pages=tuple(int(p) for p in r["pages"] or ()),
                chunks=tuple((int(c["start"]), int(c["end"]), str(c["heading"])) for c in r["chunks"] or ()),
                window_hashes=tuple(int(h) for h in r["window_hashes"] or ()),
                vectors=block,
            )
        )
    return out


def _schema(dim: int) -> pa.Schema:
    import pyarrow as pa

    vector = pa.list_(pa.float32(), dim) if dim > 0 else pa.list_(pa.float32())
    return pa.schema(
        [
            ("path", pa.string()),
            ("ext", pa.string()),
            ("size", pa.int64()),
            ("mtime", pa.float64()),
            ("hash", pa.string()),
            ("kind", pa.string()),
            ("title", pa.string()),
            ("mime", pa.string()),
            ("author", pa.string()),
            ("dated", pa.float64()),
            ("link_share", pa.float32()),
            ("ocr_pages", pa.int32()),
            ("notes", pa.string()),
            ("pages", pa.list_(pa.int32())),
            ("text", pa.large_string()),
            ("chunks", pa.list_(pa.struct([("start", pa.int32()), ("end", pa.int32()), ("heading", pa.string())]))),
            ("window_hashes", pa.list_(pa.uint64())),
            ("vectors", pa.list_(vector)),
        ]
    )


def _table(documents: Sequence[PublishedDocument], dim: int) -> pa.Table:
    import pyarrow as pa

    columns: dict[str, list[Any]] = {name: [] for name in _schema(dim).names}
    for d in documents:
        for name in _PLAIN:
            columns[name].append(getattr(d, name))
        columns["pages"].append(list(d.pages))
        columns["chunks"].append([{"start": s, "end": e, "heading": h} for s, e, h in d.chunks])
        columns["window_hashes"].append(list(d.window_hashes))
        columns["vectors"].append([] if d.vectors is None else [list(map(float, v)) for v in d.vectors])
    return pa.table(columns, schema=_schema(dim))


def publish(
    uri: str,
    publication: Publication,
    changed: Iterator[list[PublishedDocument]],
    keep: set[str] | frozenset[str],
) -> Publication:
    """Write one publication: the rows of paths not in `keep` go, the changed rows replace
    their paths' rows, then versions.lance names the documents' version. Rows are compared
    with the documents as they stand, not as the last publication named them: a publication
    that failed half way left rows no reader saw, and this one replaces them. Returns the row
    written."""
    lance = _lance()
    options = storage_options(uri)
    docs_uri = _at(uri, DOCUMENTS)
    try:
        try:
            dataset = lance.dataset(docs_uri, storage_options=options)
        except Exception as exc:
            if not _not_found(exc):
                raise
            dataset = None
        held: set[str] = set()
        if dataset is not None:
            held = set(dataset.to_table(columns=["path"]).column("path").to_pylist())
            gone = sorted(held - keep)
            for at in range(0, len(gone), 500):
                dataset.delete(f"path IN {text_list(gone[at : at + 500])}")
        for part in changed:
            if not part:
                continue
            table = _table(part, publication.dim)
            if dataset is None:
                dataset = lance.write_dataset(table, docs_uri, mode="create", storage_options=options)
                continue
            old = [d.path for d in part if d.path in held]
            if old:
                dataset.delete(f"path IN {text_list(old)}")
            dataset = lance.write_dataset(table, docs_uri, mode="append", storage_options=options)
        if dataset is None:  # an empty folder: an empty collection, still a collection
            dataset = lance.write_dataset(_table([], publication.dim), docs_uri, mode="create", storage_options=options)
        dataset = lance.dataset(docs_uri, storage_options=options)
        done = Publication(
            dataset.version,
            publication.name,
            publication.root,
            publication.embedder,
            publication.dim,
            dataset.count_rows(),
            time.time(),
            self_test=publication.self_test,
        )
        _append_version(uri, done)
    except SharedError:
        raise
    except Exception as exc:
        raise SharedError(f"cannot write the shared collection {uri}: {_said(exc)}") from None
    return done


def _append_version(uri: str, p: Publication) -> None:
    import pyarrow as pa

    lance = _lance()
    row = pa.table(
        {
            "version": pa.array([p.version], pa.int64()),
            "name": [p.name],
            "root": [p.root],
            "embedder": [p.embedder],
            "dim": pa.array([p.dim], pa.int32()),
            "documents": pa.array([p.documents], pa.int64()),
            "published": pa.array([p.published], pa.float64()),
            "format": pa.array([p.format], pa.int32()),
            "self_test": [p.self_test],
        }
    )
    target = _at(uri, VERSIONS)
    options = storage_options(uri)
    try:
        lance.dataset(target, storage_options=options)
        mode = "append"
    except Exception as exc:
        if not _not_found(exc):
            raise
        mode = "create"
    lance.write_dataset(row, target, mode=mode, storage_options=options)
