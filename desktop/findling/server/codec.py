"""Engine calls and their answers as data: the records of `findling.records`, Findling's errors and
plain values, written as JSON with a tag for each kind that JSON lacks. Nothing else crosses.

A process that can write the index folder (a shared or portable index, another program of the
same user) could put a record there that sends every client to its own socket; with pickle, its
reply would run code in each of them. Here a reply can only name a record class of
`findling.records` (built field by field through its constructor) or an error class (built from
its message): anything else is refused."""

from __future__ import annotations

import base64
import dataclasses
import enum
import json
import math
from typing import Any

from findling import records
from findling.errors import FindlingError, Remedy

_RECORDS: dict[str, type] = {
    name: kind
    for name, kind in vars(records).items()
    if isinstance(kind, type)
    and kind.__module__.startswith(records.__name__ + ".")
    and (dataclasses.is_dataclass(kind) or issubclass(kind, enum.Enum))
} | {"Remedy": Remedy}


class DecodeError(ValueError):
    """A message that is not one of Findling's values."""


def _errors() -> dict[str, type[FindlingError]]:
    """Every FindlingError class loaded in this process, by name (read at each decode: a module
    loaded later, the model runtime say, adds its own)."""
    found: dict[str, type[FindlingError]] = {}
    pending = [FindlingError]
    while pending:
        kind = pending.pop()
        found.setdefault(kind.__name__, kind)
        pending.extend(kind.__subclasses__())
    return found


def encode(value: Any) -> Any:  # noqa: C901 - one branch per kind of value
    """`value` as JSON-ready data."""
    if isinstance(value, enum.Enum):  # before str and int: a StrEnum is both
        return {"__e": type(value).__name__, "v": encode(value.value)}
    if value is None or isinstance(value, (bool, str)):
        return value if type(value) in (bool, str, type(None)) else str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else {"__f": repr(float(value))}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = type(value).__name__
        if _RECORDS.get(name) is not type(value):
            raise TypeError(f"{name} is not a record that may cross between processes")
        return {"__r": name, "f": {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    if isinstance(value, bytes):
        return {"__b": base64.b64encode(value).decode("ascii")}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, tuple):
        return {"__t": [encode(v) for v in value]}
    if isinstance(value, (set, frozenset)):
        return {"__s": [encode(v) for v in value]}
    if isinstance(value, dict):
        return {"__d": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, BaseException):
        kind = type(value) if isinstance(value, FindlingError) else FindlingError
        remedy = getattr(value, "remedy", None)
        if remedy is None:
            return {"__x": kind.__name__, "m": str(value)}
        return {"__x": kind.__name__, "m": str(value), "r": [str(remedy), str(getattr(value, "subject", ""))]}
    if hasattr(value, "item") and hasattr(value, "dtype"):  # a numpy number
        return encode(value.item())
    raise TypeError(f"a {type(value).__name__} cannot cross between processes")


def decode(data: Any) -> Any:  # noqa: C901 - one branch per tag
    """The value `encode` wrote; a DecodeError for anything else."""
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict) or len(data) > (3 if "__x" in data else 2):
        raise DecodeError(f"not a Findling value: {type(data).__name__}")
    if "__t" in data:
        return tuple(decode(v) for v in _items(data["__t"]))
    if "__s" in data:
        return frozenset(decode(v) for v in _items(data["__s"]))
    if "__d" in data:
        return {decode(k): decode(v) for k, v in (_pair(p) for p in _items(data["__d"]))}
    if "__b" in data:
        try:
            return base64.b64decode(str(data["__b"]), validate=True)
        except ValueError as exc:
            raise DecodeError(f"not bytes: {exc}") from None
    if "__f" in data:
        text = data["__f"]
        if text not in ("inf", "-inf", "nan"):
            raise DecodeError(f"not a number: {text!r}")
        return float(text)
    if "__e" in data:
        kind = _RECORDS.get(str(data["__e"]))
        if kind is None or not issubclass(kind, enum.Enum):
            raise DecodeError(f"unknown kind of value {data['__e']!r}")
        return kind(decode(data.get("v")))
    if "__r" in data:
        kind = _RECORDS.get(str(data["__r"]))
        fields = data.get("f")
        if kind is None or not dataclasses.is_dataclass(kind) or not isinstance(fields, dict):
            raise DecodeError(f"unknown record {data['__r']!r}")
        return _record(kind, fields)
    if "__x" in data:
        error = _errors().get(str(data["__x"]), FindlingError)
        remedy, subject = _items(data.get("r") or [None, ""])[:2] if "r" in data else (None, "")
        try:
            known = Remedy(remedy) if remedy else None
        except ValueError:  # a newer peer's remedy: the message alone still reads right
            known = None
        return error(str(data.get("m", "")), remedy=known, subject=str(subject or ""))
    raise DecodeError("not a Findling value")


def _items(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise DecodeError("a list was expected")
    return value


def _pair(value: Any) -> tuple[Any, Any]:
    if not isinstance(value, list) or len(value) != 2:
        raise DecodeError("a key and a value were expected")
    return value[0], value[1]


def _record(kind: type, fields: dict[str, Any]) -> Any:
    known = {f.name: f for f in dataclasses.fields(kind)}
    if not set(fields) <= set(known):
        raise DecodeError(f"{kind.__name__} has no field {sorted(set(fields) - set(known))[0]!r}")
    values = {name: decode(value) for name, value in fields.items()}
    given = {name: value for name, value in values.items() if known[name].init}
    try:
        made = kind(**given)
    except TypeError as exc:
        raise DecodeError(f"{kind.__name__}: {exc}") from None
    for name, value in values.items():
        if not known[name].init:
            object.__setattr__(made, name, value)
    return made


def dumps(message: Any) -> bytes:
    return json.dumps(encode(message), ensure_ascii=False, allow_nan=False).encode()


def loads(data: bytes) -> Any:
    try:
        parsed = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DecodeError(f"not a Findling message: {exc}") from None
    return decode(parsed)
