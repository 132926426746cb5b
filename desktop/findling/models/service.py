"""Models by role, loaded once and shared: what the engine asks when it needs one."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from findling.errors import FindlingError, Remedy
from findling.models.manifest import Manifest, ModelSpec, load_manifest, with_custom
from findling.records import Note
from findling.settings import ModelSettings

if TYPE_CHECKING:  # the model classes load numpy and the runtimes: only when a model is first asked for
    from findling.models.download import ModelStore
    from findling.models.embedder import Embedder, TextEmbedder
    from findling.models.generator import ChatModel, Generator
    from findling.models.remote import Endpoint, RemoteEmbedder, RemoteReranker
    from findling.models.reranker import CrossEncoder

M = TypeVar("M", "Embedder", "CrossEncoder", "Generator")


class ModelService:
    def __init__(self, settings: ModelSettings, manifest: Manifest | None = None, store: ModelStore | None = None):
        self.settings = settings
        self._manifest = manifest
        self._store = store
        self._embedder: Embedder | None = None
        self._reranker: CrossEncoder | None = None
        self._generator: Generator | None = None
        # one lock per role: the window's first search loaded the embedder 2.2 s late, waiting
        # while the Answer beside it built the generator under a lock they shared
        self._locks = {attr: threading.Lock() for attr in ("_embedder", "_reranker", "_generator")}
        self._remote: RemoteEmbedder | None = None
        self._remote_lock = threading.Lock()
        self._store_lock = threading.Lock()  # apart: a model being built under its lock asks for the store

    @property
    def store(self) -> ModelStore:
        """Where models are installed (made when first asked: a keyword search never asks)."""
        with self._store_lock:
            if self._store is None:
                from findling.models.download import ModelStore

                self._store = ModelStore(endpoint=self.settings.hub_endpoint or None)
            return self._store

    @property
    def manifest(self) -> Manifest:
        if self._manifest is None:
            self._manifest = with_custom(load_manifest(), self.store.custom_specs())
        return self._manifest

    def reload_manifest(self) -> None:
        """Read the manifest and the imported custom models again (after an import)."""
        self._manifest = None

    def use_store(self, store: ModelStore) -> None:
        """Install and load models from this store instead of the user's cache (a test's, or a tool's)."""
        with self._store_lock:
            self._store = store

    def use_manifest(self, manifest: Manifest) -> None:
        """Choose models from this manifest instead of the installed one (a test's, or a tool's)."""
        self._manifest = manifest

    def spec(self, role: str) -> ModelSpec:
        endpoint = self.endpoint(role)
        if endpoint is not None and role == "embedder":
            return self._remote_embedder(endpoint).spec
        if endpoint is not None:
            return ModelSpec(endpoint.name, role, "", "", ())  # type: ignore[arg-type]
        return self.manifest.for_role(role, getattr(self.settings, role) or None)

    def endpoint(self, role: str) -> Endpoint | None:
        """The model server that runs the role, when the settings name one (models use ROLE --url)."""
        url = getattr(self.settings, f"{role}_url", "")
        if not url:
            return None
        from findling.models.remote import Endpoint

        s = self.settings
        return Endpoint(url, getattr(s, role), getattr(s, f"{role}_api"), getattr(s, f"{role}_key_env"))

    def where(self, role: str) -> str:
        """Where the role runs, in words: "Ollama at localhost:11434, nomic-embed-text" or
        "all-minilm-l6-v2, on this computer"."""
        endpoint = self.endpoint(role)
        if endpoint is not None:
            return endpoint.where()
        try:
            return f"{self.spec(role).name}, on this computer"
        except FindlingError as exc:
            return str(exc)

    def _remote_embedder(self, endpoint: Endpoint) -> RemoteEmbedder:
        from findling.models.remote import RemoteEmbedder, like_manifest

        with self._remote_lock:
            if self._remote is None or self._remote.endpoint != endpoint:
                self._remote = RemoteEmbedder(
                    endpoint,
                    like_manifest(endpoint.model, self._known_manifest()),
                    concurrency=self.settings.server_requests,
                )
            return self._remote

    def _known_manifest(self) -> Manifest | None:
        try:
            return self.manifest
        except FindlingError:
            return None

    def unavailable_reason(self, role: str) -> Note | None:
        """None when the role's model can run, else why not, and what would let it. A model
        server is not asked here (a query pays one call, not two): its failures are said when met."""
        endpoint = self.endpoint(role)
        if endpoint is not None:
            from findling.models.remote import checked_endpoint

            if not endpoint.model:
                return Note(f"no model is named for the model server at {endpoint.host}")
            try:
                checked_endpoint(endpoint, self.settings.allow_remote)
            except FindlingError as exc:
                return Note(str(exc), exc.remedy, exc.subject)
            return None
        try:
            spec = self.spec(role)
        except FindlingError as exc:
            return Note(str(exc), exc.remedy, exc.subject)
        state = self.store.status(spec).state
        if state != "installed":
            return Note(f"no {role} model installed ({spec.name} is {state})", Remedy.GET_MODEL, spec.name)
        return None

    def _cached(
        self, attr: str, role: str, build: Callable[[ModelSpec], M], fresh: Callable[[M], bool] = lambda model: False
    ) -> M:
        """The role's model, built once and rebuilt only when the chosen spec changes; another
        role's model is built meanwhile, not after."""
        with self._locks[attr]:
            spec = self.spec(role)
            model: M | None = getattr(self, attr)
            if model is None or model.spec != spec or fresh(model):
                model = build(spec)
                setattr(self, attr, model)
            return model

    def embedder(self) -> TextEmbedder:
        from findling.models.embedder import Embedder

        endpoint = self.endpoint("embedder")
        if endpoint is not None:
            from findling.models.remote import checked_endpoint

            return self._remote_embedder(checked_endpoint(endpoint, self.settings.allow_remote))
        s = self.settings
        return self._cached("_embedder", "embedder", lambda spec: Embedder(spec, self.store, s.provider, s.threads))

    def reranker(self, max_tokens: int = 0) -> CrossEncoder:
        from findling.models.reranker import CrossEncoder

        s = self.settings
        return self._cached(
            "_reranker",
            "reranker",
            lambda spec: CrossEncoder(spec, self.store, s.provider, s.threads, max_tokens),
            fresh=lambda model: bool(max_tokens) and model.max_tokens != min(model.spec.max_length, max_tokens),
        )

    def remote_reranker(self) -> RemoteReranker | None:
        """The reranker a model server runs, when one is set."""
        endpoint = self.endpoint("reranker")
        if endpoint is None:
            return None
        from findling.models.remote import RemoteReranker, checked_endpoint

        return RemoteReranker(checked_endpoint(endpoint, self.settings.allow_remote))

    def generator(self) -> ChatModel:
        from findling.models.generator import Generator

        endpoint = self.endpoint("generator")
        if endpoint is not None:
            from findling.models.remote import RemoteChat, checked_endpoint

            return RemoteChat(checked_endpoint(endpoint, self.settings.allow_remote))
        s = self.settings
        return self._cached("_generator", "generator", lambda spec: Generator(spec, self.store, s.provider, s.threads))
