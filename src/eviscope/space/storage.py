"""Durable local writes for the Space's stores (results and annotation sheets), and the one-line
account of a write that failed.

A file is written as a temporary file next to it (``.partial-*.tmp``, never read as data), fsynced,
then renamed over the target with ``os.replace`` and the folder fsynced: a process killed at any
moment leaves the old file or the new one, whole, plus at most a temporary file that ``sweep``
removes at the next start. An :class:`OSError` (read-only folder, full disk, a lock held too long)
is turned into a few words by ``describe_failure``, without the server's paths. A folder the Hub
would wipe on restart is kept in a hub dataset repo by :class:`HubMirror`.
"""

from __future__ import annotations

import errno
import fnmatch
import logging
import os
import threading
from concurrent.futures import Future
from pathlib import Path

from filelock import BaseFileLock
from filelock import Timeout as FileLockTimeout
from huggingface_hub import CommitInfo, CommitOperationAdd, CommitScheduler, HfApi

from eviscope.core.io import fsync_folder, write_atomic

__all__ = [
    "LOCK_TIMEOUT_S",
    "TEMP_PREFIX",
    "TEMP_SUFFIX",
    "HubMirror",
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
    """Replace ``target`` by ``data``, whole or not at all (:func:`eviscope.core.io.write_atomic`), its
    temporary file named so that :func:`sweep` knows it (``.partial-*.tmp``)."""
    write_atomic(target, data, TEMP_PREFIX, TEMP_SUFFIX)


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


class HubMirror:
    """A local folder kept in a hub dataset repo (``path_in_repo``), for a Space whose disk the Hub wipes
    on every restart.

    On start, :meth:`restore` copies the repo's files under ``path_in_repo`` that the folder lacks
    (after a restart: all of them). Then huggingface_hub's :class:`~huggingface_hub.CommitScheduler`
    commits the folder's changed files (those matching ``patterns``) every ``every_minutes``, and at
    once after each :meth:`written`; each file is read whole, under the scheduler's lock, which the
    writer holds around its own write (:meth:`writing`), so no half-replaced file is ever committed.
    """

    def __init__(
        self,
        folder: Path,
        repo_id: str,
        path_in_repo: str,
        patterns: list[str],
        api: HfApi | None = None,
        every_minutes: float = 1,
    ) -> None:
        self.folder, self.repo_id, self.path_in_repo, self.patterns = folder, repo_id, path_in_repo, patterns
        self.api = api or HfApi()
        self.restore()
        self._scheduler = _WholeFileScheduler(
            repo_id=repo_id,
            repo_type="dataset",
            folder_path=folder,
            path_in_repo=path_in_repo,
            allow_patterns=patterns,
            every=every_minutes,
            hf_api=self.api,
        )

    def restore(self) -> list[Path]:
        """Copy the repo's files under ``path_in_repo`` that the folder lacks; returns them."""
        prefix = f"{self.path_in_repo}/"
        restored = []
        for name in self.api.list_repo_files(self.repo_id, repo_type="dataset"):
            relative = name.removeprefix(prefix)
            target = self.folder / relative
            if not name.startswith(prefix) or target.exists() or not _matches(relative, self.patterns):
                continue
            cached = self.api.hf_hub_download(self.repo_id, name, repo_type="dataset")
            write_atomically(target, Path(cached).read_bytes())
            restored.append(target)
        if restored:
            log.info("restored %d files from %s", len(restored), self.repo_id)
        return restored

    def writing(self) -> threading.Lock:
        """Hold while replacing a file of the folder: no commit reads it meanwhile."""
        return self._scheduler.lock

    def written(self) -> Future:
        """Commit the folder's changes now, in the background; the future resolves once committed."""
        return self._scheduler.trigger()

    def stop(self) -> None:
        """Commit what is left, then stop the schedule."""
        self._scheduler.trigger().result()
        self._scheduler.stop()


def _matches(relative: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatch(relative, pattern) for pattern in patterns)


class _WholeFileScheduler(CommitScheduler):
    """A :class:`CommitScheduler` for files that are replaced, not appended to: each changed file is
    read whole under the lock (the stock one caps a file at the size it had when listed, which would
    cut a file replaced by a longer one in the meantime)."""

    def push_to_hub(self) -> CommitInfo | None:
        with self.lock:
            changed = []
            for path in sorted(p for p in self.folder_path.glob("**/*") if p.is_file()):
                relative = path.relative_to(self.folder_path).as_posix()
                if path.name.startswith(".") or not _matches(relative, list(self.allow_patterns or ["*"])):
                    continue
                mtime = path.stat().st_mtime
                if self.last_uploaded.get(path) != mtime:
                    changed.append((path, relative, mtime, path.read_bytes()))
        if not changed:
            return None
        info = self.api.create_commit(
            repo_id=self.repo_id,
            repo_type=self.repo_type,
            operations=[
                CommitOperationAdd(path_in_repo=f"{self.path_in_repo}/{relative}", path_or_fileobj=data)
                for _, relative, _, data in changed
            ],
            commit_message=f"Space: {len(changed)} file(s) of {self.path_in_repo}/",
            revision=self.revision,
        )
        for path, _, mtime, _ in changed:
            self.last_uploaded[path] = mtime
        return info
