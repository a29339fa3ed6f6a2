"""The run folder's append-only journal, and resume by id.

Every finished row is one line of ``records*.jsonl`` (``records.jsonl``; a run on Ray writes the same file from its driver), written and
``fsync``-ed before the next batch starts. A run killed at any point, ``kill -9`` included, leaves at
worst a torn last line: it is cut off when the journal is next opened, and the rows it held are run
again. Reading keeps the first record of each id, so no row is ever counted twice.

A write that fails (a full disk, a read-only folder) is cut back to the journal's last whole line and
raised as an :class:`~eviscope.core.errors.EviScopeError` naming the path and the OS reason; what was
journaled before is kept, and rerunning the same command resumes from it.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from eviscope.core.errors import EviScopeError, os_error, os_errors, plain

JOURNAL_GLOB = "records*.jsonl"

RESUME_HINT = "what was journaled before is kept: fix that and rerun the same command to resume"


def journal_path(out_dir: Path) -> Path:
    """The run folder's journal, ``records.jsonl``."""
    return out_dir / "records.jsonl"


def _complete_lines(data: bytes) -> list[bytes]:
    """The newline-terminated lines of ``data`` (a torn last line is left out)."""
    return data[: data.rfind(b"\n") + 1].splitlines()


def _read_journal(path: Path) -> bytes:
    with os_errors(path, "read", hint=""):
        if not path.is_file():  # e.g. a link to a device: reading it might never end
            raise EviScopeError(f"{plain(str(path), None)} is not a regular file; move it away to start over")
        return path.read_bytes()


def read_records(out_dir: Path) -> dict[str, dict[str, Any]]:
    """Every journaled record of a run folder by id (first wins), across all shard journals."""
    records: dict[str, dict[str, Any]] = {}
    with os_errors(out_dir, "read", hint=""):
        paths = sorted(out_dir.glob(JOURNAL_GLOB))
    for path in paths:
        for number, line in enumerate(_complete_lines(_read_journal(path)), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise EviScopeError(f"{path} line {number}: not valid JSON ({err.msg})") from None
            records.setdefault(record["id"], record)
    return records


def _fsync_dir(directory: Path) -> None:
    """Make a new or renamed entry of ``directory`` durable (where the platform allows it)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as err:
        if err.errno not in (errno.EINVAL, errno.EBADF, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class Journal:
    """Appends records to one journal file, durably."""

    def __init__(self, path: Path) -> None:
        self.path = path
        with os_errors(path, hint=RESUME_HINT):
            path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            data = _read_journal(path)
            keep = data.rfind(b"\n") + 1
            if keep < len(data):  # a torn last line from a killed run
                with os_errors(path, hint=RESUME_HINT), path.open("r+b") as handle:
                    handle.truncate(keep)
                    handle.flush()
                    os.fsync(handle.fileno())

    def append(self, records: Iterable[Mapping[str, Any]]) -> None:
        """Append ``records`` (one line each) and fsync; on failure cut the file back to what it held."""
        data = b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in records)
        if not data:
            return
        created = not self.path.exists()
        with os_errors(self.path, hint=RESUME_HINT):
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            size = os.fstat(fd).st_size
            try:
                _write_all(fd, data)
                os.fsync(fd)
            except OSError as err:
                with contextlib.suppress(OSError):  # a part written before the failure is cut off
                    os.ftruncate(fd, size)
                    os.fsync(fd)
                raise os_error(self.path, err, hint=RESUME_HINT) from None
        finally:
            os.close(fd)
        if created:
            with os_errors(self.path, hint=RESUME_HINT):
                _fsync_dir(self.path.parent)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename: never half written.

    An OS error (a full disk, a read-only folder) leaves ``path`` as it was, removes the temporary
    file, and is raised as a one-line :class:`~eviscope.core.errors.EviScopeError`.
    """
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with tmp.open("w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except OSError as err:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise os_error(path, err, hint=RESUME_HINT) from None
