"""Models by role, loaded once and shared: what the engine asks when it needs one."""

from __future__ import annotations

import threading

from findling.errors import FindlingError
from findling.models.download import ModelStore
from findling.models.embedder import Embedder
from findling.models.generator import Generator
from findling.models.reranker import CrossEncoder
from findling.models.manifest import Manifest, ModelSpec, load_manifest
from findling.settings import ModelSettings


class ModelService:
    def __init__(self, settings: ModelSettings, manifest: Manifest | None = None, store: ModelStore | None = None):
        self.settings = settings
        self._manifest = manifest
        self.store = store or ModelStore(endpoint=settings.hub_endpoint or None)
        self._embedder: Embedder | None = None
        self._reranker: CrossEncoder | None = None
        self._generator: Generator | None = None
        self._lock = threading.Lock()

    @property
    def manifest(self) -> Manifest:
        if self._manifest is None:
            self._manifest = load_manifest()
        return self._manifest

    def spec(self, role: str) -> ModelSpec:
        return self.manifest.for_role(role, getattr(self.settings, role) or None)

    def installed(self, role: str) -> bool:
        try:
            return self.store.status(self.spec(role)).state == "installed"
        except FindlingError:
            return False

    def unavailable_reason(self, role: str) -> str | None:
        """None when the role's model can run, else a sentence saying why not."""
        try:
            spec = self.spec(role)
        except FindlingError as exc:
            return str(exc)
        state = self.store.status(spec).state
        if state != "installed":
            return f"no {role} model installed ({spec.name} is {state}): findling models pull {spec.name}"
        return None

    def embedder(self) -> Embedder:
        with self._lock:
            spec = self.spec("embedder")
            if self._embedder is None or self._embedder.spec != spec:
                self._embedder = Embedder(spec, self.store, self.settings.provider, self.settings.threads)
            return self._embedder

    def reranker(self, max_tokens: int = 0) -> CrossEncoder:
        with self._lock:
            spec = self.spec("reranker")
            r = self._reranker
            if r is None or r.spec != spec or (max_tokens and r.max_tokens != min(spec.max_length, max_tokens)):
                self._reranker = CrossEncoder(spec, self.store, self.settings.provider, self.settings.threads, max_tokens)
            return self._reranker

    def generator(self) -> Generator:
        with self._lock:
            spec = self.spec("generator")
            if self._generator is None or self._generator.spec != spec:
                self._generator = Generator(spec, self.store, self.settings.provider, self.settings.threads)
            return self._generator
