"""Recent queries and saved searches, kept in the app's QSettings."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from PySide6.QtCore import QSettings

HISTORY_KEY = "search/history"
SAVED_KEY = "search/saved"
HISTORY_LIMIT = 30


@dataclass(frozen=True)
class SavedSearch:
    name: str
    query: str
    mode: str = "Hybrid"
    type: str = "Any type"
    modified: str = "Any time"
    folder: str = ""  # an added folder's path, "" for all


class SearchHistory:
    """Queries searched in full (Enter) or whose result was opened, most recent first."""

    def __init__(self, settings: QSettings) -> None:
        self.settings = settings

    def items(self) -> list[str]:
        value = self.settings.value(HISTORY_KEY, [])
        return [str(v) for v in (value if isinstance(value, list) else [value] if value else [])]

    def add(self, query: str) -> None:
        query = " ".join(query.split())
        if not query:
            return
        items = [query, *(q for q in self.items() if q != query)][:HISTORY_LIMIT]
        self.settings.setValue(HISTORY_KEY, items)

    def clear(self) -> None:
        self.settings.remove(HISTORY_KEY)


class SavedSearches:
    def __init__(self, settings: QSettings) -> None:
        self.settings = settings

    def items(self) -> list[SavedSearch]:
        try:
            raw = json.loads(str(self.settings.value(SAVED_KEY, "[]")))
            return [SavedSearch(**entry) for entry in raw]
        except (ValueError, TypeError):
            return []  # a damaged entry list is dropped, never a crash at start

    def save(self, search: SavedSearch) -> None:
        items = [s for s in self.items() if s.name != search.name] + [search]
        self.settings.setValue(SAVED_KEY, json.dumps([asdict(s) for s in items]))

    def remove(self, name: str) -> None:
        self.settings.setValue(SAVED_KEY, json.dumps([asdict(s) for s in self.items() if s.name != name]))
