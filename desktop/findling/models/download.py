"""Fetch, import, verify and remove models in the user cache.

Files are fetched from the hub's `resolve` endpoint with ranged requests into a `.part`
file beside the target, so an interrupted download — a dropped connection, a cancel, a
killed process — resumes where it stopped. Nothing is moved into place before its sha256
matches the pinned hash, and a model counts as installed only once its lock file
(`findling-model.json`: commit, hashes, sizes) is written, after every file is verified.
The only host contacted is the configured hub endpoint."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import threading
import time
import tomllib
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from findling import __version__
from findling.errors import FindlingError, Remedy
from findling.models.importing import CUSTOM_FILE, custom_table, locate
from findling.models.manifest import ModelFile, ModelSpec, spec_from_table
from findling.models.signature import check_signature
from findling.paths import cache_dir

if TYPE_CHECKING:
    # imported where the hub is asked (ssl and http.client with it: 10 ms of every command that
    # only looks at which models are installed)
    import urllib.request

LOCK_NAME = "findling-model.json"
_CHUNK = 1024 * 1024
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")


class ModelDownloadError(FindlingError):
    """The hub could not be reached, or refused or broke off a download. `unreachable`: the
    hub (`host`) could not be reached at all, which a window says in its own words."""

    def __init__(self, message: str, unreachable: bool = False, host: str = "", **facts: Any) -> None:
        super().__init__(message, **facts)
        self.unreachable = unreachable
        self.host = host


class ModelChecksumError(FindlingError):
    """A model file does not match its pinned sha256: it is deleted, never loaded."""


class ModelMissingError(FindlingError):
    """A model is not installed (or no longer intact)."""


class DownloadCancelled(FindlingError):
    """The user cancelled; the partial file stays for a later resume."""


@dataclass(frozen=True)
class DownloadProgress:
    model: str
    file: str
    done: int  # bytes of all files so far
    total: int  # bytes of all files (0 while unknown)


@dataclass(frozen=True)
class ModelStatus:
    spec: ModelSpec
    state: str  # installed | partial | missing | damaged
    path: Path
    size: int  # bytes on disk
    detail: str = ""


def models_dir() -> Path:
    return cache_dir() / "models"


def bundled_models_dirs() -> list[Path]:
    """Folders holding models packaged with the app (installers' "with models" variant)."""
    dirs = []
    extra = os.environ.get("FINDLING_BUNDLED_MODELS")
    if extra:
        dirs.append(Path(extra))
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        dirs.append(Path(frozen) / "models")
    return [d for d in dirs if d.is_dir()]


def sha256_file(path: Path, cancel: threading.Event | None = None) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(_CHUNK):
            if cancel is not None and cancel.is_set():
                raise DownloadCancelled("cancelled while verifying")
            digest.update(block)
    return digest.hexdigest()


def _read_lock(folder: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((folder / LOCK_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _write_lock(folder: Path, data: dict[str, Any]) -> None:
    tmp = folder / (LOCK_NAME + ".tmp")
    tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
    os.replace(tmp, folder / LOCK_NAME)


class ModelStore:
    """Installed models, one folder each: `<cache>/models/<name>/<file paths>`."""

    def __init__(self, root: Path | None = None, endpoint: str | None = None) -> None:
        self.root = root or models_dir()
        self._endpoint = endpoint.rstrip("/") if endpoint else None
        self._verified: dict[tuple[str, int, int], str] = {}

    @property
    def endpoint(self) -> str:
        if self._endpoint is None:
            # huggingface_hub (and httpx under it) takes ~0.3 s to import: paid when a model
            # is fetched, not at every start of the app
            from huggingface_hub import constants as hf_constants

            self._endpoint = str(hf_constants.ENDPOINT).rstrip("/")
        return self._endpoint

    # -- where and what -----------------------------------------------------------------

    def folder(self, spec: ModelSpec) -> Path:
        for bundled in bundled_models_dirs():
            if (bundled / spec.name / LOCK_NAME).exists():
                return bundled / spec.name
        folder = self.root / spec.name
        self._recover(folder)
        return folder

    def status(self, spec: ModelSpec) -> ModelStatus:
        folder = self.folder(spec)
        size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) if folder.exists() else 0
        lock = _read_lock(folder)
        if lock is None:
            state = "partial" if size else "missing"
            return ModelStatus(spec, state, folder, size)
        refreshed = False
        for f in spec.files:
            entry = lock.get("files", {}).get(f.path)
            path = folder / f.path
            if entry is None or not path.exists() or path.stat().st_size != entry["size"]:
                return ModelStatus(spec, "damaged", folder, size, f"{f.path} is missing or changed size")
            st = path.stat()
            if entry.get("mtime_ns") != st.st_mtime_ns:
                # Written since it was verified: a same-size corruption shows only in the hash.
                if self._digest(path, st) != entry["sha256"]:
                    return ModelStatus(
                        spec,
                        "damaged",
                        folder,
                        size,
                        f"{f.path} changed since it was installed; pull or import the model again",
                    )
                entry["mtime_ns"] = st.st_mtime_ns
                refreshed = True
        if refreshed:
            try:
                _write_lock(folder, lock)
            except OSError:
                pass  # a read-only bundle: verified again next time
        return ModelStatus(spec, "installed", folder, size, f"revision {lock.get('revision', '?')[:12]}")

    def _digest(self, path: Path, st: os.stat_result) -> str:
        key = (str(path), st.st_size, st.st_mtime_ns)
        digest = self._verified.get(key)
        if digest is None:
            digest = sha256_file(path)
            self._verified[key] = digest
        return digest

    def verified_path(self, spec: ModelSpec, file: ModelFile) -> Path:
        """The path of an installed file, its sha256 checked against the lock (once per
        process while size and mtime stay the same). Never returns an unverified file."""
        folder = self.folder(spec)
        lock = _read_lock(folder)
        if lock is None:
            raise ModelMissingError(f"model {spec.name} is not installed", remedy=Remedy.GET_MODEL, subject=spec.name)
        entry = lock.get("files", {}).get(file.path)
        path = folder / file.path
        if entry is None or not path.exists():
            raise ModelMissingError(
                f"model {spec.name} is incomplete ({file.path})", remedy=Remedy.GET_MODEL, subject=spec.name
            )
        digest = self._digest(path, path.stat())
        expected = file.sha256 or entry["sha256"]
        if digest != expected or digest != entry["sha256"]:
            raise ModelChecksumError(
                f"{path} does not match its recorded sha256 (damaged or altered); remove and pull the model again"
            )
        return path

    # -- download -----------------------------------------------------------------------

    def pull(
        self,
        spec: ModelSpec,
        progress: Callable[[DownloadProgress], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> ModelStatus:
        progress = progress or (lambda _p: None)
        cancel = cancel or threading.Event()
        folder = self.root / spec.name
        folder.mkdir(parents=True, exist_ok=True)
        lock = _read_lock(folder) or {}
        revision = lock.get("revision") if lock.get("repo") == spec.repo else None
        revision = spec.revision if spec.pinned else revision or spec.revision
        from huggingface_hub.utils import build_hf_headers

        headers = build_hf_headers(library_name="findling", library_version=__version__)
        metas = []
        for f in spec.files:
            meta = self._head(spec, f, revision, headers)
            if not _COMMIT.match(revision) and meta["commit"]:
                revision = meta["commit"]  # every further file from this same commit
            metas.append(meta)
        total = sum(m["size"] for m in metas)
        done = 0
        files: dict[str, dict[str, Any]] = {}
        for f, meta in zip(spec.files, metas):
            expected = f.sha256 or meta["etag_sha256"]
            if expected is None:
                raise ModelDownloadError(
                    f"{spec.repo}/{f.path} has no pinned sha256 and the hub gave no content hash; refusing it"
                )
            if f.size is not None and meta["size"] and meta["size"] != f.size:
                raise ModelChecksumError(
                    f"{spec.repo}/{f.path} is {meta['size']} bytes on the hub, {f.size} expected: refusing it"
                )
            target = folder / f.path
            if target.exists() and target.stat().st_size == meta["size"] and sha256_file(target, cancel) == expected:
                done += meta["size"]
                progress(DownloadProgress(spec.name, f.path, done, total))
            else:
                self._fetch(spec, f, revision, headers, target, meta["size"], expected, done, total, progress, cancel)
                done += meta["size"]
            st = target.stat()
            files[f.path] = {"sha256": expected, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
        _write_lock(
            folder,
            {"repo": spec.repo, "revision": revision, "files": files, "installed_at": time.time(), "source": "hub"},
        )
        return self.status(spec)

    def _request(self, url: str, headers: dict[str, str], method: str = "GET") -> urllib.request.Request:
        if not url.startswith(self.endpoint + "/"):
            raise ModelDownloadError(f"refusing to contact {url}: only {self.endpoint} is allowed")
        import urllib.request

        return urllib.request.Request(url, headers=headers, method=method)

    def _open(self, request: urllib.request.Request, what: str) -> Any:
        import urllib.error
        import urllib.request

        try:
            return urllib.request.urlopen(request, timeout=30)
        except urllib.error.HTTPError as exc:
            if exc.code in (401, 403):
                raise ModelDownloadError(f"{what}: the hub refused access ({exc.code}); a token may be needed") from exc
            if exc.code == 404:
                raise ModelDownloadError(f"{what}: not found on {self.endpoint}") from exc
            raise ModelDownloadError(f"{what}: the hub answered {exc.code}") from exc
        except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            host = urllib.parse.urlsplit(self.endpoint).netloc or self.endpoint
            raise ModelDownloadError(
                f"cannot reach {self.endpoint} ({reason}) for {what}. Findling keeps working without this model; "
                "try again when online, or use `findling models import DIR`",
                unreachable=True,
                host=host,
            ) from exc

    def _head(self, spec: ModelSpec, f: ModelFile, revision: str, headers: dict[str, str]) -> dict[str, Any]:
        url = _hub_url(spec.repo, f.path, revision, self.endpoint)
        with self._open(self._request(url, {**headers, "Accept-Encoding": "identity"}, "HEAD"), f.path) as resp:
            h = resp.headers
            etag = (h.get("X-Linked-Etag") or h.get("ETag") or "").strip('"').removeprefix("W/").strip('"')
            size = int(h.get("X-Linked-Size") or h.get("Content-Length") or 0)
            return {
                "size": size,
                "commit": h.get("X-Repo-Commit") or "",
                "etag_sha256": etag if _SHA256.match(etag) else None,
            }

    def _fetch(
        self,
        spec: ModelSpec,
        f: ModelFile,
        revision: str,
        headers: dict[str, str],
        target: Path,
        size: int,
        expected: str,
        done_before: int,
        total: int,
        progress: Callable[[DownloadProgress], None],
        cancel: threading.Event,
    ) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        part = target.with_name(target.name + ".part")
        have = part.stat().st_size if part.exists() else 0
        if size and have > size:
            part.unlink()
            have = 0
        url = _hub_url(spec.repo, f.path, revision, self.endpoint)
        if not size or have < size:
            request_headers = {**headers, "Accept-Encoding": "identity"}
            if have:
                request_headers["Range"] = f"bytes={have}-"
            with self._open(self._request(url, request_headers), f.path) as resp:
                if have and resp.status != 206:
                    have = 0  # the server ignored the range: start over
                mode = "ab" if have else "wb"
                with open(part, mode) as out:
                    last = 0.0
                    while True:
                        if cancel.is_set():
                            raise DownloadCancelled(f"download of {spec.name} cancelled; it resumes next time")
                        try:
                            block = resp.read(_CHUNK)
                        except (OSError, TimeoutError) as exc:
                            raise ModelDownloadError(
                                f"{f.path}: the connection broke after {have} bytes ({exc}); pull again to resume"
                            ) from exc
                        if not block:
                            break
                        out.write(block)
                        have += len(block)
                        now = time.monotonic()
                        if now - last > 0.1:
                            last = now
                            progress(DownloadProgress(spec.name, f.path, done_before + have, total))
            if size and have < size:
                raise ModelDownloadError(
                    f"{f.path}: the download stopped at {have} of {size} bytes; pull again to resume"
                )
        digest = sha256_file(part, cancel)
        if digest != expected:
            part.unlink()
            raise ModelChecksumError(
                f"{spec.repo}/{f.path}: sha256 {digest[:16]}… does not match the expected {expected[:16]}…; "
                "the file was deleted and nothing was installed"
            )
        os.replace(part, target)
        progress(DownloadProgress(spec.name, f.path, done_before + have, total))

    # -- import and remove --------------------------------------------------------------

    def import_dir(self, spec: ModelSpec, source: Path) -> ModelStatus:
        """Install a model from a folder (copied from another machine, or your own export):
        files are found in any usual layout (see models/importing.py) and checked like
        downloads. A custom model (not in the manifest) keeps its description beside it."""
        source = Path(source)
        if not source.is_dir():
            raise ModelMissingError(f"{source} is not a folder")
        found = locate(spec, source, sha256_file)
        folder = self.root / spec.name
        staging = self.root / f".{spec.name}.import"
        shutil.rmtree(staging, ignore_errors=True)
        files: dict[str, dict[str, Any]] = {}
        try:
            for f in spec.files:
                digest = sha256_file(found[f.path])
                if f.sha256 and digest != f.sha256:
                    raise ModelChecksumError(
                        f"{found[f.path]} does not match the pinned sha256 for {spec.name}/{f.path}"
                    )
                dest = staging / f.path
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(found[f.path], dest)
                if sha256_file(dest) != digest:
                    raise ModelChecksumError(f"{found[f.path]} changed while it was copied; import again")
                st = dest.stat()
                files[f.path] = {"sha256": digest, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
            check_signature(spec.role, staging / spec.file_of_kind("model").path)
            if spec.repo.startswith("local:"):
                (staging / CUSTOM_FILE).write_text(custom_table(spec, files), encoding="utf-8")
            _write_lock(
                staging,
                {
                    "repo": spec.repo,
                    "revision": spec.revision,
                    "files": files,
                    "installed_at": time.time(),
                    "source": f"import:{source}",
                },
            )
            self._swap_in(staging, folder)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return self.status(spec)

    def custom_specs(self) -> list[ModelSpec]:
        """Models imported with a findling-model.toml: not in the manifest, described beside
        their files."""
        specs = []
        for path in sorted(self.root.glob(f"*/{CUSTOM_FILE}")):
            try:
                specs.append(spec_from_table(path.parent.name, tomllib.loads(path.read_text(encoding="utf-8"))))
            except (OSError, tomllib.TOMLDecodeError, FindlingError):
                continue  # a broken description hides that model, never the others
        return specs

    def _swap_in(self, staging: Path, folder: Path) -> None:
        """Replace `folder` by the verified `staging` with the working copy kept aside
        until the new one is in place: a kill at any point leaves one complete model
        (`_recover` puts a set-aside copy back)."""
        old = folder.with_name(f".{folder.name}.old")
        shutil.rmtree(old, ignore_errors=True)
        if folder.exists():
            os.replace(folder, old)
        os.replace(staging, folder)
        shutil.rmtree(old, ignore_errors=True)

    def _recover(self, folder: Path) -> None:
        old = folder.with_name(f".{folder.name}.old")
        if not folder.exists() and (old / LOCK_NAME).exists():
            try:
                os.replace(old, folder)
            except OSError:
                pass

    def remove(self, spec: ModelSpec) -> bool:
        folder = self.root / spec.name
        if not folder.exists():
            return False
        shutil.rmtree(folder)
        return True


def _hub_url(repo: str, path: str, revision: str, endpoint: str) -> str:
    from huggingface_hub import hf_hub_url

    return str(hf_hub_url(repo, path, revision=revision, endpoint=endpoint))
