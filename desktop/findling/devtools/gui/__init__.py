"""Measurements of the desktop app; like gui/, the only other place that imports Qt."""
