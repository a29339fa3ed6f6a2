"""Giving freed memory back to the system.

glibc's allocator keeps blocks freed by Python and torch in the heap and in each thread's arena
rather than returning them, so a process that briefly held a large working set (a dequantized model,
an uploaded submission) keeps it in its RSS for the rest of its life. :func:`release_freed_memory`
collects cyclic garbage and asks glibc to trim; elsewhere (musl, macOS) it only collects.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc


def _glibc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim  # noqa: B018  # absent outside glibc (musl, macOS)
    except (OSError, AttributeError):
        return None
    return libc


_LIBC = _glibc()


def release_freed_memory() -> None:
    """Collect cyclic garbage, then return the memory glibc holds free to the system (``malloc_trim``)."""
    gc.collect()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)
