"""Findling: local-first desktop search."""

# The one place the version is written (pyproject.toml reads it): a literal, because reading the
# installed metadata costs every command about 35 ms.
__version__ = "0.1.0"
VERSION_LINE = f"findling {__version__}"  # what --version says
