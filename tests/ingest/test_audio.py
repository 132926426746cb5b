"""Recordings are found by their tags (title, artist, album, comment...); one with no tags stays
out; a file on disk is read where its tags are, not whole."""

from __future__ import annotations

import os
import wave

import pytest
from mutagen.id3 import COMM, TALB, TIT2, TPE1
from mutagen.wave import WAVE

from findling.engine import Engine
from findling.records import Filters, SearchMode, SearchRequest


def _recording(path, seconds: float = 1.0, **tags: str) -> None:
    with wave.open(str(path), "wb") as out:  # a real WAV, by the standard library
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\x00\x00" * int(8000 * seconds))
    if tags:
        audio = WAVE(str(path))
        audio.add_tags()
        frames = {"title": TIT2, "artist": TPE1, "album": TALB}
        for key, value in tags.items():
            if key == "comment":
                audio.tags.add(COMM(encoding=3, lang="eng", desc="", text=value))
            else:
                audio.tags.add(frames[key](encoding=3, text=value))
        audio.save()


@pytest.fixture()
def music(tmp_path, settings):
    folder = tmp_path / "music"
    folder.mkdir()
    _recording(folder / "serenade.wav", title="Quokka serenade", artist="The Wombats", album="Marsupial nights")
    _recording(folder / "memo.wav", comment="zebrafish tank maintenance reminder")
    _recording(folder / "long.wav", seconds=40, title="Glacier platypus field recording")  # 640 kB
    _recording(folder / "untagged.wav")
    engine = Engine(tmp_path / "home", settings=settings)
    engine.add_source(folder)
    report = engine.index(embed=False)
    yield engine, folder, report
    engine.close()


def test_tags_find_recordings(music):
    engine, folder, report = music
    assert report.added == 3 and report.failed == 0
    for word, name in (("quokka", "serenade.wav"), ("marsupial", "serenade.wav"), ("zebrafish", "memo.wav")):
        hits = engine.find(SearchRequest(word, mode=SearchMode.KEYWORD)).hits
        assert [os.path.basename(h.path) for h in hits] == [name], word
    hit = engine.find(SearchRequest("platypus", mode=SearchMode.KEYWORD)).hits[0]
    assert hit.title == "Glacier platypus field recording" and (folder / "long.wav").stat().st_size > 256 * 1024
    serenade = engine.find(SearchRequest("quokka", mode=SearchMode.KEYWORD)).hits[0]
    assert serenade.author == "The Wombats"
    assert "Length: 0:01" in engine.document_text(serenade.doc_id).text
    by = SearchRequest("serenade", mode=SearchMode.KEYWORD, filters=Filters(authors=("wombats",)))
    assert len(engine.find(by).hits) == 1
    assert str(folder / "untagged.wav") not in set(engine.document_paths().values())
