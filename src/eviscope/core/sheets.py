"""Annotation sheets: CSV files with one line per row to mark, read the same way by every benchmark.

``read_sheet_lines`` opens a sheet and checks its header; ``checked_ids`` walks its lines and refuses
an id that is not a row to mark, or one met twice, so that no later line overwrites an earlier
verdict. Each error is one line naming the sheet, the line (the header is line 1) and the id. What a
line's marks mean is the caller's: ForceBench's yes/no questions, EviScope's review criteria, the
Space's verdicts (:func:`eviscope.core.registry.read_verdicts`).
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from eviscope.core.errors import EviScopeError, id_text

__all__ = ["checked_ids", "read_sheet_lines"]

Line = Mapping[str, str]


def read_sheet_lines(path: Path, columns: Sequence[str], kind: str) -> list[tuple[int, dict[str, str]]]:
    """The lines of the CSV sheet at ``path``, each with its line number in the file; a sheet that
    cannot be read, or whose header lacks ``id`` or one of ``columns``, is an error naming it as not
    a ``kind`` sheet."""
    path = Path(path)
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            header = reader.fieldnames or []
            missing = [name for name in dict.fromkeys(("id", *columns)) if name not in header]
            if missing:
                raise EviScopeError(f"{path}: not a {kind} sheet; missing columns {', '.join(missing)}")
            return list(enumerate(reader, start=2))
    except OSError as err:
        raise EviScopeError(f"{path}: cannot read sheet ({err.strerror})") from err


def checked_ids(
    lines: Iterable[tuple[int, Line]], known: Collection[str] | None, at: Callable[[int], str]
) -> Iterator[tuple[str, str, Line]]:
    """(location, id, line) of each numbered line, the id stripped; ``at(number)`` says where a line
    is. An id that is not in ``known`` (when given), or one already met, is an error at that line.

    >>> list(checked_ids([(2, {"id": " a "})], {"a"}, lambda n: f"sheet.csv:{n}"))
    [('sheet.csv:2', 'a', {'id': ' a '})]
    >>> list(checked_ids([(2, {"id": "a"}), (3, {"id": "a"})], None, lambda n: f"sheet.csv:{n}"))
    Traceback (most recent call last):
    ...
    eviscope.core.errors.EviScopeError: sheet.csv:3: id 'a' appears twice
    """
    seen: set[str] = set()
    for number, line in lines:
        where, row_id = at(number), (line.get("id") or "").strip()
        if known is not None and row_id not in known:
            raise EviScopeError(f"{where}: id '{id_text(row_id)}' is not a candidate row")
        if row_id in seen:
            raise EviScopeError(f"{where}: id '{id_text(row_id)}' appears twice")
        seen.add(row_id)
        yield where, row_id, line
