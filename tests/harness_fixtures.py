"""What the harness tests share: running a harness's command line, reading what it reported, and
scoring its logged replies with the suite's own commands (``eviscope tasks predictions``, then
``eviscope score``) on the rows its ``--limit`` covered."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from eviscope_fixtures import write_dataset

from eviscope.cli import main
from eviscope.harness import lm_eval_tasks
from eviscope.suites.eviscope.dataset import load_rows


def harness_env(**extra: str) -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", **extra}


def run_harness(argv: list[str], cwd: Path, timeout_s: int = 600, **env: str) -> None:
    """Run a harness's command line with ``env`` added; it must succeed within ``timeout_s``."""
    done = subprocess.run(
        argv, cwd=cwd, env=harness_env(**env), capture_output=True, text=True, timeout=timeout_s
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def rows_subset(built_dataset: Path, tmp: Path, quartets: int) -> Path:
    """The first ``quartets`` quartets of eviscope-v1.1 and the first ``2 * quartets`` ForceBench pairs:
    the rows a harness ``--limit`` of ``4 * quartets`` requests covers, for the suite's scorers.

    The folder's name is new each time: ``datasets`` caches a local folder by its name, across runs
    (see :func:`eviscope.harness.data.load_rows`), and ``eviscope score`` reads it through that cache.
    """
    root = tmp / f"subset-{uuid.uuid4().hex[:12]}"
    write_dataset(root, "eviscope-v1.1", load_rows("eviscope-v1.1", built_dataset)[: 4 * quartets])
    pairs = pq.read_table(built_dataset / "data" / "forcebench" / "test.parquet").slice(0, 2 * quartets)
    pq.write_table(pairs, root / "forcebench.parquet")
    return root


def headline_pairs(subset: Path) -> int:
    """The subset's ForceBench pairs that the scorers count: the evaluation split (contract §5)."""
    return pq.read_table(subset / "forcebench.parquet").column("split").to_pylist().count("eval")


def harness_predictions(log: Path, tmp: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """``eviscope tasks predictions``: the predictions file of a harness log."""
    preds = tmp / f"{log.stem}.predictions.jsonl"
    capsys.readouterr()
    assert main(["tasks", "predictions", str(log), "--out", str(preds)]) == 0
    capsys.readouterr()
    return preds


def suite_scores(log: Path, subset: Path, tmp: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """Convert a harness log into predictions and score them with the suite's own commands."""
    preds = harness_predictions(log, tmp, capsys)
    if "forcebench" in log.name:
        assert (
            main(
                [
                    "score",
                    str(preds),
                    "--config",
                    "forcebench",
                    "--dataset",
                    str(subset / "forcebench.parquet"),
                    "--json",
                ]
            )
            == 0
        )
        return json.loads(capsys.readouterr().out)
    out = tmp / f"{log.stem}.report"
    argv = ["score", str(preds), "--dataset", str(subset), "--json", "--out", str(out)]
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)["overall"]


def assert_same(harness: dict[str, float], ours: dict[str, Any], names: tuple[str, ...]) -> None:
    for name in names:
        theirs = harness[name]
        assert isinstance(theirs, float), (name, theirs)
        # undefined on these rows (ForceBench: None, no control among them; EviScope: left out, no
        # irrelevant edit among them): lm-eval reports NaN
        if ours.get(name) is None:
            assert math.isnan(theirs), (name, theirs)
            continue
        assert math.isclose(theirs, ours[name], rel_tol=0, abs_tol=1e-9), (name, theirs, ours[name])


def lm_eval_results(out: Path) -> dict[str, dict[str, float]]:
    [results] = out.rglob("results_*.json")
    by_task = json.loads(results.read_text())["results"]
    return {
        task: {k.removesuffix(",none"): v for k, v in metrics.items() if k.endswith(",none")}
        for task, metrics in by_task.items()
    }


def samples_log(out: Path, task: str) -> Path:
    [samples] = out.rglob(f"samples_{task}_*.jsonl")
    return samples


def run_lm_eval(
    model: str,
    model_args: list[str],
    dataset: Path,
    out: Path,
    limit: int,
    *extra: str,
    timeout_s: int = 600,
    **metadata: str,
) -> None:
    """lm-eval on eviscope_v1_1 and forcebench_generic, ``--limit`` requests each, samples logged to
    ``out``; ``metadata`` goes to the tasks (``--metadata``) beside the dataset."""
    argv = [sys.executable, "-m", "lm_eval", "run", "--model", model, "--model_args", *model_args,
            "--tasks", "eviscope_v1_1", "forcebench_generic", "--include_path", str(lm_eval_tasks()),
            "--metadata", json.dumps({"dataset": str(dataset), **metadata}), "--limit", str(limit), "--log_samples",
            "--output_path", str(out), "--apply_chat_template", *extra]  # fmt: skip
    run_harness(argv, out.parent, timeout_s)
