"""Every filter a search can be kept to, one row each: the query syntax's keys, what a value as
written becomes, the SQL that keeps a document, and how the query writes it back (why-not names
the filter that removes a file so). The query parser, the keyword lane's SQL (which every lane's
filters go through) and why-not read this table (as qutebrowser's configdata declares each
setting once): a new filter is one row here and its field in records.Filters."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from findling.dates import parse_date
from findling.filter_options import OPTION, FilterOption
from findling.pathnames import folder_filter, under_sql
from findling.records import Filters
from findling.search.facets import type_extension_sql
from findling.store.documents import dated_sql
from findling.store.symbols import symbol_match_sql

Clause = tuple[str, list[object]]  # SQL over the documents table's alias, and its parameters


@dataclass(frozen=True)
class FilterRow:
    field: str  # the records.Filters field it fills
    keys: tuple[str, ...]  # its names in the query syntax, the first as why-not writes it
    values: Callable[[str], list[Any]]  # a value as written (`ext:md,pdf`) -> the field's values
    # (alias, a value) -> the condition a document must meet; a row whose values combine as "any"
    # is given them all at once (one IN, not a chain of ORs)
    sql: Callable[[str, Any], Clause]
    # how several values combine: each must hold ("each"), any may ("any"), or the latest /
    # earliest date counts ("latest", "earliest": one value, the field is not a tuple)
    combine: str = "each"
    shown: Callable[[Any], str] = str  # a value as the query syntax writes it
    option: FilterOption | None = None  # the option the faces offer for it (CLI --ext, MCP and HTTP)


def _extensions(value: str) -> list[str]:
    return [e for e in (part.strip().lower().lstrip("*").lstrip(".") for part in value.split(",")) if e]


def _lowered(value: str) -> list[str]:
    return [value.lower()] if value else []


def _kept(value: str) -> list[str]:
    # a name keeps its case: `sym:JSONDecoder` is an identifier, and lights up as one (matching is
    # case-insensitive all the same: store/symbols.py)
    return [value] if value else []


def _one_of(column: Callable[[str], str]) -> Callable[[str, Sequence[str]], Clause]:
    def sql(alias: str, values: Sequence[str]) -> Clause:
        return f"{column(alias)} IN ({', '.join('?' for _ in values)})", list(values)

    return sql


def _under(alias: str, folders: Sequence[str]) -> Clause:
    clauses = [under_sql(f"{alias}.path", folder) for folder in folders]
    return "(" + " OR ".join(sql for sql, _ in clauses) + ")", [v for _, values in clauses for v in values]


def _symbol(alias: str, name: str) -> Clause:
    match, values = symbol_match_sql(name)
    return f"{alias}.id IN (SELECT doc_id FROM symbols WHERE {match})", list(values)


def _day(when: float) -> str:
    return f"{datetime.fromtimestamp(when):%Y-%m-%d}"


def _dated(field: str, keys: tuple[str, ...], compare: str, combine: str) -> FilterRow:
    """A date filter: its values are days as written (a date, or 30d, 2w ago), compared with
    the document's date (dated_sql: an e-mail's Date, else its file's time)."""
    return FilterRow(
        field,
        keys,
        lambda v: [parse_date(v)],
        lambda a, v: (f"{dated_sql(a)} {compare} ?", [v]),
        combine,
        _day,
        OPTION[keys[0]],
    )


FILTERS: tuple[FilterRow, ...] = (
    FilterRow("extensions", ("ext", "type"), _extensions, _one_of(type_extension_sql), "any", option=OPTION["ext"]),
    FilterRow(
        "path_contains", ("path",), _lowered, lambda a, v: (f"contains(lower({a}.path), ?)", [v]), option=OPTION["path"]
    ),
    FilterRow(
        "folders",
        ("folder", "in"),
        lambda v: [folder_filter(v)] if v else [],
        _under,
        "any",
        option=OPTION["folder"],
    ),
    FilterRow(
        "authors",
        ("author",),
        _lowered,
        lambda a, v: (f"{a}.id IN (SELECT doc_id FROM doc_fields WHERE contains(lower(author), ?))", [v]),
    ),
    FilterRow("titles", ("title",), _lowered, lambda a, v: (f"contains(lower(coalesce({a}.title, '')), ?)", [v])),
    FilterRow(
        "names",
        ("name",),
        _lowered,
        lambda a, v: (f"contains(lower(regexp_extract({a}.path, '[^/\\\\]*$')), ?)", [v]),
    ),
    FilterRow("symbols", ("sym", "symbol"), _kept, _symbol),
    FilterRow(
        "languages",
        ("lang", "language"),
        lambda v: [p.strip().lower() for p in v.split(",") if p.strip()],
        _one_of(lambda a: f"coalesce({a}.language, '')"),
        "any",
        option=OPTION["lang"],
    ),
    _dated("after", ("after", "since"), ">=", "latest"),
    _dated("before", ("before", "until"), "<", "earliest"),
)
BY_KEY = {key: row for row in FILTERS for key in row.keys}


def filters_of(found: dict[str, list[Any]]) -> Filters:
    """Filters from the values the query gave each field."""
    given: dict[str, Any] = {}
    for row in FILTERS:
        values = found.get(row.field, [])
        if row.combine == "latest":
            given[row.field] = max(values) if values else None
        elif row.combine == "earliest":
            given[row.field] = min(values) if values else None
        else:
            given[row.field] = tuple(values)
    return Filters(**given)


def filters_from_options(**given: Sequence[str] | str | None) -> Filters:
    """Filters from a face's options (CLI flags, MCP and HTTP fields), named as the rows' `option`
    (ext, path, folder, lang, after, before): each value read as the query syntax reads it
    (`~` expanded, dates parsed: a QuerySyntaxError names a bad one). A single string is one
    value, never a list of its letters."""
    by_option = {row.option.name: row for row in FILTERS if row.option}
    found: dict[str, list[Any]] = {}
    for option, value in given.items():
        row = by_option[option]  # a face asking for an option no row has is a bug, said at once
        for written in (value,) if isinstance(value, str) else tuple(value or ()):
            found.setdefault(row.field, []).extend(row.values(written.strip()) if written else [])
    return filters_of(found)


def _values(filters: Filters, row: FilterRow) -> Sequence[Any]:
    value = getattr(filters, row.field)
    if row.combine in ("latest", "earliest"):
        return () if value is None else (value,)
    return tuple(value)


def filter_sql(filters: Filters, alias: str = "d") -> tuple[str, list[object]]:
    """SQL conditions (each after an AND) and their parameters for the filters, values always as
    parameters."""
    clauses: list[str] = []
    params: list[object] = []
    for row in FILTERS:
        values = _values(filters, row)
        if not values:
            continue
        for clause, given in [row.sql(alias, values)] if row.combine == "any" else [row.sql(alias, v) for v in values]:
            clauses.append(clause)
            params.extend(given)
    return "".join(f" AND {c}" for c in clauses), params


def filter_names(filters: Filters) -> list[tuple[str, Filters]]:
    """Each restriction of a query on its own, named as the query syntax writes it."""
    named: list[tuple[str, Filters]] = []
    for row in FILTERS:
        for value in _values(filters, row):
            alone = value if row.combine in ("latest", "earliest") else (value,)
            alone_filter: dict[str, Any] = {row.field: alone}
            named.append((f"{row.keys[0]}:{row.shown(value)}", Filters(**alone_filter)))
    return named


def every_field_has_a_row() -> bool:
    """Whether each records.Filters field is filled by a row (a test holds it)."""
    return {f.name for f in fields(Filters)} == {row.field for row in FILTERS}
