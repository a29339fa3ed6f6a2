"""benchmarks/score.py runs end to end (a smoke run: no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from eviscope_fixtures import hand_rows, write_dataset

BENCHMARK = Path(__file__).resolve().parents[1] / "benchmarks" / "score.py"


def test_benchmark_reports_both_sides_and_the_ratio(tmp_path):
    dataset = write_dataset(tmp_path / "dataset", "eviscope-v1.1", hand_rows())
    done = subprocess.run(
        [sys.executable, str(BENCHMARK), "--n", "62", "--dataset", str(dataset), "--repeat", "1"],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    out = done.stdout
    assert "64 predictions" in out and "on 64 rows" in out  # rounded up to whole quartets
    assert "plain json.loads, line by line" in out and "end-to-end scoring ÷ plain parsing:" in out
    assert "traced memory peak" in out
