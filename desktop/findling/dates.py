"""Dates as people type them in queries and options: ISO dates, today, yesterday, 7d/2w/3m/1y ago."""

from __future__ import annotations

import re
import time
from datetime import date, datetime, timedelta

from findling.errors import QuerySyntaxError

_RELATIVE = re.compile(r"^(\d+)([dwmy])$")


def parse_date(value: str, today: date | None = None) -> float:
    """ISO dates (2024, 2024-03, 2024-03-15), today, yesterday, or 7d / 2w / 3m / 1y ago."""
    today = today or date.today()
    value = value.strip().lower()
    if value == "today":
        day = today
    elif value == "yesterday":
        day = today - timedelta(days=1)
    elif match := _RELATIVE.match(value):
        n, unit = int(match.group(1)), match.group(2)
        days = {"d": 1, "w": 7, "m": 30, "y": 365}[unit] * n
        try:
            day = today - timedelta(days=days)
        except OverflowError:
            raise QuerySyntaxError(f"the date '{value}' reaches before the year 1") from None
    else:
        for fmt in ("%Y-%m-%d", "%Y-%m", "%Y"):
            try:
                day = datetime.strptime(value, fmt).date()
                break
            except ValueError:
                continue
        else:
            raise QuerySyntaxError(
                f"cannot read the date '{value}': use YYYY-MM-DD, YYYY-MM, YYYY, today, yesterday or 7d/2w/3m/1y"
            )
    try:
        return time.mktime(day.timetuple())
    except (OverflowError, ValueError):
        raise QuerySyntaxError(f"the date '{value}' is out of range") from None
