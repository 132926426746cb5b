"""Pictures are found by the words people put in them: EXIF description, title, comment,
keywords and artist, with camera and date; a picture with no words stays out of the index."""

from __future__ import annotations

import os

import pytest
from PIL import Image

from findling.engine import Engine
from findling.faces.payloads import result_json
from findling.records import Filters, SearchMode, SearchRequest


def _exif(description: str = "", artist: str = "", title: str = "", comment: str = "") -> Image.Exif:
    exif = Image.Exif()
    if description:
        exif[0x010E] = description  # ImageDescription
    if artist:
        exif[0x013B] = artist  # Artist
    if title:
        exif[0x9C9B] = title.encode("utf-16-le")  # XPTitle, as Windows writes it
    if comment:
        exif[0x9C9C] = comment.encode("utf-16-le")  # XPComment
    exif[0x010F], exif[0x0110], exif[0x0132] = "Canon", "EOS 5D", "2024:05:01 18:30:00"
    return exif


@pytest.fixture()
def pictures(tmp_path, settings):
    folder = tmp_path / "pictures"
    folder.mkdir()
    Image.new("RGB", (40, 30), "red").save(
        folder / "harbour.jpg", exif=_exif("Sunset over the quokkaville harbour", "Ada Lovelace")
    )
    Image.new("RGB", (40, 30), "blue").save(folder / "scan.tif", exif=_exif(title="Tax form", comment="zebrafish"))
    Image.new("RGB", (40, 30), "green").save(folder / "diagram.png", exif=_exif(description="Pipeline wombat diagram"))
    noise = Image.frombytes("RGB", (900, 900), os.urandom(900 * 900 * 3))  # a large photo: its head is read
    noise.save(folder / "large.jpg", exif=_exif(description="Glacier platypus expedition"), quality=95)
    Image.new("RGB", (40, 30), "white").save(folder / "plain.jpg")  # no words at all
    (folder / "broken.jpg").write_bytes(b"\xff\xd8\xff\xe1\x00\x10Exif\x00\x00MM\x00*" + os.urandom(64))
    engine = Engine(tmp_path / "home", settings=settings)
    engine.add_source(folder)
    report = engine.index(embed=False)
    yield engine, folder, report
    engine.close()


def _names(result) -> list[str]:
    return [os.path.basename(h.path) for h in result.hits]


def test_words_in_pictures_find_them(pictures):
    engine, folder, _ = pictures
    assert (folder / "large.jpg").stat().st_size > 256 * 1024
    for word, name in (
        ("quokkaville", "harbour.jpg"),
        ("zebrafish", "scan.tif"),
        ("wombat", "diagram.png"),
        ("platypus", "large.jpg"),
        ("lovelace", "harbour.jpg"),
    ):
        assert _names(engine.find(SearchRequest(word, mode=SearchMode.KEYWORD))) == [name], word
    hit = engine.find(SearchRequest("quokkaville", mode=SearchMode.KEYWORD)).hits[0]
    assert hit.title == "Sunset over the quokkaville harbour" and hit.author == "Ada Lovelace"
    assert result_json(engine.find(SearchRequest("quokkaville", mode=SearchMode.KEYWORD)))["results"][0]["author"]
    text = engine.document_text(hit.doc_id).text
    assert "Camera: Canon EOS 5D" in text and "Taken: 2024-05-01 18:30:00" in text
    only = SearchRequest("canon", mode=SearchMode.KEYWORD, filters=Filters(authors=("lovelace",)))
    assert _names(engine.find(only)) == ["harbour.jpg"]  # author: works on pictures


def test_pictures_without_words_stay_out_and_a_broken_one_is_said(pictures):
    engine, folder, report = pictures
    assert report.added == 4
    paths = set(engine.document_paths().values())
    assert str(folder / "plain.jpg") not in paths
    failed = {os.path.basename(f.path): f.error for f in engine.status().problems}
    assert "plain.jpg" not in failed
    assert str(folder / "broken.jpg") not in paths or "broken.jpg" in failed
