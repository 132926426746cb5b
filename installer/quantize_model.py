"""Maintainers' tool: make an int8 ONNX build of a model that exists only as PyTorch or
fp32 ONNX, for the manifest. The app itself never needs torch.

    pip install "optimum[onnxruntime]" torch   # a maintainer's machine, not the app's
    python installer/quantize_model.py sentence-transformers/all-MiniLM-L6-v2 out/minilm --task feature-extraction
    python installer/quantize_model.py cross-encoder/ms-marco-MiniLM-L-6-v2 out/ce --task text-classification

Export with optimum, then dynamic int8 quantization with per-channel weights (per-tensor
weights cost MiniLM about 0.07 of mean cosine to fp32; per-channel keeps it at 0.99), then
a check that the int8 model agrees with fp32 on sample sentences. Prints the sha256 and size
of every file for resources/models.toml."""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

SAMPLES = [
    "ERROR connection refused on port 5432",
    "The quarterly report shows revenue growth in Europe.",
    "def add(a, b): return a + b",
    "Wie spät ist es?",
    "Ok",
]


def export(model: str, out: Path, task: str) -> Path:
    fp32 = out / "fp32"
    subprocess.run(
        ["optimum-cli", "export", "onnx", "--model", model, "--task", task, "--library-name", "transformers", str(fp32)],
        check=True,
    )
    return fp32


def quantize(fp32: Path, out: Path) -> Path:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    target = out / "onnx" / "model_quantized.onnx"
    target.parent.mkdir(parents=True, exist_ok=True)
    quantize_dynamic(str(fp32 / "model.onnx"), str(target), weight_type=QuantType.QInt8, per_channel=True)
    for name in ("tokenizer.json", "config.json", "tokenizer_config.json", "special_tokens_map.json"):
        if (fp32 / name).exists():
            shutil.copyfile(fp32 / name, out / name)
    return target


def check(fp32: Path, int8: Path, tokenizer: Path) -> float:
    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tokenizer))
    tok.enable_padding()
    encs = tok.encode_batch(SAMPLES)
    feed = {
        "input_ids": np.array([e.ids for e in encs], dtype=np.int64),
        "attention_mask": np.array([e.attention_mask for e in encs], dtype=np.int64),
        "token_type_ids": np.array([e.type_ids for e in encs], dtype=np.int64),
    }
    outs = []
    for path in (fp32 / "model.onnx", int8):
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        names = {i.name for i in session.get_inputs()}
        out = session.run(None, {k: v for k, v in feed.items() if k in names})[0]
        if out.ndim == 3:
            mask = feed["attention_mask"][..., None]
            out = (out * mask).sum(1) / mask.sum(1)
        outs.append(out / np.linalg.norm(out, axis=1, keepdims=True))
    return float((outs[0] * outs[1]).sum(axis=1).mean())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="hub id or local folder of the PyTorch model")
    parser.add_argument("out", type=Path)
    parser.add_argument("--task", default="feature-extraction")
    parser.add_argument("--min-cosine", type=float, default=0.98)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    fp32 = export(args.model, args.out, args.task)
    int8 = quantize(fp32, args.out)
    agreement = check(fp32, int8, args.out / "tokenizer.json")
    print(f"int8 vs fp32 mean cosine on {len(SAMPLES)} samples: {agreement:.4f}")
    shutil.rmtree(fp32)
    for path in sorted(p for p in args.out.rglob("*") if p.is_file()):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        print(f'{{ path = "{path.relative_to(args.out)}", sha256 = "{digest}", size = {path.stat().st_size} }}')
    return 0 if agreement >= args.min_cosine else 1


if __name__ == "__main__":
    sys.exit(main())
