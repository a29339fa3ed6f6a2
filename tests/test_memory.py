"""A run's freed large blocks go back to the system (eviscope.core.memory.map_large_blocks)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from eviscope.core.memory import _LIBC

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
