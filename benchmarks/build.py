"""Wall time and peak memory of ``eviscope build`` for each config, from every EviScope question source.

    python benchmarks/build.py [--squad PATH]

SQuAD dev is ``--squad``; the other question sources (``eviscope-xl`` reads them) are their
``EVISCOPE_<NAME>`` variables, else the checkout's ``../shared/data`` copies (:data:`OTHER_SOURCES`).

Each config is built in a fresh process (imports included, as a user runs it), then all three in
one process. The first build runs with an empty typing cache (``$EVISCOPE_CACHE`` pointed at a new
folder: spaCy types every paragraph, the *cold* time); the rest reuse it (*warm*, the 10 s target
for building all three).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONFIGS = ("eviscope-v1", "eviscope-v1.1", "eviscope-xl")
OTHER_SOURCES = {
    "EVISCOPE_SQUAD_TRAIN": "squad/train-part",
    "EVISCOPE_TYDIQA_GOLDP_EN": "tydiqa-goldp-en",
    "EVISCOPE_SQUADSHIFTS_NEW_WIKI": "squadshifts-new-wiki",
    "EVISCOPE_MLQA_EN_DEV": "mlqa-en-dev",
}
TARGET_S = 10.0


def measure(configs: list[str], squad: str, out: Path, cache: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak resident MiB of one ``eviscope build``
    process. On a shared machine the CPU time is the steadier of the two."""
    command = [sys.executable, "-m", "eviscope.cli", "build", *configs, "--squad", squad, "--out", str(out)]
    started = time.perf_counter()
    env = {**os.environ, "EVISCOPE_CACHE": str(cache)}
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"build of {' '.join(configs)} failed: {process.stderr.read().decode().strip()}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    default = os.environ.get(
        "EVISCOPE_SQUAD", str(Path(__file__).resolve().parents[2] / "shared/data/squad/dev-v1.1.json")
    )
    parser.add_argument("--squad", default=default, help="SQuAD v1.1 dev JSON (default: $EVISCOPE_SQUAD)")
    args = parser.parse_args()
    data = Path(__file__).resolve().parents[2] / "shared/data"
    for variable, folder in OTHER_SOURCES.items():
        os.environ.setdefault(variable, str(data / folder))
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        cold, cpu, mib = measure(list(CONFIGS), args.squad, Path(tmp) / "cold", cache)
        print(
            f"{'all three':<14} wall {cold:6.2f} s  CPU {cpu:6.2f} s  peak RSS {mib:5.0f} MiB  cold: empty typing cache"
        )
        for config in CONFIGS:
            seconds, cpu, mib = measure([config], args.squad, Path(tmp) / config, cache)
            print(f"{config:<14} wall {seconds:6.2f} s  CPU {cpu:6.2f} s  peak RSS {mib:5.0f} MiB  warm")
        seconds, cpu, mib = measure(list(CONFIGS), args.squad, Path(tmp) / "all", cache)
        print(
            f"{'all three':<14} wall {seconds:6.2f} s  CPU {cpu:6.2f} s  peak RSS {mib:5.0f} MiB  warm: "
            f"{seconds / TARGET_S:.2f}x of the {TARGET_S:.0f} s target, {cold / seconds:.1f}x faster than cold"
        )


if __name__ == "__main__":
    main()
