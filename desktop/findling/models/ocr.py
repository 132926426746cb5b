"""Words in pictures and scans: PaddleOCR's PP-OCRv4 text detector and recognizer, the ONNX
builds RapidOCR ships, run with onnxruntime and numpy alone.

RapidOCR's own pipeline needs OpenCV, Shapely and pyclipper (over 100 MB, more than the whole
app may grow), so the two steps around the models are done here: the detector's probability
map becomes text boxes by labelling its connected regions row run by row run (axis-aligned
boxes: screenshots and scans are upright), grown back by DB's unclip distance; each box is cut
from the picture, scaled to the recognizer's 48-pixel height and read by greedy CTC decoding
with the character list the recognizer carries in its metadata."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from findling.models.runtime import Session, create_session

# the detector's settings as RapidOCR 1.4 runs PP-OCRv4 (its config.yaml)
_DET_THRESHOLD = 0.3  # a pixel is text
_BOX_THRESHOLD = 0.5  # a region is text: its mean probability
_UNCLIP_RATIO = 1.6
_DET_MIN_SIDE = 736  # smaller pictures are scaled up to this before detection
_DET_MAX_SIDE = 2000  # larger ones are scaled down to this first
_DET_MAX_UPSCALE = 2.0  # an icon scaled up 10 times shows the detector shapes, not words
_MIN_PICTURE = 16  # pixels: a narrower picture (a spacer, a tracking pixel) holds no line of text
# the detector runs on tiles this large (multiples of 32), overlapping by a line's height or two
_DET_TILE = 960
_DET_OVERLAP = 64
_MIN_BOX = 3  # pixels: smaller regions are specks
_MAX_BOXES = 1000
_REC_HEIGHT = 48
# One line at a time: a batch pads every line to its widest, and on one CPU thread the padding
# cost more than batching saved (4 screenshots twice: 24.5 s in batches of 8, 16.8 s one by one;
# the worker's peak memory 640 → 470 MB)
_REC_BATCH = 1
_MIN_CONFIDENCE = 0.5  # a line read with less is noise (a logo, a texture)
_SPACE_GAP = 0.25  # a blank run this share of the ink's height parts two words


@dataclass(frozen=True)
class OcrLine:
    text: str
    confidence: float
    box: tuple[int, int, int, int]  # left, top, right, bottom in the picture's pixels


def resize(image: np.ndarray, height: int, width: int) -> np.ndarray:
    """Bilinear scaling of an H×W×C uint8 picture (OpenCV's cv2.resize, in numpy)."""
    h, w = image.shape[:2]
    if (h, w) == (height, width):
        return image.astype(np.float32)
    ys = np.clip((np.arange(height, dtype=np.float32) + 0.5) * (h / height) - 0.5, 0, h - 1)
    xs = np.clip((np.arange(width, dtype=np.float32) + 0.5) * (w / width) - 0.5, 0, w - 1)
    y0 = np.floor(ys).astype(np.intp)
    x0 = np.floor(xs).astype(np.intp)
    y1 = np.minimum(y0 + 1, h - 1)
    x1 = np.minimum(x0 + 1, w - 1)
    fy = (ys - y0)[:, None, None]
    fx = (xs - x0)[None, :, None]
    # the rows and columns are gathered from the uint8 picture: a float copy of a large scan
    # would take a worker's memory
    upper, lower = image[y0], image[y1]
    top = upper[:, x0] * (1 - fx) + upper[:, x1] * fx
    bottom = lower[:, x0] * (1 - fx) + lower[:, x1] * fx
    scaled: np.ndarray = (top * (1 - fy) + bottom * fy).astype(np.float32)
    return scaled


def _regions(mask: np.ndarray, prob: np.ndarray) -> list[tuple[int, int, int, int, float]]:
    """(left, top, right, bottom, mean probability) of each 8-connected region of `mask`,
    found from its runs: a run joins the runs it touches on the row above (union-find)."""
    h, w = mask.shape
    padded = np.zeros((h, w + 2), dtype=np.int8)
    padded[:, 1:-1] = mask
    edges = np.diff(padded, axis=1)
    rows, starts = np.nonzero(edges == 1)
    _, ends = np.nonzero(edges == -1)  # exclusive; row-major order pairs each end with its start
    count = len(rows)
    if count == 0:
        return []
    parent = np.arange(count)

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first = np.searchsorted(rows, np.arange(h + 1))
    for row in range(1, h):
        i, i_end = first[row - 1], first[row]
        j, j_end = first[row], first[row + 1]
        while i < i_end and j < j_end:
            if starts[j] <= ends[i] and starts[i] <= ends[j]:  # touching, diagonals too
                a, b = find(i), find(j)
                if a != b:
                    parent[max(a, b)] = min(a, b)
            if ends[i] < ends[j]:
                i += 1
            else:
                j += 1
    labels = np.fromiter((find(i) for i in range(count)), dtype=np.intp, count=count)
    sums = np.cumsum(prob, axis=1)
    run_sum = sums[rows, ends - 1] - np.where(starts > 0, sums[rows, np.maximum(starts - 1, 0)], 0)
    lengths = (ends - starts).astype(np.float64)
    size = int(labels.max()) + 1
    mass = np.bincount(labels, weights=run_sum, minlength=size)
    area = np.bincount(labels, weights=lengths, minlength=size)
    left = np.full(size, w)
    np.minimum.at(left, labels, starts)
    right = np.zeros(size, dtype=np.intp)
    np.maximum.at(right, labels, ends)
    top = np.full(size, h)
    np.minimum.at(top, labels, rows)
    bottom = np.zeros(size, dtype=np.intp)
    np.maximum.at(bottom, labels, rows + 1)
    found = np.nonzero(area)[0]
    return [(int(left[k]), int(top[k]), int(right[k]), int(bottom[k]), float(mass[k] / area[k])) for k in found]


def _ctc_decode(probs: np.ndarray, characters: list[str]) -> list[tuple[str, list[int], float]]:
    """Greedy CTC: the best symbol at each step, repeats merged, blanks (0) dropped; with the
    step each character was read at."""
    best = probs.argmax(axis=2)
    score = probs.max(axis=2)
    out = []
    for seq, conf in zip(best, score, strict=True):
        keep = seq != 0
        keep[1:] &= seq[1:] != seq[:-1]
        steps = np.nonzero(keep)[0]
        symbols = [characters[i] if i < len(characters) else "" for i in seq[steps]]
        at = [int(step) for step, symbol in zip(steps, symbols, strict=True) for _ in symbol]
        out.append(("".join(symbols), at, float(conf[keep].mean()) if keep.any() else 0.0))
    return out


def _word_gaps(crop: np.ndarray) -> list[tuple[int, int]]:
    """Column spans of a line's picture with no ink that are wide enough to part words: the
    recognizer often runs words set apart by a wide gap together ("total1,250.00")."""
    gray = crop.mean(axis=2)
    background = float(np.median(gray))
    ink = np.abs(gray - background) > 48
    rows = np.nonzero(ink.any(axis=1))[0]
    if len(rows) == 0:
        return []
    height = rows[-1] - rows[0] + 1
    blank = np.concatenate(([False], ~ink.any(axis=0), [False])).astype(np.int8)
    edges = np.diff(blank)
    starts, ends = np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0]
    wide = max(3.0, _SPACE_GAP * height)
    return [(int(a), int(b)) for a, b in zip(starts, ends, strict=True) if b - a >= wide]


def _spaced(text: str, steps: list[int], step_width: float, gaps: list[tuple[int, int]]) -> str:
    """`text` with a space between two characters read either side of a word gap."""
    if not gaps or len(text) < 2:
        return text
    out = text[0]
    for k in range(1, len(text)):
        left, right = (steps[k - 1] + 0.5) * step_width, (steps[k] + 0.5) * step_width
        if " " not in (text[k - 1], text[k]) and any(left < a and b < right for a, b in gaps):
            out += " "
        out += text[k]
    return out


def _in_reading_order(lines: list[OcrLine]) -> list[OcrLine]:
    """Top to bottom; boxes whose middles share a line are read left to right."""
    rows: list[list[OcrLine]] = []
    for line in sorted(lines, key=lambda item: (item.box[1], item.box[0])):
        middle = (line.box[1] + line.box[3]) / 2
        if rows:
            last = rows[-1][-1]
            if last.box[1] <= middle <= last.box[3]:
                rows[-1].append(line)
                continue
        rows.append([line])
    return [item for row in rows for item in sorted(row, key=lambda item: item.box[0])]


class TextReader:
    """One detector and one recognizer session; `read` takes an H×W×3 RGB uint8 picture."""

    def __init__(self, detector: Path, recognizer: Path, provider: str = "auto", threads: int = 1) -> None:
        # no arena: each picture has its own size, and a worker would keep its largest one's memory
        self._det: Session = create_session(detector, provider, threads, arena=False)
        self._rec: Session = create_session(recognizer, provider, threads, arena=False)
        meta = self._rec.session.get_modelmeta().custom_metadata_map
        if "character" not in meta:
            raise ValueError(f"{recognizer.name} carries no character list (not a PP-OCR recognizer?)")
        # index 0 is CTC's blank; the list ends with a space, as PaddleOCR builds it
        self._characters = ["", *meta["character"].splitlines(), " "]

    @property
    def provider(self) -> str:
        return self._det.provider

    def read(self, rgb: np.ndarray) -> list[OcrLine]:
        bgr = np.ascontiguousarray(rgb[:, :, ::-1])  # PaddleOCR's models were trained on OpenCV's order
        boxes = self._detect(bgr)
        if not boxes:
            return []
        lines = self._recognize(bgr, boxes)
        return _in_reading_order([line for line in lines if line.text.strip() and line.confidence >= _MIN_CONFIDENCE])

    def _detect(self, bgr: np.ndarray) -> list[tuple[int, int, int, int]]:
        h, w = bgr.shape[:2]
        if min(h, w) < _MIN_PICTURE:
            return []
        scale = 1.0
        if max(h, w) > _DET_MAX_SIDE:
            scale = _DET_MAX_SIDE / max(h, w)
        elif min(h, w) < _DET_MIN_SIDE:
            scale = min(_DET_MIN_SIDE / min(h, w), _DET_MAX_SIDE / max(h, w), _DET_MAX_UPSCALE)
        rh = max(32, int(round(h * scale / 32)) * 32)
        rw = max(32, int(round(w * scale / 32)) * 32)
        prob = self._probabilities((resize(bgr, rh, rw) / 255.0 - 0.5) / 0.5)
        mask = prob > _DET_THRESHOLD
        # DB's 2×2 dilation: joins the letters of a word the model left apart
        mask[:-1, :-1] |= mask[1:, :-1] | mask[:-1, 1:] | mask[1:, 1:]
        sy, sx = h / rh, w / rw
        boxes = []
        for left, top, right, bottom, score in _regions(mask, prob):
            bw, bh = right - left, bottom - top
            if min(bw, bh) < _MIN_BOX or score < _BOX_THRESHOLD:
                continue
            grow = bw * bh * _UNCLIP_RATIO / (2 * (bw + bh))  # DB's unclip distance for a rectangle
            box = (
                max(0, int((left - grow) * sx)),
                max(0, int((top - grow) * sy)),
                min(w, int(math.ceil((right + grow) * sx))),
                min(h, int(math.ceil((bottom + grow) * sy))),
            )
            if box[2] - box[0] > _MIN_BOX and box[3] - box[1] > _MIN_BOX:
                boxes.append(box)
        return boxes[:_MAX_BOXES]

    def _probabilities(self, pixels: np.ndarray) -> np.ndarray:
        """The detector's text probability for each pixel, run on overlapping tiles: its
        activations for a whole page held 0.9 GB; a tile's hold a fifth of that."""
        h, w = pixels.shape[:2]
        prob = np.zeros((h, w), dtype=np.float32)
        step = _DET_TILE - _DET_OVERLAP
        for top in range(0, max(1, h - _DET_OVERLAP), step):
            for left in range(0, max(1, w - _DET_OVERLAP), step):
                tile = pixels[top : top + _DET_TILE, left : left + _DET_TILE]
                feed = {self._det.input_names[0]: tile.transpose(2, 0, 1)[None].astype(np.float32)}
                out = self._det.run(None, feed)[0][0, 0]
                view = prob[top : top + tile.shape[0], left : left + tile.shape[1]]
                np.maximum(view, out[: tile.shape[0], : tile.shape[1]], out=view)
        return prob

    def _recognize(self, bgr: np.ndarray, boxes: list[tuple[int, int, int, int]]) -> list[OcrLine]:
        crops = []
        for left, top, right, bottom in boxes:
            crop = bgr[top:bottom, left:right]
            if crop.shape[0] >= 1.5 * crop.shape[1]:  # a vertical line of text, read turned
                crop = np.rot90(crop)
            crops.append(crop)
        order = sorted(range(len(crops)), key=lambda k: crops[k].shape[1] / crops[k].shape[0])
        lines: list[OcrLine | None] = [None] * len(crops)
        for at in range(0, len(order), _REC_BATCH):
            batch = order[at : at + _REC_BATCH]
            ratios = [crops[k].shape[1] / crops[k].shape[0] for k in batch]
            width = int(_REC_HEIGHT * max(320 / _REC_HEIGHT, *ratios))
            pixels = np.zeros((len(batch), 3, _REC_HEIGHT, width), dtype=np.float32)
            for slot, (k, ratio) in enumerate(zip(batch, ratios, strict=True)):
                scaled_w = min(width, int(math.ceil(_REC_HEIGHT * ratio)))
                scaled = resize(crops[k], _REC_HEIGHT, max(1, scaled_w))
                pixels[slot, :, :, : scaled.shape[1]] = ((scaled / 255.0 - 0.5) / 0.5).transpose(2, 0, 1)
            probs = self._rec.run(None, {self._rec.input_names[0]: pixels})[0]
            steps_per_pixel = probs.shape[1] / width
            for k, (text, steps, confidence) in zip(batch, _ctc_decode(probs, self._characters), strict=True):
                scale = _REC_HEIGHT / crops[k].shape[0]  # crop pixels to model pixels
                spaced = _spaced(text, steps, 1 / (steps_per_pixel * scale), _word_gaps(crops[k]))
                lines[k] = OcrLine(spaced.strip(), confidence, boxes[k])
        return [line for line in lines if line is not None]
