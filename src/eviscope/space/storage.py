"""Durable local writes for the Space's stores (results and annotation sheets), and the one-line
account of a write that failed.

A file is written as a temporary file next to it (``.partial-*.tmp``, never read as data), fsynced,
then renamed over the target with ``os.replace`` and the folder fsynced: a process killed at any
moment leaves the old file or the new one, whole, plus at most a temporary file that ``sweep``
removes at the next start. An :class:`OSError` (read-only folder, full disk, a lock held too long)
is turned into a few words by ``describe_failure``, without the server's paths.
"""

from __future__ import annotations

import errno
import logging
import os
import secrets
from contextlib import suppress
from pathlib import Path

from filelock import BaseFileLock
from filelock import Timeout as FileLockTimeout

__all__ = [
    "LOCK_TIMEOUT_S",
    "TEMP_PREFIX",
    "TEMP_SUFFIX",
    "describe_failure",
    "fsync_folder",
    "sweep",
    "write_atomically",
]

LOCK_TIMEOUT_S = 60.0
"""How long a write waits for a local store's lock before it is refused as busy."""

TEMP_PREFIX, TEMP_SUFFIX = ".partial-", ".tmp"
"""A file being written is ``.partial-*.tmp`` in the target's folder until it is complete."""

_FAILURES = {
    errno.EROFS: "{folder} is read-only",
    errno.EACCES: "{folder} is not writable",
    errno.EPERM: "{folder} is not writable",
    errno.ENOSPC: "{disk} is full",
    errno.EDQUOT: "{disk} quota is exhausted",
}

log = logging.getLogger(__name__)


def describe_failure(err: OSError, *, folder: str, disk: str, busy: str) -> str:
    """What went wrong, in a few words and on one line, without the server's paths.

    ``folder`` and ``disk`` name the place to the user ("the results folder", "the results disk");
    ``busy`` is what a lock that stayed held (a :class:`filelock.Timeout`) means.
    """
    if isinstance(err, FileLockTimeout):
        return busy
    if err.errno in _FAILURES:
        what = _FAILURES[err.errno].format(folder=folder, disk=disk)
        return f"{what} ({errno.errorcode[err.errno]})"
    if err.errno:
        return f"{os.strerror(err.errno).lower()} ({errno.errorcode.get(err.errno, err.errno)})"
    text = " ".join(str(err).split())[:200]
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def write_atomically(target: Path, data: bytes) -> None:
    """Replace ``target`` by ``data``, whole or not at all: temporary file, fsync, rename, folder fsync.

    Raises the :class:`OSError` of a failed write, after removing its temporary file; ``target`` is
    then untouched.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.parent / f"{TEMP_PREFIX}{secrets.token_hex(8)}{TEMP_SUFFIX}"
    # A new file of our own (O_EXCL), readable like any other (mkstemp's would be 0600).
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_folder(target.parent)


def fsync_folder(folder: Path) -> None:
    """Make a rename durable; best effort (some filesystems cannot sync a folder), as the file is
    already in place."""
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


def sweep(
    folder: Path, lock: BaseFileLock, pattern: str, what: str, logger: logging.Logger = log
) -> list[Path]:
    """Remove the temporary files (``folder.glob(pattern)``) of writes that were cut short. Only
    under ``lock``, when no write is under way; skipped when the lock is busy or the folder
    read-only. ``what`` names the store in ``logger``'s lines. Returns the files removed."""
    removed = []
    try:
        with lock.acquire(timeout=0):
            for tmp in sorted(folder.glob(pattern)):
                tmp.unlink(missing_ok=True)
                removed.append(tmp)
    except OSError as err:  # the lock is busy (a Timeout), or the folder cannot be written
        logger.info("%s: left temporary files for later: %r", what, err)
    if removed:
        logger.warning("%s: removed %d unfinished writes: %s", what, len(removed), removed)
    return removed
