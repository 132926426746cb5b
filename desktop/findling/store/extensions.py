"""Load DuckDB's fts and vss extensions from their PyPI packages, never from the network."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import duckdb

from findling.errors import ExtensionError

EXTENSIONS = {"fts": "duckdb_extension_fts", "vss": "duckdb_extension_vss"}


def extension_file(name: str) -> Path:
    package = EXTENSIONS[name]
    spec = importlib.util.find_spec(package)
    wanted = f"duckdb-extension-{name}=={duckdb.__version__}"
    if spec is None or not spec.submodule_search_locations:
        raise ExtensionError(f"the DuckDB '{name}' extension is not installed: pip install {wanted}")
    root = Path(next(iter(spec.submodule_search_locations))) / "extensions"
    path = root / f"v{duckdb.__version__}" / f"{name}.duckdb_extension"
    if path.is_file():
        return path
    found = sorted(p.parent.name for p in root.glob(f"v*/{name}.duckdb_extension"))
    if found:
        raise ExtensionError(
            f"the DuckDB '{name}' extension is built for {', '.join(found)} but the engine is "
            f"v{duckdb.__version__}: pip install {wanted}"
        )
    raise ExtensionError(f"the DuckDB '{name}' extension package has no binary: pip install {wanted}")


def load_extension(con: duckdb.DuckDBPyConnection, name: str) -> None:
    path = extension_file(name)
    try:
        con.execute(f"LOAD '{path.as_posix()}'")
    except duckdb.Error as exc:
        raise ExtensionError(f"cannot load the DuckDB '{name}' extension from {path}: {exc}") from exc
