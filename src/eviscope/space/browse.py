"""Browsing rows: filters and text search over any benchmark's rows (each benchmark draws its own
row view: :meth:`eviscope.core.registry.SpaceView.row_html`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["filter_rows", "summary_table"]

Row = Mapping[str, Any]

ANY = "any"
"""The filter value that keeps every row."""


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [text for v in value.values() for text in _texts(v)]
    if isinstance(value, list | tuple):
        return [text for v in value for text in _texts(v)]
    return []


def _searchable(row: Row) -> str:
    """Every text of the row (ids, questions, claims, documents…), whatever its benchmark."""
    return "\n".join(_texts(row)).casefold()


def filter_rows(rows: Sequence[Row], wanted: Mapping[str, str], query: str = "") -> list[Row]:
    """The rows matching every filter of ``wanted`` (field → value; :data:`ANY` or empty: no filter);
    a filter a row does not have (``axis`` on an EviScope row) is ignored, and ``query`` matches ids,
    questions, claims and document text, case-insensitively."""
    wanted = {field: value for field, value in wanted.items() if value and value != ANY}
    needle = query.strip().casefold()
    return [
        row
        for row in rows
        if all(field not in row or str(row[field]) == value for field, value in wanted.items())
        and (not needle or needle in _searchable(row))
    ]


def summary_table(rows: Sequence[Row], columns: Sequence[str]) -> list[list[Any]]:
    """One short line per row for the browse table, its ``columns`` (the benchmark's browse columns)."""
    return [[", ".join(v) if isinstance(v := row[c], list) else v for c in columns] for row in rows]
