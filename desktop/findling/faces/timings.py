"""How long a search took, in words every face shares: light (no records, no engine), so the
thin command line (findling/thin.py) paints its footer with it too."""

from __future__ import annotations

from collections.abc import Mapping


def loading_text(timings_ms: Mapping[str, float], of_total: bool = True) -> str:
    """The time a search spent loading its models before it ran (search/service.py names it
    from LOADING_SHOWN_MS): ", 2.3 s of it loading the search model" beside the search's whole
    time, ", after 2.3 s ..." beside the pipeline's own (`of_total` False); "" when none was."""
    loading = timings_ms.get("loading models")
    if not loading:
        return ""
    seconds = f"{loading / 1000:.1f} s"
    return f", {seconds} of it loading the search model" if of_total else f", after {seconds} loading the search model"
