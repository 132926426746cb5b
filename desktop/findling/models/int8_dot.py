"""Integer dot products of uint8 codes with an int8 query, through onnxruntime's
MatMulInteger kernel (resources/kernels/dot_u8s8.onnx); numpy in blocks where onnxruntime
cannot run it. The vector index's first pass over every chunk vector."""

from __future__ import annotations

import logging
import os
from typing import Any

import numpy as np

from findling.errors import FindlingError
from findling.models.runtime import create_session
from findling.paths import resources_dir

log = logging.getLogger(__name__)

_BLOCK = 16384


class Int8Dot:
    def __init__(self) -> None:
        self._session: Any = None
        try:
            self._session = create_session(resources_dir() / "kernels" / "dot_u8s8.onnx", "cpu", os.cpu_count() or 1)
        except (FindlingError, OSError) as exc:
            log.warning("integer vector scoring falls back to numpy: %s", exc)

    def __call__(self, codes: np.ndarray, query: np.ndarray) -> np.ndarray:
        """int32 [n]: codes (uint8 [n, dim]) · query (int8 [dim]); exact while dim < 66,000."""
        if len(codes) == 0:
            return np.zeros(0, dtype=np.int32)
        if self._session is not None:
            out = self._session.run(["scores"], {"codes": codes, "query": query.reshape(-1, 1)})[0]
            return np.asarray(out, dtype=np.int32).reshape(-1)
        q = query.astype(np.float32)
        scores = np.empty(len(codes), dtype=np.int32)
        for lo in range(0, len(codes), _BLOCK):
            scores[lo : lo + _BLOCK] = np.rint(codes[lo : lo + _BLOCK].astype(np.float32) @ q)
        return scores
