"""Bounded reads (issue 27): ``eviscope score`` on hostile predictions files stops with one line
after reading a bounded amount, its memory flat (peak resident memory under 400 MB, measured in a
fresh process; ``benchmarks/hostile_memory.py`` measures the same with ``/usr/bin/time -v``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_files import hostile_files
from malformed_driver import run_console_script

from eviscope.suites.eviscope.dataset import load_rows

MAX_RSS_MB = 400
EXPECTED = {
    "/dev/zero": "/dev/zero line 1: longer than 16 MiB (the most one line may hold)",
    "1 GiB, no line break": "one-line-1gib.jsonl line 1: longer than 16 MiB (the most one line may hold)",
    "10⁶ duplicate lines": "duplicates-1m.jsonl line 2: duplicate id q01-sufficient (first on line 1)",
}
FORCEBENCH = {"/dev/zero": "/dev/zero:1: longer than 16 MiB (the most one line may hold)"}


@pytest.fixture(scope="module")
def files(built_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    first = load_rows("eviscope-v1.1", built_dataset)[0]["id"]
    return hostile_files(tmp_path_factory.mktemp("hostile"), first)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_a_hostile_predictions_file_is_one_line_in_flat_memory(name, files, built_dataset, tmp_path):
    out = tmp_path / "report"
    args = ["score", str(files[name]), "--dataset", str(built_dataset), "--out", str(out)]
    code, stdout, stderr, peak = run_console_script(args, timeout_s=300, measure_memory=True)
    assert (code, stdout) == (2, ""), stderr
    assert stderr.startswith("eviscope score: error: ") and stderr.count("\n") == 1, stderr
    assert EXPECTED[name] in stderr and "Traceback" not in stderr
    assert peak is not None and peak < MAX_RSS_MB, f"peak RSS {peak:.0f} MB"
    assert not out.exists()


def test_the_forcebench_reader_is_the_same_bounded_reader(built_dataset, tmp_path):
    args = ["score", "/dev/zero", "--config", "forcebench", "--dataset", str(built_dataset)]
    code, _, stderr, peak = run_console_script(args, measure_memory=True)
    assert code == 2 and FORCEBENCH["/dev/zero"] in stderr and stderr.count("\n") == 1
    assert peak is not None and peak < MAX_RSS_MB, f"peak RSS {peak:.0f} MB"
