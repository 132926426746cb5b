"""Pictures and scans through the indexer: their words found, marked as read by OCR, a time budget
per file, a setting that turns it off, and what was indexed before the model came read again."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from findling.engine import Engine
from findling.ingest.prepare import PrepareTask, prepare
from findling.records import DocumentRow, SearchMode, SearchRequest
from tests.helpers import draw_page

pytestmark = pytest.mark.slow  # processes, real models or whole folders: seconds each


def make_pictures(folder: Path) -> Path:
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    draw_page(["Meeting notes: the florbulate migration starts Monday"], size=(1200, 300), mode="RGB").save(
        folder / "screenshot.png"
    )
    draw_page(["Scanned letter from the county office"]).save(folder / "letter.jpg", quality=90)
    pages = [draw_page(["Your quindecagon permit was approved"]), draw_page(["Second page: the zarf inspection"])]
    pages[0].save(folder / "scan.pdf", save_all=True, append_images=pages[1:], resolution=150)
    gradient = np.tile(np.linspace(0, 255, 640, dtype=np.uint8), (480, 1))
    Image.fromarray(np.dstack([gradient, gradient[::-1], gradient])).save(folder / "sunset.png")
    (folder / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"not a picture at all" * 20)
    return folder


def _paths(engine: Engine, query: str) -> list[str]:
    return [Path(h.path).name for h in engine.find(SearchRequest(query, SearchMode.KEYWORD)).hits]


def test_words_in_pictures_and_scans_are_found_and_marked(tmp_path, settings, ocr_installed):
    folder = make_pictures(tmp_path / "pictures")
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(folder)
        engine.index(embed=False)
        (hit,) = engine.find(SearchRequest("florbulate migration", SearchMode.KEYWORD)).hits
        assert Path(hit.path).name == "screenshot.png" and hit.ocr_pages == 1
        assert _paths(engine, "county office") == ["letter.jpg"]
        (scan,) = engine.find(SearchRequest("zarf inspection", SearchMode.KEYWORD)).hits
        assert Path(scan.path).name == "scan.pdf" and scan.page == 2 and scan.ocr_pages == 2
        assert _paths(engine, "quindecagon") == ["scan.pdf"]
        status = engine.status()
        assert (status.ocr, status.ocr_documents, status.ocr_pages) == ("", 3, 4)
        assert status.ocr_line == "pictures and scans: OCR read 4 pages of 3 documents"
        problems = {Path(p.path).name: p for p in status.problems}
        # a damaged picture is named with why; a picture without words is no document, not a problem
        assert problems["broken.png"].status == "failed" and "cannot decode the picture" in problems["broken.png"].error
        assert "sunset.png" not in problems and status.indexed == 3


def test_pictures_indexed_before_the_model_are_read_when_it_comes(tmp_path, settings):
    from findling.models.download import ModelStore
    from findling.models.manifest import load_manifest
    from tests.conftest import ocr_model_dir

    folder = make_pictures(tmp_path / "pictures")
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(folder)
        engine.index(embed=False)
        assert _paths(engine, "florbulate") == []
        assert "no ocr model installed" in engine.status().ocr_line
        source = ocr_model_dir()
        if source is None:
            pytest.skip("rapidocr_onnxruntime (the OCR model's wheel) is not installed")
        ModelStore().import_dir(load_manifest(Path("resources/models.toml")).get("pp-ocrv4"), source)
        report = engine.index(embed=False)
        # the PDF is read again; the pictures (no words in their metadata: not documents) are new
        assert (report.updated, report.added) == (1, 2)
        assert report.warnings == ["OCR was turned on: 1 pictures and PDFs are read again"]
        assert _paths(engine, "florbulate") == ["screenshot.png"]
        assert _paths(engine, "quindecagon") == ["scan.pdf"]


def test_ocr_off_in_settings(tmp_path, settings, ocr_installed):
    settings.index.ocr = False
    folder = make_pictures(tmp_path / "pictures")
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(folder)
        engine.index(embed=False)
        assert _paths(engine, "florbulate") == []
        assert engine.status().ocr_line.startswith("pictures and scans: words not read (off in settings")


def test_a_scan_stops_being_read_when_its_budget_is_spent(tmp_path, ocr_installed):
    from findling.engine import Engine as _Engine

    folder = make_pictures(tmp_path / "pictures")
    with _Engine(tmp_path / "home") as engine:
        models = engine.ocr_models()
    assert isinstance(models, tuple)
    row = prepare(PrepareTask(str(folder / "scan.pdf"), ocr_models=models, ocr_seconds=0.0))
    assert isinstance(row, DocumentRow) and row.status == "ok"
    assert row.ocr_pages == 0
    assert "2 scanned pages were not read" in row.error


def test_a_picture_too_large_to_read_is_said(tmp_path, settings, ocr_installed):
    """A decompression bomb: 144 megapixels of one colour in a file of a few kilobytes."""
    from PIL import Image

    folder = tmp_path / "pictures"
    folder.mkdir()
    Image.new("1", (12_000, 12_000), 1).save(folder / "poster.png")
    assert (folder / "poster.png").stat().st_size < 100_000
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(folder)
        engine.index(embed=False)
        (problem,) = engine.status().problems
        assert problem.status == "failed" and "over 60 MP, its text is not read" in problem.error


def test_a_large_picture_keeps_its_metadata_words(tmp_path, settings, ocr_installed):
    from PIL import Image

    folder = tmp_path / "pictures"
    folder.mkdir()
    exif = Image.Exif()
    exif[0x010E] = "The panorama of the glacierword"
    Image.new("1", (12_000, 12_000), 1).save(folder / "panorama.tif", exif=exif, compression="group4")
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(folder)
        engine.index(embed=False)
        assert _paths(engine, "glacierword") == ["panorama.tif"]
        (problem,) = engine.status().problems  # indexed, partly: said
        assert problem.status == "ok" and "its text is not read" in problem.error
