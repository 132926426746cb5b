"""The one place onnxruntime sessions are made.

Provider preference: DirectML on Windows, CUDA where the CUDA build is installed, CoreML on
macOS, CPU always last. A provider that fails to create a session falls back to the next,
and the reason is kept for `findling doctor`. By default one core is left for the UI."""

from __future__ import annotations

import logging
import os
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from findling.errors import FindlingError

log = logging.getLogger(__name__)

PROVIDER_NAMES = {
    "directml": "DmlExecutionProvider",
    "cuda": "CUDAExecutionProvider",
    "coreml": "CoreMLExecutionProvider",
    "cpu": "CPUExecutionProvider",
}


class RuntimeUnavailable(FindlingError):
    """onnxruntime is not installed or cannot load: the model lanes are off."""


@dataclass(frozen=True)
class Session:
    session: Any  # onnxruntime.InferenceSession (untyped)
    provider: str
    fallbacks: tuple[str, ...]  # "Provider: reason" for each provider that failed first
    input_names: tuple[str, ...]
    output_names: tuple[str, ...]

    def run(self, outputs: list[str] | None, feed: dict[str, Any], shrink: bool = False) -> list[Any]:
        """`shrink`: after this run, the CPU arena gives back every block no tensor holds (what a
        run of big batches kept for the next one)."""
        if not shrink:
            return list(self.session.run(outputs, feed))
        options = onnxruntime_module().RunOptions()
        options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
        return list(self.session.run(outputs, feed, options))


def onnxruntime_module() -> Any:
    try:
        import onnxruntime
    except Exception as exc:  # a broken binary raises more than ImportError
        raise RuntimeUnavailable(
            f"onnxruntime is not available ({exc}); semantic search and reranking are off"
        ) from exc
    return onnxruntime


def available_providers() -> list[str]:
    return list(onnxruntime_module().get_available_providers())


_WHY_MISSING = {
    "cuda": "needs an NVIDIA GPU and the onnxruntime-gpu package in place of onnxruntime (see docs/models.md)",
    "directml": "Windows only, with onnxruntime-directml",
    "coreml": "macOS only",
}


def provider_choices() -> list[tuple[str, str | None]]:
    """Each provider setting with None when this machine's onnxruntime can run it, else why
    not: settings offer only what works and say why the others are missing."""
    try:
        available = set(available_providers())
    except FindlingError as exc:
        return [("auto", None), ("cpu", str(exc))]
    return [("auto", None)] + [
        (name, None if provider in available else _WHY_MISSING.get(name, "not in this onnxruntime build"))
        for name, provider in (
            ("cpu", PROVIDER_NAMES["cpu"]),
            ("cuda", PROVIDER_NAMES["cuda"]),
            ("directml", PROVIDER_NAMES["directml"]),
            ("coreml", PROVIDER_NAMES["coreml"]),
        )
    ]


def preferred_providers(choice: str = "auto") -> list[str]:
    """Providers to try, best first, among those this onnxruntime build has."""
    available = available_providers()
    if choice != "auto":
        wanted = PROVIDER_NAMES.get(choice.lower(), choice)
        order = [wanted, "CPUExecutionProvider"]
    else:
        system = platform.system()
        if system == "Windows":
            order = ["DmlExecutionProvider", "CUDAExecutionProvider", "CPUExecutionProvider"]
        elif system == "Darwin":
            order = ["CoreMLExecutionProvider", "CPUExecutionProvider"]
        else:
            order = ["CUDAExecutionProvider", "CPUExecutionProvider"]
    seen: list[str] = []
    for name in order:
        if name in available and name not in seen:
            seen.append(name)
    if "CPUExecutionProvider" not in seen:
        seen.append("CPUExecutionProvider")
    return seen


def default_threads() -> int:
    return max(1, (os.cpu_count() or 2) - 1)


def every_core() -> int:
    return max(1, os.cpu_count() or 1)


def create_session(
    model_path: Path, provider: str = "auto", threads: int = 0, arena: bool = True, spinning: bool = True
) -> Session:
    """`arena`: keep freed tensor memory for the next run (fast for fixed shapes; a model fed
    pictures of every size would hold on to its largest run's memory). `spinning`: threads wait
    for the next run busily, a few per cent faster for a model run back to back and CPU taken
    from everything else between runs.

    No memory patterns: a pattern is one block planned for a run's exact input shapes, and every
    model here is fed texts (or pictures) of a new length each run, so each kept a block of its
    own in the arena: MiniLM embedding 16 windows a run held 464 MB with them, 274 MB without,
    at the same tokens a second (docs/eval/beside-recoll.md, "Memory")."""
    ort = onnxruntime_module()
    options = ort.SessionOptions()
    options.enable_mem_pattern = False
    if not arena:
        options.enable_cpu_mem_arena = False
    if not spinning:
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.intra_op_num_threads = threads or default_threads()
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    failures: list[str] = []
    for name in preferred_providers(provider):
        try:
            session = ort.InferenceSession(str(model_path), sess_options=options, providers=[name])
        except Exception as exc:  # each provider fails in its own way (missing DLLs, unsupported ops)
            reason = f"{name}: {str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__}"
            log.warning("cannot use %s for %s, trying the next provider (%s)", name, model_path.name, reason)
            failures.append(reason)
            continue
        return Session(
            session=session,
            provider=session.get_providers()[0],
            fallbacks=tuple(failures),
            input_names=tuple(i.name for i in session.get_inputs()),
            output_names=tuple(o.name for o in session.get_outputs()),
        )
    raise RuntimeUnavailable(f"no execution provider could load {model_path.name}: " + "; ".join(failures))
