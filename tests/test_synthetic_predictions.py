"""The synthetic predictions ``benchmarks/score.py`` scores: replicated rows and predictions score as a
direct computation says; and the benchmark, run as a command, reports both timing sides, the ratio
and the memory bound (no timing is asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import synthetic_predictions
from eviscope_fixtures import hand_rows, write_dataset

from eviscope.suites.eviscope.predictions import Prediction, load_predictions
from eviscope.suites.eviscope.rows import VARIANTS
from eviscope.suites.eviscope.scoring import QUARTET_METRICS, score, score_predictions, success

BENCHMARK = Path(__file__).resolve().parents[1] / "benchmarks" / "score.py"


def test_replicated_rows_score_as_their_base_rows_do(tmp_path):
    bench = synthetic_predictions
    base = hand_rows()
    n = 400  # 25 copies of the 16 hand rows
    path = tmp_path / "predictions.jsonl"
    assert bench.write_predictions(path, base, n, seed=3) == path.stat().st_size
    rows = bench.replicate(base, n)
    assert len(rows) == n and len({row["id"] for row in rows}) == n
    assert all(set(row) == set(bench.SCORED_FIELDS) for row in rows)
    result = score_predictions(rows, load_predictions(path, rows))

    # Direct computation: each line's success is its reference system's success on the base row.
    generated = list(bench.synthetic_predictions(base, n, seed=3))
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [pred for _, _, pred in generated] == lines
    base_success = {}
    for name in ("oracle", "lexical", "always-answer"):
        on_base = score(base, bench.SYSTEMS[name](base))
        base_success[name] = dict(zip(on_base.rows.ids, on_base.rows.success.tolist(), strict=True))
    expected = [
        False if system == "null" else base_success[system][row["id"]] for row, system, _ in generated
    ]
    assert {system for _, system, _ in generated} == {"oracle", "lexical", "always-answer", "null"}
    assert result.rows.success.tolist() == expected
    assert result.rows.success.tolist() == [
        success(row, Prediction.model_validate(pred)) for row, pred in zip(rows, lines, strict=True)
    ]
    assert result.overall["joint_success"] == pytest.approx(sum(expected) / n)
    by_id = dict(zip((row["id"] for row in rows), expected, strict=True))
    quartets = sorted({row["quartet_id"] for row in rows})
    assert len(result.quartets.quartet_ids) == len(quartets) == n // 4
    for name, variants in QUARTET_METRICS.items():
        holds = [all(by_id[f"{q}-{v}"] for v in variants) for q in quartets]
        assert result.overall[name] == pytest.approx(sum(holds) / len(quartets)), name
    calls = [(pred.get("usage") or {}).get("calls", 0) for pred in lines]
    cost = [(pred.get("usage") or {}).get("cost_usd", 0) for pred in lines]
    assert result.overall["avg_calls"] == pytest.approx(sum(calls) / n)
    assert result.overall["total_cost_usd"] == pytest.approx(sum(cost))
    assert set(result.per_variant) == set(VARIANTS)


def test_benchmark_reports_both_sides_the_ratio_and_the_bound(tmp_path):
    dataset = write_dataset(tmp_path / "dataset", "eviscope-v1.1", hand_rows())
    done = subprocess.run(
        [sys.executable, str(BENCHMARK), "--n", "62", "--dataset", str(dataset), "--repeat", "1", "--traced"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    out = done.stdout
    assert "64 predictions" in out and "on 64 rows" in out, done.stderr  # rounded up to whole quartets
    assert "plain json.loads, line by line" in out and "end-to-end scoring ÷ plain parsing:" in out
    assert "traced memory peak" in out
    [line] = [
        line for line in out.splitlines() if line.startswith("peak RSS, rows + validate + join + score:")
    ]
    assert "bound ≤" in line and "for 64 rows" in line and line.endswith("PASS")
    assert done.returncode == 0
