"""Simulated filesystem faults for the tests of the runner, the Space's results and its annotations.

CI runs as root, which ignores file modes, so a read-only folder and a full disk are simulated by
patching the calls that write: what a read-only mount (EROFS) or a full disk (ENOSPC) would answer.
"""

from __future__ import annotations

import builtins
import errno
import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

__all__ = ["make_full", "make_read_only", "snapshot", "under"]

_WRITING = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def under(path: Any, folder: str) -> bool:
    """Whether ``path`` (not a file descriptor) is ``folder`` or inside it."""
    try:
        name = os.path.abspath(os.fsdecode(os.fspath(path)))
    except TypeError:  # a file descriptor
        return False
    return name == folder or name.startswith(folder + os.sep)


def _erofs(path: Any) -> OSError:
    return OSError(errno.EROFS, os.strerror(errno.EROFS), os.fspath(path))


def make_read_only(monkeypatch: pytest.MonkeyPatch, folder: str | Path) -> None:
    """What a read-only mount does inside ``folder``: opening for writing, creating a file or a new
    folder, renaming and removing fail with EROFS; reading works."""
    where = str(Path(folder).resolve())
    real_open, real_os_open, real_mkdir = io.open, os.open, os.mkdir

    def open_(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if set(mode) & set("wax+") and under(file, where):
            raise _erofs(file)
        return real_open(file, mode, *args, **kwargs)

    def os_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & _WRITING and under(path, where):
            raise _erofs(path)
        return real_os_open(path, flags, *args, **kwargs)

    def mkdir(path: Any, *args: Any, **kwargs: Any) -> None:
        if under(path, where) and not os.path.exists(path):
            raise _erofs(path)
        real_mkdir(path, *args, **kwargs)

    def refuse(real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*paths: Any, **kwargs: Any) -> Any:
            for path in paths[:2]:  # the source and, for a rename, the target
                if under(path, where):
                    raise _erofs(path)
            return real(*paths, **kwargs)

        return call

    monkeypatch.setattr(io, "open", open_)
    monkeypatch.setattr(builtins, "open", open_)
    monkeypatch.setattr(os, "open", os_open)
    monkeypatch.setattr(os, "mkdir", mkdir)
    for name in ("replace", "rename", "unlink", "remove", "rmdir"):
        monkeypatch.setattr(os, name, refuse(getattr(os, name)))


def make_full(monkeypatch: pytest.MonkeyPatch, folder: str | Path) -> None:
    """A full disk under ``folder``: a new file (``O_EXCL``) is created, but its data goes to
    ``/dev/full``, so writing it fails with ENOSPC."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system: the full-disk case needs it (Linux)")
    where = str(Path(folder).resolve())
    real_open = os.open

    def os_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        fd = real_open(path, flags, *args, **kwargs)
        if flags & os.O_EXCL and under(path, where):
            full = real_open("/dev/full", os.O_WRONLY)
            os.dup2(full, fd)
            os.close(full)
        return fd

    monkeypatch.setattr(os, "open", os_open)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` and its bytes, to show that a failed write changed nothing."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
