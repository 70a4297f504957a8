"""Path building for the resources."""

from __future__ import annotations

import urllib.parse


def segment(value: str) -> str:
    """``value`` escaped as one path segment (an id can never add a segment or a query)."""
    return urllib.parse.quote(value, safe="")
