"""Bounded reading of files a user (or another process) gave: one line at a time, each line capped.

:func:`bounded_lines` is the one line reader of the suite's JSON Lines inputs (EviScope and
ForceBench predictions, a run's journal). It never holds more than one line, and a line longer than
its limit is a one-line :class:`~eviscope.core.errors.EviScopeError` after reading at most that many
bytes, so memory stays flat whatever the file is: ``/dev/zero``, a gigabyte without a line break,
a million repeated lines (their reader stops at the first repeat).

>>> import io
>>> list(bounded_lines(io.BytesIO(b'{"a": 1}\\n\\n{"b": 2}'), "p.jsonl"))
[(1, b'{"a": 1}\\n'), (2, b'\\n'), (3, b'{"b": 2}')]
>>> list(bounded_lines(io.BytesIO(b"x" * 20), "p.jsonl", limit=8))
Traceback (most recent call last):
  ...
eviscope.core.errors.EviScopeError: p.jsonl line 1: longer than 8 bytes (the most one line may hold); each line must hold one JSON object
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Callable, Iterator
from contextlib import suppress
from pathlib import Path
from typing import BinaryIO

from eviscope.core.errors import EviScopeError

MiB = 1 << 20

MAX_LINE_BYTES = 16 * MiB
"""The most one line of a predictions file or journal may hold (a prediction is a few kB; a
1 MiB id or a 200,000-item list still fits, and is then refused for what it holds)."""

MAX_COUNT = 10**12
"""The largest token or call count anything reads (a prediction's ``usage``, a server's reply), so
that sums and costs stay finite."""


def _line_place(source: str) -> Callable[[int], str]:
    return lambda number: f"{source} line {number}"


def bounded_lines(
    handle: BinaryIO,
    source: str,
    *,
    limit: int = MAX_LINE_BYTES,
    place: Callable[[int], str] | None = None,
) -> Iterator[tuple[int, bytes]]:
    """Each line of ``handle`` (line break kept) with its 1-based number; a line over ``limit``
    bytes (its line break not counted) is an error naming ``place(number)`` (default: ``<source>
    line <number>``), raised after reading at most ``limit + 1`` bytes of it."""
    where = place or _line_place(source)
    number = 0
    while True:
        line = handle.readline(limit + 1)
        if not line:
            return
        number += 1
        if len(line) > limit and not (len(line) == limit + 1 and line.endswith(b"\n")):
            raise EviScopeError(
                f"{where(number)}: longer than {_size(limit)} (the most one line may hold); "
                "each line must hold one JSON object"
            )
        yield number, line


def _size(n: int) -> str:
    return f"{n // MiB} MiB" if n >= MiB and n % MiB == 0 else f"{n:,} bytes"


def file_sha256(path: Path, chunk: int = MiB) -> str:
    """The SHA-256 of a file, read a chunk at a time."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def fsync_folder(folder: Path) -> None:
    """Make a new or renamed entry of ``folder`` durable; best effort (some filesystems cannot sync a
    folder), as the file is already in place."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(
    target: Path, data: str | bytes, temp_prefix: str = ".partial-", temp_suffix: str = ".tmp"
) -> None:
    """Replace ``target`` by ``data`` (text is written as UTF-8), whole or not at all: a temporary file
    of its own beside it (``<temp_prefix><random><temp_suffix>``, created exclusively and never
    through a symbolic link, mode 0644), fsync, rename, folder fsync.

    Raises the :class:`OSError` of a failed write after removing its temporary file; ``target`` is
    then untouched. Concurrent writers never share a temporary file, and a link planted at any name
    in the folder is never written through (the rename replaces a link at ``target`` itself, not
    what it points to).
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.parent / f"{temp_prefix}{secrets.token_hex(8)}{temp_suffix}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_folder(target.parent)
