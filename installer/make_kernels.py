"""Maintainers' tool: write the small ONNX graphs Findling runs for its own arithmetic
(`resources/kernels/`). Needs the `onnx` package, which the app itself does not.

    pip install onnx && python installer/make_kernels.py

dot_u8s8.onnx: MatMulInteger of uint8 codes [n, dim] by an int8 query [dim, k] into int32
scores [n, k]. onnxruntime runs it with VNNI/AVX2 integer kernels, several times faster
than any numpy route over int8 codes (numpy has no integer BLAS)."""

from __future__ import annotations

from pathlib import Path

KERNELS = Path(__file__).resolve().parent.parent / "resources" / "kernels"


def dot_u8s8() -> bytes:
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["codes", "query"], ["scores"])],
        "dot_u8s8",
        [
            helper.make_tensor_value_info("codes", TensorProto.UINT8, ["n", "dim"]),
            helper.make_tensor_value_info("query", TensorProto.INT8, ["dim", "k"]),
        ],
        [helper.make_tensor_value_info("scores", TensorProto.INT32, ["n", "k"])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="findling")
    model.ir_version = 8
    return bytes(model.SerializeToString())


if __name__ == "__main__":
    KERNELS.mkdir(parents=True, exist_ok=True)
    (KERNELS / "dot_u8s8.onnx").write_bytes(dot_u8s8())
    print(f"wrote {KERNELS / 'dot_u8s8.onnx'}")
