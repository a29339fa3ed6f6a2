"""Peak memory of ``eviscope score`` on hostile predictions files (issue 27), with ``/usr/bin/time -v``.

The files (``tests/hostile_files.py``, written into a temporary folder): ``/dev/zero``, one 1 GiB
line with no line break, and 10⁶ duplicate lines. Each is scored in a fresh process under
``/usr/bin/time -v`` (``apt-get install time`` if it is missing); the table gives its peak resident
memory ("Maximum resident set size"), its ratio to the floor (the same command on a valid 160-line
file: the interpreter and the imports), the target (under 400 MB), and the one-line error.

``--before EVISCOPE`` adds a column for another install's console script (e.g. one of the main
branch), run under a 6 GiB address-space limit (``/dev/zero`` is left out there: before the bounded
reader it grew until that limit).

``--subset`` scores with ``eviscope score --subset`` (which read the ids in a pass of its own,
without bound, before issue 34).

    python benchmarks/hostile_memory.py [--dataset dataset] [--before /path/to/eviscope] [--subset]
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from hostile_files import hostile_files

from eviscope.core.layout import DEFAULT_DATASET_DIR
from eviscope.core.registry import DEFAULT_CONFIG
from eviscope.suites.eviscope.dataset import load_rows

TARGET_MB = 400
BEFORE_LIMIT = 6 << 30
_PEAK = re.compile(r"Maximum resident set size \(kbytes\): (\d+)")


def measure(
    eviscope: str, predictions: Path, dataset: Path, limit: int | None = None, extra: tuple[str, ...] = ()
) -> tuple[float, int, str]:
    """(peak RSS in MB, exit status, last stderr line) of ``eviscope score predictions [extra]``."""

    def cap() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    with tempfile.TemporaryDirectory() as out:
        command = ["/usr/bin/time", "-v", eviscope, "score", str(predictions), "--dataset", str(dataset),
                   "--config", DEFAULT_CONFIG, "--json", "--out", out, *extra]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, preexec_fn=cap, check=False)
    peak = _PEAK.search(done.stderr)
    lines = [line for line in done.stderr.splitlines() if line and not line.startswith(("\t", "Command"))]
    last = next((line for line in lines if "error" in line or "Error" in line), lines[-1] if lines else "")
    return (int(peak.group(1)) / 1024 if peak else float("nan")), done.returncode, last


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=Path(DEFAULT_DATASET_DIR))
    parser.add_argument(
        "--before", metavar="EVISCOPE", help="another install's console script, for comparison"
    )
    parser.add_argument(
        "--subset", action="store_true", help="score with --subset (the rows the predictions name)"
    )
    args = parser.parse_args()
    extra = ("--subset",) if args.subset else ()
    if not Path("/usr/bin/time").exists():
        raise SystemExit("/usr/bin/time is missing: apt-get install time")
    eviscope = shutil.which("eviscope") or "eviscope"
    rows = load_rows(DEFAULT_CONFIG, args.dataset)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        valid = folder / "valid.jsonl"
        valid.write_text("".join(json.dumps({"id": r["id"], "action": "abstain"}) + "\n" for r in rows))
        files = hostile_files(folder, rows[0]["id"])
        floor, code, _ = measure(eviscope, valid, args.dataset, extra=extra)
        assert code == 0, "the valid file did not score"
        print(f"eviscope score on {len(rows)} valid lines (the floor): peak RSS {floor:.0f} MB")
        header = f"{'file':<24}{'peak RSS MB':>12}{'÷ floor':>9}{'target':>9}"
        header += f"{'before MB':>11}" if args.before else ""
        print(f"{header}  one-line error")
        failed = False
        for name, path in files.items():
            peak, code, line = measure(eviscope, path, args.dataset, extra=extra)
            ok = code == 2 and peak < TARGET_MB
            failed |= not ok
            row = f"{name:<24}{peak:>12.0f}{peak / floor:>9.2f}{'<' + str(TARGET_MB):>7} {'ok' if ok else 'FAIL':<2}"
            if args.before:
                if path == Path("/dev/zero"):
                    row += f"{'not run':>11}"
                else:
                    before, _, _ = measure(args.before, path, args.dataset, BEFORE_LIMIT, extra)
                    row += f"{before:>11.0f}"
            print(f"{row}  {line[:150]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
