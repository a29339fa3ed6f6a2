"""Bounded reads (issue 27): ``eviscope score`` on hostile predictions files stops with one line
after reading a bounded amount, its memory flat (peak resident memory under 400 MB, measured in a
fresh process; ``benchmarks/hostile_memory.py`` measures the same with ``/usr/bin/time -v``)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from hostile_files import hostile_files
from malformed_driver import run_console_script

from eviscope.cli import main
from eviscope.suites.eviscope.dataset import load_rows

MAX_RSS_MB = 400
EXPECTED = {
    "/dev/zero": "/dev/zero line 1: longer than 16 MiB (the most one line may hold)",
    "1 GiB, no line break": "one-line-1gib.jsonl line 1: longer than 16 MiB (the most one line may hold)",
    "10⁶ duplicate lines": "duplicates-1m.jsonl line 2: duplicate id q01-sufficient (first on line 1)",
}
SAFETY_S = 120
"""The most a child process may take before the test gives up on it (a bound, not a measurement)."""
FORCEBENCH = {"/dev/zero": "/dev/zero:1: longer than 16 MiB (the most one line may hold)"}


@pytest.fixture(scope="module")
def files(built_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    first = load_rows("eviscope-v1.1", built_dataset)[0]["id"]
    return hostile_files(tmp_path_factory.mktemp("hostile"), first)


@pytest.mark.parametrize("subset", [[], ["--subset"]], ids=["", "--subset"])
@pytest.mark.parametrize("name", list(EXPECTED))
def test_a_hostile_predictions_file_is_one_line_in_flat_memory(name, subset, files, built_dataset, tmp_path):
    # --subset read the ids first without bound: 984 MiB for a 400 MB line, /dev/zero until killed
    out = tmp_path / "report"
    args = ["score", str(files[name]), "--dataset", str(built_dataset), "--out", str(out), *subset]
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


def test_subset_names_a_byte_that_is_not_utf8_by_file_and_line(built_dataset, tmp_path, capsys):
    rows = load_rows("eviscope-v1.1", built_dataset)
    path = tmp_path / "latin1.jsonl"
    lines = [json.dumps({"id": row["id"], "action": "abstain"}).encode() for row in rows[:3]]
    lines.insert(
        1, json.dumps({"id": rows[3]["id"], "action": "answer", "answer": "caf"}).encode()[:-2] + b'\xe9"}'
    )
    path.write_bytes(b"\n".join(lines) + b"\n")
    out = tmp_path / "report"
    assert main(["score", str(path), "--subset", "--dataset", str(built_dataset), "--out", str(out)]) == 2
    column = lines[1].index(b"\xe9") + 1
    assert capsys.readouterr().err == (
        f"eviscope score: error: {path} line 2: not UTF-8 text (byte 0xe9 at column {column}); "
        "save the file as UTF-8\n"
    )


def test_subset_reads_a_fifo_once(built_dataset, tmp_path):
    """The predictions of one whole quartet written into a FIFO: ``--subset`` scores them from one
    read (it read the FIFO a second time and waited for a writer forever)."""
    rows = load_rows("eviscope-v1.1", built_dataset)
    quartet = [row for row in rows if row["quartet_id"] == rows[0]["quartet_id"]]
    body = "".join(json.dumps({"id": row["id"], "action": "abstain"}) + "\n" for row in quartet).encode()
    fifo = tmp_path / "predictions.fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with fifo.open("wb") as handle:  # waits for the reader
            handle.write(body)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    out = tmp_path / "report"
    args = ["score", str(fifo), "--subset", "--dataset", str(built_dataset), "--out", str(out), "--json"]
    code, stdout, stderr, _ = run_console_script(args, timeout_s=SAFETY_S)
    assert (code, stderr) == (0, ""), stderr
    report = json.loads(stdout)
    assert (report["n_rows"], report["n_quartets"]) == (len(quartet), 1) == (4, 1)


def test_an_lm_eval_samples_log_is_read_with_the_same_bounded_reader(files, tmp_path):
    # read whole lines without bound: a 1 GiB line was held (and decoded) whole
    log = files["1 GiB, no line break"]
    args = ["tasks", "predictions", str(log), "--out", str(tmp_path / "predictions.jsonl")]
    code, stdout, stderr, peak = run_console_script(args, measure_memory=True)
    assert (code, stdout) == (2, "") and stderr.count("\n") == 1, stderr
    assert f"eviscope tasks: error: {log}:1: longer than 16 MiB (the most one line may hold)" in stderr
    assert peak is not None and peak < MAX_RSS_MB, f"peak RSS {peak:.0f} MB"
    assert not (tmp_path / "predictions.jsonl").exists()
