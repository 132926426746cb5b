"""The filters a face offers as options (`--ext md`, MCP's and HTTP's `ext` field), one row each:
read by the command line's parser and its fast path (which imports nothing heavy, so this
module imports nothing), the MCP tools and the HTTP body; search/filter_table.py says what
each one keeps. A new option is one row here and its filter row's `option`."""

from __future__ import annotations


class FilterOption:
    """One option. A plain class: the fast path pays ~17 ms to import dataclasses."""

    __slots__ = ("name", "repeated", "help", "metavar")

    def __init__(self, name: str, repeated: bool, help: str, metavar: str) -> None:
        self.name = name  # --NAME on the command line, NAME in MCP and HTTP
        self.repeated = repeated  # may be given several times (a list in MCP and HTTP)
        self.help = help
        self.metavar = metavar


OPTIONS: tuple[FilterOption, ...] = (
    FilterOption("ext", True, "only files with this extension (repeatable), e.g. md or pdf", "EXT"),
    FilterOption("path", True, "only paths containing this text (repeatable)", "TEXT"),
    FilterOption("folder", True, "only files under this folder (repeatable)", "FOLDER"),
    FilterOption("lang", True, "only documents in this language (repeatable), e.g. en or de", "LANG"),
    FilterOption("after", False, "modified (or, for mail, sent) on or after: YYYY-MM-DD, 7d, 2w, 6m, 1y", "DATE"),
    FilterOption("before", False, "modified (or, for mail, sent) before: YYYY-MM-DD, 7d, 2w, 6m, 1y", "DATE"),
)
OPTION = {option.name: option for option in OPTIONS}
