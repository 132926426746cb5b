"""OCR: the steps around the PP-OCR models checked against OpenCV (which RapidOCR uses for them),
and the models reading words Pillow drew."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from findling.models.ocr import OcrLine, TextReader, _ctc_decode, _in_reading_order, _regions, resize
from tests.conftest import ocr_model_dir

cv2 = pytest.importorskip("cv2")  # the reference: rapidocr_onnxruntime's dependency, a dev tool here


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.uint8, st.tuples(st.integers(2, 40), st.integers(2, 40), st.just(3))),
    st.integers(2, 90),
    st.integers(2, 90),
)
def test_resize_is_opencvs_bilinear(image, height, width):
    ours = resize(image, height, width)
    theirs = cv2.resize(image.astype(np.float32), (width, height), interpolation=cv2.INTER_LINEAR)
    assert ours.shape == (height, width, 3)
    assert np.abs(ours - theirs).max() < 0.51  # OpenCV rounds its fixed-point weights


@settings(max_examples=80, deadline=None)
@given(arrays(np.bool_, st.tuples(st.integers(1, 30), st.integers(1, 30))))
def test_regions_are_opencvs_8_connected_components(mask):
    prob = np.where(mask, 0.75, 0.1).astype(np.float32)
    count, _labels, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    expected = sorted(
        (int(x), int(y), int(x + w), int(y + h)) for x, y, w, h, _area in stats[1:count]
    )  # label 0 is the background
    found = _regions(mask, prob)
    assert sorted(r[:4] for r in found) == expected
    assert all(abs(r[4] - 0.75) < 1e-5 for r in found)  # mean probability over the region's own pixels


def test_ctc_merges_repeats_and_drops_blanks():
    characters = ["", "a", "b", " "]
    steps = [1, 1, 0, 1, 2, 2, 0, 0]  # a a _ a b b _ _ -> "aab"
    probs = np.full((1, len(steps), 4), 0.01, dtype=np.float32)
    for t, k in enumerate(steps):
        probs[0, t, k] = 0.97
    ((text, at, confidence),) = _ctc_decode(probs, characters)
    assert text == "aab" and at == [0, 3, 4] and confidence == pytest.approx(0.97)


def test_reading_order_is_rows_then_left_to_right():
    lines = [
        OcrLine("second", 1, (10, 60, 100, 80)),
        OcrLine("right", 1, (300, 12, 400, 32)),
        OcrLine("left", 1, (10, 10, 100, 30)),
    ]
    assert [line.text for line in _in_reading_order(lines)] == ["left", "right", "second"]


def _drawn(lines, size=(1100, 320), font_size=32):
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=font_size)
    for i, line in enumerate(lines):
        draw.text((40, 40 + i * 2 * font_size), line, fill="black", font=font)
    return np.asarray(image)


@pytest.fixture(scope="module")
def reader():
    folder = ocr_model_dir()
    if folder is None:
        pytest.skip("rapidocr_onnxruntime (the OCR model's wheel) is not installed")
    return TextReader(folder / "ch_PP-OCRv4_det_infer.onnx", folder / "ch_PP-OCRv4_rec_infer.onnx")


def test_reads_the_words_of_a_picture_in_order(reader):
    lines = reader.read(_drawn(["The quarterly zymurgy report", "Invoice total 1,250.00 EUR"]))
    words = " ".join(line.text for line in lines).split()
    assert words[:4] == ["The", "quarterly", "zymurgy", "report"]
    assert {"Invoice", "total", "1,250.00", "EUR"} <= set(words)
    assert all(line.confidence > 0.8 for line in lines)


def test_a_blank_picture_has_no_lines(reader):
    assert reader.read(np.full((300, 400, 3), 255, dtype=np.uint8)) == []


def test_a_tiny_picture_is_read_without_error(reader):
    assert reader.read(np.zeros((1, 1, 3), dtype=np.uint8)) == []


def test_a_folder_holding_the_ocr_files_is_recognised_by_their_hashes():
    from pathlib import Path

    from findling.models.download import sha256_file
    from findling.models.importing import identify
    from findling.models.manifest import load_manifest
    from findling.models.signature import ModelSignatureError, check_signature, onnx_role

    folder = ocr_model_dir()
    if folder is None:
        pytest.skip("rapidocr_onnxruntime (the OCR model's wheel) is not installed")
    manifest = load_manifest(Path(__file__).resolve().parents[2] / "resources" / "models.toml")
    # three ONNX files (the wheel's angle classifier too): the two the manifest pins decide it
    assert identify(folder, manifest, sha256_file).name == "pp-ocrv4"
    check_signature("ocr", folder / "ch_PP-OCRv4_rec_infer.onnx")  # a picture in, symbols per step out
    with pytest.raises(ModelSignatureError):
        onnx_role(folder / "ch_PP-OCRv4_det_infer.onnx")  # a map of the picture out: not a recognizer
