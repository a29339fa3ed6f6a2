"""The run folder's append-only journal, and resume by id.

Every finished row is one line of ``records*.jsonl`` (``records.jsonl``; a run on Ray writes the same file from its driver), written and
``fsync``-ed before the next batch starts. A run killed at any point, ``kill -9`` included, leaves at
worst a torn last line: it is cut off when the journal is next opened, and the rows it held are run
again. Reading keeps the first record of each id, so no row is ever counted twice. The journal is
read a line at a time (:func:`eviscope.core.io.bounded_lines`); a line that is not a run record (``{}``,
``[]``, a hand edit: not a JSON object with a string ``id``, a ``usage`` of counts and amounts
and a ``parse`` of counts, as :mod:`eviscope.core.usage` defines them) is a one-line error naming the file and line, and nothing is run
until it is deleted (its row is then run again) or the journal moved away.

One process writes a run folder at a time: :func:`writer_lock` takes ``.eviscope-run.lock`` (a
``filelock`` lock, released by the OS when its process dies, ``kill -9`` included) and writes who
holds it into ``.eviscope-run.owner``; a second ``eviscope run`` on the folder stops at once with a
one-line error naming that process (pid, host, start time).

A write that fails (a full disk, a read-only folder) is cut back to the journal's last whole line and
raised as an :class:`~eviscope.core.errors.EviScopeError` naming the path and the OS reason; what was
journaled before is kept, and rerunning the same command resumes from it.

Nothing of a run folder is written through a link someone planted there: the journal is opened
without following links (and only when it is a regular file), every other file is replaced through
a temporary file of a fresh name, created exclusively (:func:`write_atomic`). A record is written by
:func:`eviscope.core.untrusted_json.dumps` (a lone surrogate in a reply is written as its escaped
text, so no reply can make the write fail) and read back by :func:`eviscope.core.untrusted_json.loads`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import stat
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from eviscope.core.errors import EviScopeError, brief, os_error, os_errors, plain
from eviscope.core.io import bounded_lines, fsync_folder
from eviscope.core.io import write_atomic as atomic
from eviscope.core.untrusted_json import UntrustedJSONError, dumps, loads
from eviscope.core.usage import amount_problem, count_problem
from eviscope.runner.accounting import USAGE_FIELDS

JOURNAL_GLOB = "records*.jsonl"

RESUME_HINT = "what was journaled before is kept: fix that and rerun the same command to resume"


def journal_path(out_dir: Path) -> Path:
    """The run folder's journal, ``records.jsonl``."""
    return out_dir / "records.jsonl"


def _not_regular(path: Path) -> EviScopeError:
    return EviScopeError(
        f"{plain(str(path), None)} is not a regular file (a link, a device or a pipe); eviscope run "
        "reads and writes only files it created: move it away to start over"
    )


def _open_regular(path: Path, flags: int) -> int:
    """A file descriptor of a run folder's file, never through a symbolic link nor on anything but a
    regular file (a device or a pipe might never end)."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK, 0o666)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise _not_regular(path) from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise _not_regular(path)
    os.set_blocking(fd, True)
    return fd


PARSE_FIELDS = ("failures", "retries", "unresolved", "truncated")
USAGE_AMOUNTS = ("latency_s", "cost_usd")
"""The usage fields that are amounts; the others, and every parse field, are counts."""


def record_problem(record: Any) -> str | None:
    """What makes ``record`` not a run record (see the module docstring), or None."""
    if not isinstance(record, dict):
        return f"not a JSON object but {brief(record)}"
    if not isinstance(record.get("id"), str) or not record["id"]:
        return f"field id is {brief(record.get('id'))}, not a row id"
    for name, fields in (("usage", USAGE_FIELDS), ("parse", PARSE_FIELDS)):
        part = record.get(name)
        if not isinstance(part, dict):
            return f"field {name} is {brief(part)}, not an object"
        for field in fields:
            if name == "parse" and field not in part:  # an older journal's record: counted as 0
                continue
            value = part.get(field)
            problem = (amount_problem if field in USAGE_AMOUNTS else count_problem)(value)
            if problem:
                return f"field {name}.{field} is {brief(value)}, {problem}"
    return None


def _journal_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """The whole lines of a journal (a torn last line left out), one at a time."""
    with os_errors(path, "read", hint=""), open(_open_regular(path, os.O_RDONLY), "rb") as handle:
        for number, line in bounded_lines(handle, plain(str(path), None)):
            if line.endswith(b"\n"):
                yield number, line


def read_records(out_dir: Path) -> dict[str, dict[str, Any]]:
    """Every journaled record of a run folder by id (first wins), across all shard journals."""
    records: dict[str, dict[str, Any]] = {}
    with os_errors(out_dir, "read", hint=""):
        paths = sorted(out_dir.glob(JOURNAL_GLOB))
    for path in paths:
        for number, line in _journal_lines(path):
            if not line.strip():
                continue
            try:
                record = loads(line)
            except UntrustedJSONError as err:
                problem = f"not valid JSON ({err})"
            else:
                problem = record_problem(record)
            if problem:
                raise EviScopeError(
                    f"{plain(str(path), None)} line {number}: not a run record: {problem}; delete that "
                    "line to run its row again (or move the file away to start over), then rerun"
                )
            records.setdefault(record["id"], record)
    return records


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class Journal:
    """Appends records to one journal file, durably; each carries ``stamp`` (the session's number)."""

    def __init__(self, path: Path, stamp: Mapping[str, Any] | None = None) -> None:
        self.path = path
        self.stamp = dict(stamp or {})
        with os_errors(path, hint=RESUME_HINT):
            path.parent.mkdir(parents=True, exist_ok=True)
        if os.path.lexists(path):
            with os_errors(path, hint=RESUME_HINT):
                fd = _open_regular(path, os.O_RDWR)
            with os_errors(path, hint=RESUME_HINT), open(fd, "r+b") as handle:
                data = handle.read()
                keep = data.rfind(b"\n") + 1
                if keep < len(data):  # a torn last line from a killed run
                    handle.truncate(keep)
                    handle.flush()
                    os.fsync(handle.fileno())

    def append(self, records: Iterable[Mapping[str, Any]]) -> None:
        """Append ``records`` (one line each) and fsync; on failure cut the file back to what it held."""
        data = b"".join(dumps({**r, **self.stamp}).encode() + b"\n" for r in records)
        if not data:
            return
        created = not os.path.lexists(self.path)
        with os_errors(self.path, hint=RESUME_HINT):
            fd = _open_regular(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
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
                fsync_folder(self.path.parent)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename: never half written.

    The temporary file has a fresh name (``.<name>.<random>.tmp``), created exclusively, never
    through a link. An OS error (a full disk, a read-only folder) leaves ``path`` as it was, removes
    the temporary file (:func:`eviscope.core.io.write_atomic`), and is raised as a one-line
    :class:`~eviscope.core.errors.EviScopeError`.
    """
    try:
        atomic(path, text, temp_prefix=f".{path.name}.")
    except OSError as err:
        raise os_error(path, err, hint=RESUME_HINT) from None


LOCK_FILE = ".eviscope-run.lock"
OWNER_FILE = ".eviscope-run.owner"


@contextlib.contextmanager
def writer_lock(out_dir: Path) -> Iterator[None]:
    """Hold the run folder's writer lock for the block (see the module docstring); another holder
    is a one-line error naming its pid, host and start time."""
    from filelock import FileLock, Timeout

    lock = FileLock(out_dir / LOCK_FILE, timeout=0, thread_local=False)
    owner = out_dir / OWNER_FILE
    try:
        lock.acquire()
    except OSError as err:
        if not isinstance(err, Timeout):  # a read-only folder, a full disk
            raise os_error(out_dir / LOCK_FILE, err, hint="use another --out") from None
        try:
            with open(_open_regular(owner, os.O_RDONLY), "rb") as handle:
                who = loads(handle.read(4096))
            held = f"pid {who['pid']} on {who['host']}, since {who['since']}"
        except (OSError, ValueError, KeyError, TypeError):
            held = "a process that has not said who it is"
        raise EviScopeError(
            f"{plain(str(out_dir), None)}/ is being written by another eviscope run ({plain(held, 200)}): "
            "wait for it to end, or use another --out"
        ) from None
    try:
        me = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "since": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        write_atomic(owner, dumps(me) + "\n")
        yield
    finally:
        with contextlib.suppress(OSError):
            owner.unlink()
        lock.release()
