"""Music and recordings are found by their tags: title, artist, album, album artist, composer,
genre, year and comment, read by TinyTag (pure Python, MIT) from MP3, FLAC, Ogg/Opus, M4A, WAV,
AIFF and WMA. A file on disk is read where its tags are (TinyTag seeks: an M4A keeps them at
its end), never whole; one inside an archive or an e-mail is read from its bytes. A file with no
tags is not a document, as before. (mutagen, which Recoll uses, is GPL and is not bundled.)"""

from __future__ import annotations

import io
import struct
from pathlib import PurePath

from findling.errors import ExtractionError
from findling.ingest.extractors import NotText, Parsed

_FIELDS = (
    ("Title", "title"),
    ("Artist", "artist"),
    ("Album", "album"),
    ("Album artist", "albumartist"),
    ("Composer", "composer"),
    ("Genre", "genre"),
    ("Year", "year"),
    ("Comment", "comment"),
)


def extract_audio(data: bytes, path: str | None, name: str) -> Parsed:
    """The tags of an audio file: read from `path` when it is a file on disk, else from `data`."""
    from tinytag import TinyTag, TinyTagException

    try:
        tag = TinyTag.get(path) if path is not None else TinyTag.get(file_obj=io.BytesIO(data), filename=name)
    except TinyTagException as exc:
        raise ExtractionError(f"unreadable audio tags: {exc}") from exc
    except (OSError, ValueError, KeyError, IndexError, struct.error) as exc:
        raise ExtractionError(f"unreadable audio tags: {type(exc).__name__}: {exc}") from exc
    lines = [f"{label}: {value}" for label, attr in _FIELDS if (value := str(getattr(tag, attr, None) or "").strip())]
    if not lines:
        raise NotText("no tags")
    if tag.duration:
        minutes, seconds = divmod(int(tag.duration), 60)
        lines.append(f"Length: {minutes}:{seconds:02d}")
    title = str(tag.title or "").strip() or PurePath(name).name
    author = str(tag.artist or tag.albumartist or tag.composer or "").strip()
    return Parsed("\n".join(lines) + "\n", title[:300], author=author)
