"""Short stable document ids (`#3fa9c2`): a hash of the document's path, so the same file keeps
its id across re-indexing and between the window, the CLI and agents."""

from __future__ import annotations

import hashlib
import os
import re

from findling.errors import QuerySyntaxError
from findling.pathnames import absolute_address

SHORT = 6  # hex digits shown; longer prefixes of the same hash also name the document
_FULL = 16
_REF = re.compile(r"#?([0-9a-f]{4,16})", re.IGNORECASE)
_MAX_DIGITS = 9  # a line number past a billion is a mistake, and int() refuses 4,300 digits
_LINE_SUFFIX = re.compile(r"^(.*?):(\d+)(?::(\d+))?$")


def full_docid(path: str) -> str:
    return hashlib.blake2b(path.encode("utf-8", "surrogateescape"), digest_size=_FULL // 2).hexdigest()


def docid(path: str) -> str:
    return full_docid(path)[:SHORT]


def docid_prefix(ref: str) -> str | None:
    """The hex prefix a reference names (`#3fa9c2` or `3fa9c2`), or None when it is not a docid."""
    match = _REF.fullmatch(ref.strip())
    return match.group(1).lower() if match else None


def split_reference(ref: str) -> tuple[str, int | None, int | None]:
    """`REF[:line[:count]]` → (REF, line, count). A drive letter (`C:\\x`) is not a line."""
    match = _LINE_SUFFIX.match(ref.strip())
    if match is None or not match.group(1):
        return ref.strip(), None, None
    if len(match.group(2)) > _MAX_DIGITS or len(match.group(3) or "") > _MAX_DIGITS:
        raise QuerySyntaxError(f"line numbers have at most {_MAX_DIGITS} digits: {ref.strip()[:60]}…")
    count = int(match.group(3)) if match.group(3) else None
    return match.group(1), int(match.group(2)), count


def absolute_reference(ref: str) -> str:
    """A path reference made absolute in the caller's folder (the index's owner runs in another);
    a docid, even a mistyped one the owner will name as such, is left as it is."""
    if ref.startswith("#") or docid_prefix(split_reference(ref)[0]) is not None and not os.path.exists(ref):
        return ref
    path, line, count = split_reference(ref)
    suffix = "" if line is None else f":{line}" + ("" if count is None else f":{count}")
    return absolute_address(path) + suffix
