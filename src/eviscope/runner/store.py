"""The run folder's append-only journal, and resume by id.

Every finished row is one line of ``records*.jsonl`` (one file per data-parallel shard), written and
``fsync``-ed before the next batch starts. A run killed at any point, ``kill -9`` included, leaves at
worst a torn last line: it is cut off when the journal is next opened, and the rows it held are run
again. Reading keeps the first record of each id, so no row is ever counted twice.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from eviscope.errors import EviScopeError

JOURNAL_GLOB = "records*.jsonl"


def journal_path(out_dir: Path, shard: tuple[int, int] | None = None) -> Path:
    """``records.jsonl``, or ``records.shard-<i>-of-<n>.jsonl`` for shard ``(i, n)``."""
    return out_dir / ("records.jsonl" if shard is None else f"records.shard-{shard[0]}-of-{shard[1]}.jsonl")


def _complete_lines(data: bytes) -> list[bytes]:
    """The newline-terminated lines of ``data`` (a torn last line is left out)."""
    return data[: data.rfind(b"\n") + 1].splitlines()


def read_records(out_dir: Path) -> dict[str, dict[str, Any]]:
    """Every journaled record of a run folder by id (first wins), across all shard journals."""
    records: dict[str, dict[str, Any]] = {}
    for path in sorted(out_dir.glob(JOURNAL_GLOB)):
        for number, line in enumerate(_complete_lines(path.read_bytes()), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise EviScopeError(f"{path} line {number}: not valid JSON ({err.msg})") from None
            records.setdefault(record["id"], record)
    return records


class Journal:
    """Appends records to one journal file, durably."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            data = path.read_bytes()
            keep = data.rfind(b"\n") + 1
            if keep < len(data):  # a torn last line from a killed run
                with path.open("r+b") as handle:
                    handle.truncate(keep)
                    handle.flush()
                    os.fsync(handle.fileno())

    def append(self, records: Iterable[Mapping[str, Any]]) -> None:
        data = b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in records)
        if not data:
            return
        with self.path.open("ab") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename: never half written."""
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
