"""The engine's half of shared collections (ingest/sharing.py does the work): publishing a folder
of this index, attaching another's publication as a read-only source, and bringing every
attached copy up to date in an `index` run."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from findling.errors import FindlingError, SharedError, SourceError
from findling.models.service import ModelService
from findling.pathnames import display_path
from findling.records import PublishReport, Source
from findling.settings import IndexSettings
from findling.store.attached import attached_by_source, insert_attached
from findling.store.db import Database
from findling.store.published import latest, normalise_uri
from findling.store.sources import insert_source, inside
from findling.store.vectors import table_for

if TYPE_CHECKING:
    from findling.ingest.sharing import VectorModel


def vector_model(db: Database, models: ModelService) -> VectorModel | None:
    """The embedder in use here, when one is installed and its dimension is known."""
    # ingest (and numpy with it) loads only for a publication or a copy: a keyword search
    # that asks whether a source is shared stays light
    from findling.ingest.sharing import VectorModel

    if models.unavailable_reason("embedder") is not None:
        return None
    try:
        spec = models.spec("embedder")
    except FindlingError:
        return None
    found = table_for(db.cursor(), spec.vector_key)
    dim = spec.dimension or (found[1] if found else 0)
    return VectorModel(spec.vector_key, dim) if dim else None


def attach(db: Database, sources: Sequence[Source], uri: str, name: str = "") -> Source:
    """Attach the collection published at `uri` (read now: it must be reachable and be one);
    its documents are copied in by the next `index` run."""
    uri = normalise_uri(uri)
    for source in sources:
        if source.shared == uri:
            return source
    last = latest(uri)
    name = name or last.name
    for source in sources:
        if inside(source.path, last.root) or inside(last.root, source.path):
            what = f"the shared collection {source.shared}" if source.shared else "a folder of this index"
            raise SourceError(
                f"{uri} was published from {display_path(last.root)}, which overlaps {what} "
                f"({display_path(source.path)}): detach or remove that first"
            )
    if name in {held.name for held in attached_by_source(db.cursor()).values()}:
        raise SourceError(f"a shared collection here is already named {name}: attach with --name OTHER")
    with db.transaction() as tx:
        attached = insert_source(tx, last.root, (), (), gitignore=False)
        insert_attached(tx, attached.id, uri, name)
    return Source(attached.id, attached.path, (), (), False, uri)


def shared_source(db: Database, sources: Sequence[Source], ref: str) -> Source | None:
    """The attached collection named by its URI or its name, if `ref` names one."""
    held = attached_by_source(db.cursor())
    uri = normalise_uri(ref)
    for source in sources:
        found = held.get(source.id)
        if found is not None and ref in (found.name, found.uri, uri):
            return source
    return None


def publish(
    db: Database, sources: Sequence[Source], models: ModelService, path: str, uri: str, name: str = ""
) -> PublishReport:
    resolved = normalise_uri(path)
    source = next((s for s in sources if not s.shared and s.path == resolved), None)
    if source is None:
        raise SourceError(
            f"not a folder of this index: {display_path(resolved)} (add it and index it, then publish it)",
        )
    from findling.ingest.sharing import publish_folder

    return publish_folder(db, source, uri, name, vector_model(db, models))


def bring_all_up_to_date(
    db: Database,
    sources: Sequence[Source],
    settings: IndexSettings,
    models: ModelService,
    cancel: threading.Event | None = None,
    say: Callable[[str], None] = lambda _line: None,
) -> tuple[int, int, int, list[str]]:
    """Every attached collection's copy brought to its last publication: (added, updated,
    removed, a line for each that changed or could not be reached)."""
    shared = [s for s in sources if s.shared]
    if not shared or db.read_only:
        return 0, 0, 0, []
    from findling.ingest.sharing import bring_up_to_date

    held = attached_by_source(db.cursor())
    model = vector_model(db, models)
    added = updated = removed = 0
    lines = []
    for source in shared:
        if cancel is not None and cancel.is_set():
            break
        if source.id not in held:
            continue
        try:
            a, u, r, line = bring_up_to_date(db, source, held[source.id], settings, model, cancel, say)
        except SharedError as exc:
            a, u, r, line = 0, 0, 0, f"{held[source.id].name}: {exc}"
        added, updated, removed = added + a, updated + u, removed + r
        if line:
            lines.append(line)
    return added, updated, removed, lines
