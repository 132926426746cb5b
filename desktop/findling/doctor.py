"""`findling doctor`: what works, what is missing, and what to do about it."""

from __future__ import annotations

import importlib
import os
import platform
import sys
from typing import TYPE_CHECKING

import duckdb

from findling.errors import FindlingError
from findling.faces.presentation import note_text, waiting_line
from findling.models.manifest import ROLES, manifest_path
from findling.paths import DB_FILENAME, data_home
from findling.records import Check, StoreStatus
from findling.store.compaction import Space
from findling.store.extensions import EXTENSIONS, extension_file, load_extension

if TYPE_CHECKING:
    from findling.models.remote import Endpoint

EXPECTED_DUCKDB = "1.5.5"
REPAIR_ADVICE = "Mend it with: findling index --repair"


def extension_check(name: str) -> Check:
    """The fts and vss extensions load offline from their PyPI packages; Findling's index does
    not need them (it keeps its own postings and vector index), so the installed app leaves
    them out and their absence is no failure."""
    label = f"duckdb extension {name}"
    try:
        path = extension_file(name)
    except FindlingError:
        return Check(label, True, "not installed; not needed: Findling keeps its own postings and vectors")
    con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    try:
        load_extension(con, name)
        return Check(label, True, f"loaded offline from {path} (optional)")
    except FindlingError as exc:
        return Check(label, False, str(exc))
    finally:
        con.close()


def _optional_module(label: str, module: str, missing: str) -> Check:
    try:
        mod = importlib.import_module(module)
    except Exception as exc:  # a broken binary wheel raises more than ImportError
        return Check(label, False, f"{missing} ({type(exc).__name__}: {exc})")
    return Check(label, True, f"{module} {getattr(mod, '__version__', '')}".strip())


def _store_check(home: str | None) -> tuple[Check, StoreStatus | None]:
    """The index as every command reaches it: opened here, or asked of the Findling that holds it
    (and its status, for the checks that compare with it)."""
    from findling.server.handle import IndexHandle

    folder = data_home(home)
    db = folder / DB_FILENAME
    if not db.exists():
        writable = os.access(folder if folder.exists() else folder.parent, os.W_OK)
        return Check("index", writable, f"no index yet at {db}" + ("" if writable else " (folder not writable)")), None
    try:
        with IndexHandle.open(home, serve=False) as handle:
            st = handle.status()
            found = handle.check_index()
            through = "" if handle.role == "owner" else " (asked of the running Findling that holds it)"
        counts = (
            f"{db}: {st.indexed} documents indexed, {st.failed} failed, {st.skipped} skipped, "
            f"{st.size_bytes / 1e6:.1f} MB{through}"
        )
        if found:
            return Check("index", False, f"{counts}; the index is not sound: {'; '.join(found)}. {REPAIR_ADVICE}"), st
        said = [counts]
        waiting = waiting_line(st, "terminal")
        if waiting:
            said.append(waiting)
        if Space(st.size_bytes, st.free_bytes).worth_compacting:
            said.append(f"{st.free_bytes / 1e6:,.0f} MB of it is free space: findling index --compact gives it back")
        return Check("index", True, "; ".join(said)), st
    except FindlingError as exc:
        return Check("index", False, str(exc)), None


def _server_check(role: str, endpoint: Endpoint, expected_dimension: int) -> Check:
    """A model server asked once, as its role asks it; an embedder's answer must have the
    dimension of the vectors the index holds for it."""
    from findling.models.choice import embedder_dimension, try_server

    name = f"model {role}"
    try:
        if role != "embedder":
            return Check(name, True, f"{endpoint.where()}: answers ({try_server(role, endpoint)})")
        dimension = embedder_dimension(endpoint)
    except FindlingError as exc:
        return Check(name, False, f"{endpoint.where()}: {exc}")
    if expected_dimension and dimension != expected_dimension:
        return Check(
            name,
            False,
            f"{endpoint.where()}: answers {dimension}-dimension vectors, the index holds {expected_dimension}: "
            "has the server's model changed? Update the index to embed again (findling index)",
        )
    return Check(name, True, f"{endpoint.where()}: answers {dimension}-dimension vectors")


def _model_checks(home: str | None, expected_dimension: int = 0) -> list[Check]:
    from findling.models.runtime import RuntimeUnavailable, available_providers, preferred_providers
    from findling.models.service import ModelService
    from findling.settings import load_settings

    settings = load_settings(home).models
    try:
        providers = available_providers()
        chosen = preferred_providers(settings.provider)[0]
        checks = [Check("onnxruntime", True, f"providers {', '.join(providers)}; using {chosen}")]
    except RuntimeUnavailable as exc:
        return [Check("onnxruntime", False, str(exc))]
    service = ModelService(settings)
    for role in ROLES:
        endpoint = service.endpoint(role)
        if endpoint is not None:
            checks.append(_server_check(role, endpoint, expected_dimension if role == "embedder" else 0))
            continue
        if role not in service.manifest.defaults:  # a manifest of one's own may leave a role out
            checks.append(Check(f"model {role}", True, f"none in {manifest_path()} ({_WITHOUT[role]})", optional=True))
            continue
        try:
            spec = service.spec(role)
            status = service.store.status(spec)
            reason = service.unavailable_reason(role)
            if status.state == "missing":  # optional: Findling searches by keywords without it
                checks.append(
                    Check(
                        f"model {role}",
                        True,
                        f"{spec.name}: not installed (optional: "
                        f"{_WITHOUT[role]}; File → Models, or findling models pull {spec.name})",
                        optional=True,
                    )
                )
                continue
            detail = f"{spec.name}: {status.state}" + (f" ({status.detail})" if status.detail else "")
            if reason:
                detail += f" — {note_text(reason, 'terminal')}"
            checks.append(Check(f"model {role}", reason is None, detail))
        except FindlingError as exc:
            checks.append(Check(f"model {role}", False, str(exc)))
    return checks


_WITHOUT = {
    "embedder": "without it there is no semantic search",
    "reranker": "without it results are not reranked",
    "generator": "without it queries are not expanded",
    "ocr": "without it words in pictures and scanned PDFs are not read",
}


def run_checks(home: str | None = None) -> list[Check]:
    checks = [
        Check("python", sys.version_info >= (3, 11), f"{platform.python_version()} on {platform.platform()}"),
        Check(
            "duckdb",
            duckdb.__version__ == EXPECTED_DUCKDB,
            f"{duckdb.__version__}"
            + ("" if duckdb.__version__ == EXPECTED_DUCKDB else f" (Findling is tested with {EXPECTED_DUCKDB})"),
        ),
    ]
    checks.extend(extension_check(name) for name in EXTENSIONS)
    store, status = _store_check(home)
    checks.append(store)
    checks.extend(_model_checks(home, status.embedder_dimension if status is not None else 0))
    checks.append(_optional_module("qt (PySide6)", "PySide6", "the desktop app is unavailable"))
    return checks
