"""Does an ONNX file fit a role? Read from its inputs and outputs, so a cross-encoder
imported as the embedder is refused at import with a reason, not met at index time as a
numpy traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from findling.errors import FindlingError
from findling.models.runtime import onnxruntime_module


class ModelSignatureError(FindlingError):
    """The model's inputs or outputs do not fit the role it was imported for."""


def _describe(tensors: Any) -> str:
    return ", ".join(f"{t.name} {list(t.shape)}" for t in tensors)


def guess_role(inputs: dict[str, list[Any]], outputs: dict[str, list[Any]]) -> str | None:
    """embedder, reranker, generator or ocr, from tensor names and ranks; None when unclear."""
    if len(inputs) == 1 and len(next(iter(inputs.values()))) == 4:
        # a picture in; a text recognizer gives symbol probabilities per step (N, T, symbols)
        shapes = list(outputs.values())
        return "ocr" if len(shapes) == 1 and len(shapes[0]) == 3 else None
    if not {"input_ids", "attention_mask"} <= set(inputs):
        return None
    if any(name.startswith("past_key_values") for name in inputs):
        return "generator"
    shapes = list(outputs.values())
    if any(name in ("last_hidden_state", "token_embeddings", "sentence_embedding") for name in outputs):
        return "embedder"
    if len(shapes) == 1 and len(shapes[0]) == 2 and shapes[0][-1] == 1:
        return "reranker"  # one score per (query, passage) pair
    if any(len(shape) == 3 for shape in shapes):
        return "embedder"
    return None


def _a(word: str) -> str:
    return f"an {word}" if word[0] in "aeiou" else f"a {word}"


def _session_signature(model_path: Path) -> tuple[Any, Any]:
    try:
        session = onnxruntime_module().InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
    except FindlingError:
        raise
    except Exception as exc:  # onnxruntime raises its own types for unreadable graphs
        raise ModelSignatureError(f"{model_path.name} is not a readable ONNX model: {exc}") from exc
    return session.get_inputs(), session.get_outputs()


def _role_of(inputs: Any, outputs: Any) -> str | None:
    return guess_role({t.name: list(t.shape) for t in inputs}, {t.name: list(t.shape) for t in outputs})


def onnx_role(model_path: Path) -> str:
    """The role an ONNX file's inputs and outputs say it plays; an error when they do not."""
    inputs, outputs = _session_signature(model_path)
    found = _role_of(inputs, outputs)
    if found is None:
        raise ModelSignatureError(
            f"{model_path.name} is not a text embedder, reranker, generator or OCR recognizer "
            f"(inputs {_describe(inputs)}; outputs {_describe(outputs)})"
        )
    return found


def check_signature(role: str, model_path: Path) -> None:
    inputs, outputs = _session_signature(model_path)
    found = _role_of(inputs, outputs)
    if found == role:
        return
    what = f"inputs {_describe(inputs)}; outputs {_describe(outputs)}"
    if found is None:
        raise ModelSignatureError(f"{model_path.name} does not look like a text {role} ({what})")
    raise ModelSignatureError(
        f"{model_path.name} looks like {_a(found)}, not {_a(role)} ({what}); import it as {_a(found)}"
    )
