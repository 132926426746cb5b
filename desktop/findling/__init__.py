"""Findling: local-first desktop search."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("findling")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0+src"
