"""Giving freed memory back to the system.

glibc's allocator keeps blocks freed by Python and torch in the heap and in each thread's arena
rather than returning them, so a process that briefly held a large working set (a dequantized model,
an uploaded submission) keeps it in its RSS for the rest of its life. :func:`release_freed_memory`
collects cyclic garbage and asks glibc to trim; elsewhere (musl, macOS) it only collects.

A model's forward pass makes the opposite pattern: tens of megabytes of activations allocated and freed
per layer between the key/value cache's blocks, which live on. glibc raises its mmap threshold (up to
32 MiB) each time such a block is freed, so later ones come from the heap, where the cache's blocks pin
them: peak RSS then varies by ~0.5 GB between identical runs. :func:`map_large_blocks` fixes the
threshold so that every large block is mapped on its own and unmapped when freed. Each fresh block
then faults in page by page, 4 KiB at a time: millions of faults in a run, seconds of system CPU.
:func:`huge_pages_for_torch` has torch ask for transparent huge pages on its large blocks, which fault
in 2 MiB at a time.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import re
import sys
from pathlib import Path


def _glibc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim  # noqa: B018  # absent outside glibc (musl, macOS)
    except (OSError, AttributeError):
        return None
    return libc


_LIBC = _glibc()

M_MMAP_THRESHOLD = -3
"""``mallopt``'s parameter (``malloc.h``): blocks this size or larger are mapped on their own."""

LARGE_BLOCK = 4 << 20
"""The threshold :func:`map_large_blocks` sets: 4 MiB, below a batch's activation and cache blocks."""


def release_freed_memory() -> None:
    """Collect cyclic garbage, then return the memory glibc holds free to the system (``malloc_trim``)."""
    gc.collect()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def map_large_blocks(threshold: int = LARGE_BLOCK) -> bool:
    """Have glibc map every block of ``threshold`` bytes or more on its own and give it back when freed
    (a fixed ``M_MMAP_THRESHOLD``, which also stops glibc raising it), for the rest of the process.
    The price is a page fault per page of each fresh block. False outside glibc, where nothing changes."""
    return _LIBC is not None and _LIBC.mallopt(M_MMAP_THRESHOLD, threshold) == 1


TORCH_HUGE_PAGES = "THP_MEM_ALLOC_ENABLE"
"""torch's switch (c10's CPU allocator): ``1`` aligns its blocks of 2 MiB or more to 2 MiB and
advises them ``MADV_HUGEPAGE``. It reads the switch once, at its first allocation."""

THP_MODE = Path("/sys/kernel/mm/transparent_hugepage/enabled")
"""The kernel's transparent huge page mode: the bracketed one of ``always [madvise] never``."""


def huge_pages_for_torch() -> bool:
    """Have torch back its large blocks with transparent huge pages, where the kernel grants them on
    ``madvise``: set :data:`TORCH_HUGE_PAGES` to ``1`` unless torch is imported already (it would not
    read it again) or the user set it (their value is kept). True when torch's blocks will ask for huge
    pages and the kernel's mode gives them."""
    if "torch" not in sys.modules:
        os.environ.setdefault(TORCH_HUGE_PAGES, "1")
    try:
        mode = re.search(r"\[(\w+)\]", THP_MODE.read_text())
    except OSError:
        return False
    return (
        os.environ.get(TORCH_HUGE_PAGES) == "1"
        and mode is not None
        and mode.group(1) in {"always", "madvise"}
    )
