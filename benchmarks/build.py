"""Wall time and peak memory of ``eviscope build`` for each config, from the full SQuAD dev file.

    python benchmarks/build.py [--squad PATH]

Each config is built in a fresh process (imports included, as a user runs it), then all three in
one process; one line each, with the ratio to the 10 s target for building all three.
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
TARGET_S = 10.0


def measure(configs: list[str], squad: str, out: Path) -> tuple[float, float]:
    """Wall seconds and peak resident MiB of one ``eviscope build`` process."""
    command = [sys.executable, "-m", "eviscope.cli", "build", *configs, "--squad", squad, "--out", str(out)]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"build of {' '.join(configs)} failed: {process.stderr.read().decode().strip()}")
    return seconds, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    default = os.environ.get(
        "EVISCOPE_SQUAD", str(Path(__file__).resolve().parents[2] / "shared/data/squad/dev-v1.1.json")
    )
    parser.add_argument("--squad", default=default, help="SQuAD v1.1 dev JSON (default: $EVISCOPE_SQUAD)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for config in CONFIGS:
            seconds, mib = measure([config], args.squad, Path(tmp) / config)
            print(f"{config:<14} wall {seconds:5.2f} s   peak RSS {mib:6.0f} MiB")
        seconds, mib = measure(list(CONFIGS), args.squad, Path(tmp) / "all")
        print(
            f"{'all three':<14} wall {seconds:5.2f} s   peak RSS {mib:6.0f} MiB   "
            f"{seconds / TARGET_S:.2f}x of the {TARGET_S:.0f} s target"
        )


if __name__ == "__main__":
    main()
