"""Choosing where a model role runs: a model of the manifest on this computer, or a model server
the user runs. One place for the CLI (`findling models use`) and the window's Models dialog."""

from __future__ import annotations

from findling.errors import FindlingError
from findling.models.manifest import Manifest
from findling.models.remote import Endpoint, RemoteChat, RemoteEmbedder, RemoteReranker, checked_endpoint
from findling.settings import ModelSettings

SERVED_ROLES = ("embedder", "reranker", "generator")  # OCR runs here only


def use_local(models: ModelSettings, role: str, name: str, manifest: Manifest) -> None:
    """The role runs the manifest's model `name` here (a FindlingError for a name it does not know
    for this role)."""
    manifest.for_role(role, name)
    setattr(models, role, name)
    if role in SERVED_ROLES:
        setattr(models, f"{role}_url", "")


def use_server(models: ModelSettings, role: str, endpoint: Endpoint, allow_remote: bool) -> None:
    """The role runs in the model server at `endpoint`; refused (nothing changed) for a role a
    server cannot run, a model left unnamed, or a host off this network without `allow_remote`."""
    if role not in SERVED_ROLES:
        raise FindlingError(f"a model server can run the {', '.join(SERVED_ROLES)}; {role} runs here")
    if not endpoint.model:
        raise FindlingError("name the server's model")
    if role == "reranker" and endpoint.api == "ollama":
        raise FindlingError("Ollama has no rerank API: a reranker is served in the rerank shape (openai)")
    checked_endpoint(endpoint, allow_remote or models.allow_remote)
    setattr(models, role, endpoint.model)
    setattr(models, f"{role}_url", endpoint.url.rstrip("/"))
    setattr(models, f"{role}_api", endpoint.api)
    setattr(models, f"{role}_key_env", endpoint.key_env)
    models.allow_remote = allow_remote or models.allow_remote


def embedder_dimension(endpoint: Endpoint) -> int:
    """The dimension of the vectors the server's embedder answers, asked as a query is (a short
    wait, one retry); a ModelServerError when it does not answer."""
    return int(RemoteEmbedder(endpoint).embed(["Findling checks the model server."], kind="query").shape[1])


def try_server(role: str, endpoint: Endpoint) -> str:
    """Ask the server once, as the role will (a query's short wait, one retry), and say what it
    answered; a ModelServerError when it does not."""
    if role == "embedder":
        dimension = embedder_dimension(endpoint)
        return f"{dimension}-dimension vectors; updating the index embeds the folders with it"
    if role == "reranker":
        RemoteReranker(endpoint).scores("model server", ["Findling checks the model server."])
        return "rerank scores; searches rerank with it"
    words = RemoteChat(endpoint).chat([("user", "Say OK.")], max_new_tokens=4)
    return f"{words.strip()[:40]!r}; query expansion and the LLM judge use it"
