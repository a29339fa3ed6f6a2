"""Hostile predictions files for bounded reading (issue 27), written into a folder in seconds.

Shared by ``tests/test_bounded_reads.py`` and ``benchmarks/hostile_memory.py``:

- ``/dev/zero``: NUL bytes without end, never a line break;
- ``one-line-1gib.jsonl``: one line of 1 GiB with no line break (a prediction whose ``answer`` runs
  on), written sparse so that it takes no disk space;
- ``duplicates-1m.jsonl``: one valid prediction repeated on 10⁶ lines.
"""

from __future__ import annotations

import json
from pathlib import Path

GiB = 1 << 30
DUPLICATE_LINES = 10**6


def hostile_files(folder: Path, row_id: str) -> dict[str, Path]:
    """The hostile files, by name, for a config whose first row id is ``row_id``."""
    folder.mkdir(parents=True, exist_ok=True)
    one_line = folder / "one-line-1gib.jsonl"
    with one_line.open("wb") as handle:
        handle.write(json.dumps({"id": row_id, "action": "answer"})[:-1].encode() + b', "answer": "')
        handle.truncate(GiB)  # the rest reads as NUL bytes: still no line break
    duplicates = folder / "duplicates-1m.jsonl"
    line = json.dumps({"id": row_id, "action": "abstain"}).encode() + b"\n"
    with duplicates.open("wb") as handle:
        for _ in range(DUPLICATE_LINES // 10_000):
            handle.write(line * 10_000)
    return {
        "/dev/zero": Path("/dev/zero"),
        "1 GiB, no line break": one_line,
        "10⁶ duplicate lines": duplicates,
    }
