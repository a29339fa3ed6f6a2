"""A run's freed large blocks go back to the system (eviscope.core.memory.map_large_blocks)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from eviscope.core.memory import _LIBC, THP_MODE

pytestmark = pytest.mark.skipif(_LIBC is None, reason="glibc's allocator only")
pytest.importorskip("torch", reason="torch is not installed: pip install -e '.[cpu]'")

FORWARD_PASS = """
import sys
import torch
from eviscope.core.memory import map_large_blocks

def rss_anon_mib():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) // 1024

if sys.argv[1] == "mapped":
    assert map_large_blocks()
first = torch.ones(6 << 20)  # a 24 MiB block, mapped; freeing it raises glibc's threshold to 24 MiB
del first
before, kept = rss_anon_mib(), []
for i in range(24):  # a layer's growing working block, freed, between blocks that live on (a cache)
    block = torch.ones((4 << 20) + i * 16384)
    kept.append(torch.ones(1 << 18))
    del block
print(rss_anon_mib() - before)
"""


def _growth_mib(mode: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", FORWARD_PASS, mode], capture_output=True, text=True, check=True
    )
    return int(done.stdout.split()[-1])


def test_freed_large_blocks_leave_the_rss():
    # glibc alone keeps the 24 freed 16 MiB blocks in its heap (~200 MiB measured); mapped on their own
    # they go back, and only the 24 MiB of blocks that live on stay
    assert _growth_mib("mapped") < 64


HUGE_PAGES = """
import resource
from eviscope.core.memory import huge_pages_for_torch

granted = huge_pages_for_torch()
import torch

before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
block = torch.ones(64 << 20)  # 256 MiB, touched once: a fresh block, as a batch's activations are
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
print(granted, faults)
"""


def _huge_pages(env: dict[str, str]) -> tuple[bool, int]:
    done = subprocess.run(
        [sys.executable, "-c", HUGE_PAGES], capture_output=True, text=True, check=True, env=env
    )
    granted, faults = done.stdout.split()[-2:]
    return granted == "True", int(faults)


def test_torch_blocks_fault_in_by_huge_pages(monkeypatch):
    monkeypatch.delenv("THP_MEM_ALLOC_ENABLE", raising=False)
    granted, faults = _huge_pages(dict(os.environ))
    if not granted:
        pytest.skip("the kernel gives no transparent huge pages on madvise here")
    # 65,536 faults of 4 KiB pages without; 128 of 2 MiB with (a few more where the kernel falls back)
    assert faults < 65536 // 8
    kept, faults_kept = _huge_pages({**os.environ, "THP_MEM_ALLOC_ENABLE": "0"})
    assert not kept  # the user's 0 is kept, and the manifest says so
    if "[madvise]" in THP_MODE.read_text():  # huge pages only where asked for: torch no longer asks
        assert faults_kept >= 65536
