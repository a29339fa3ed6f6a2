"""Predictions read column-wise (pyarrow, a block of lines at a time) are exactly what the line pass
(one :class:`Prediction` per line) reads: the same error for every malformed file, the same warnings,
the same predictions and the same scores to the last digit, on real built rows.

The line pass is what every block falls back to; forcing it everywhere (``_read_block`` returning
None) gives the reference each column-wise read is compared with.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import pytest
from malformed_inputs import CORPUS, Inputs
from synthetic_predictions import replicate, write_predictions

from eviscope.core.errors import EviScopeError
from eviscope.suites.eviscope import predictions as predictions_module
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.predictions import (
    PREDICTION_SCHEMA,
    Prediction,
    Usage,
    load_predictions,
    validate_predictions,
)
from eviscope.suites.eviscope.scoring import answer_ok, score_predictions, source_ok, success

CONFIG = "eviscope-v1.1"


@pytest.fixture(scope="module")
def rows(built_dataset: Path) -> list[dict[str, Any]]:
    return load_rows(CONFIG, built_dataset)


def outcome(path: Path, rows: list[dict[str, Any]]) -> tuple[str, Any]:
    """("error", the one line) or ("ok", (the predictions' table, the warnings, the metric tables))."""
    notes: list[str] = []
    try:
        preds = load_predictions(path, rows, warn=notes.append)
    except EviScopeError as err:
        return "error", str(err)
    scores = score_predictions(rows, preds)
    return "ok", (preds.in_order(), notes, scores.overall, scores.per_variant)


def both_ways(path: Path, rows: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    columns = outcome(path, rows)
    with monkeypatch.context() as m:
        m.setattr(predictions_module, "_read_block", lambda lines: None)
        lines = outcome(path, rows)
    return columns, lines


def test_the_schema_holds_every_field_of_a_prediction() -> None:
    assert PREDICTION_SCHEMA.names == list(Prediction.model_fields)
    assert PREDICTION_SCHEMA.field("usage").type.names == list(Usage.model_fields)


FILE_CASES = [c for c in CORPUS if c.benchmark == "eviscope" and c.content is not None and "cli" in c.entries]


@pytest.fixture(scope="module")
def inputs(rows: list[dict[str, Any]], built_dataset: Path) -> Inputs:
    from eviscope.suites.forcebench.rows import read_rows

    return Inputs(rows, read_rows(built_dataset))


@pytest.mark.parametrize("block_lines", [65536, 7])
def test_every_malformed_file_gets_the_error_the_line_pass_gives(
    rows: list[dict[str, Any]],
    inputs: Inputs,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    block_lines: int,
) -> None:
    monkeypatch.setattr(predictions_module, "BLOCK_LINES", block_lines)
    assert len(FILE_CASES) > 60
    for case in FILE_CASES:
        if case.cli_args:
            continue
        path = case.write(inputs, tmp_path / f"{case.name}.jsonl")
        columns, lines = both_ways(path, rows, monkeypatch)
        assert columns[0] == lines[0] == "error", case.name
        assert columns[1] == lines[1], case.name
        assert case.expect in columns[1], case.name


def _write(path: Path, objects: list[Any]) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objects), encoding="utf-8")
    return path


@pytest.mark.parametrize("block_lines", [65536, 5])
def test_files_pyarrow_reads_leniently_get_the_line_pass_error_at_any_block(
    rows: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block_lines: int
) -> None:
    monkeypatch.setattr(predictions_module, "BLOCK_LINES", block_lines)
    valid = [{"id": r["id"], "action": "abstain"} for r in rows]
    lenient = {
        "null-line-starting-a-block": (5, None, "line 6: expected one prediction object, got null"),
        "missing-action": (5, {"id": valid[5]["id"]}, "line 6 (id q02-noisy): field `action`: Field required"),
        "two-objects": (5, "TWO", "line 6: not valid JSON: trailing characters"),
        "null-citation": (9, {**valid[9], "citations": [None]}, "field `citations.0`: Input should be a valid string"),
        "null-quote": (9, {**valid[9], "quotes": [None]}, "field `quotes.0`: Input should be"),
        "quote-without-text": (9, {**valid[9], "quotes": [{"doc_id": "d"}]}, "field `quotes.0.text`: Field required"),
        "negative-count": (9, {**valid[9], "usage": {"calls": -2}}, "field `usage.calls`: Input should be greater than or equal to 0"),
        "amount-too-big": (9, {**valid[9], "usage": {"cost_usd": 2e12}}, "field `usage.cost_usd`: Input should be less than or equal to"),
        "null-id": (9, {**valid[9], "id": None}, "line 10: field `id`: Input should be a valid string, got null"),
        "duplicate-then-bad-line": (11, valid[2], "line 12: duplicate id q01-insufficient (first on line 3)"),
    }  # fmt: skip
    for name, (index, obj, expected) in lenient.items():
        objects: list[Any] = list(valid)
        objects[index] = obj
        if name == "duplicate-then-bad-line":
            objects[13] = {"id": valid[13]["id"], "action": "guess"}
        path = _write(tmp_path / f"{name}.jsonl", objects)
        if obj == "TWO":
            lines = path.read_bytes().split(b"\n")
            lines[index] = lines[4] + b" " + lines[4]
            path.write_bytes(b"\n".join(lines))
        columns, line_pass = both_ways(path, rows, monkeypatch)
        assert columns == line_pass, name
        assert columns[0] == "error" and expected in columns[1], (name, columns[1])
    raw = tmp_path / "nan.jsonl"
    raw.write_text(
        "".join(json.dumps(o) + "\n" for o in valid[:9])
        + json.dumps({"id": valid[9]["id"], "action": "abstain", "usage": {"latency_s": float("nan")}})
        + "\n"
        + "".join(json.dumps(o) + "\n" for o in valid[10:]),
        encoding="utf-8",
    )
    columns, line_pass = both_ways(raw, rows, monkeypatch)
    assert columns == line_pass and "field `usage.latency_s`: Input should be a finite number" in columns[1]


def test_a_file_read_partly_by_either_pass_warns_and_scores_as_the_line_pass(
    rows: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(predictions_module, "BLOCK_LINES", 16)
    objects: list[dict[str, Any]] = [
        {"id": r["id"], "action": r["expected_action"], "answer": r["answers"][0], "citations": r["supporting_doc_ids"]}
        for r in rows
    ]  # fmt: skip
    objects[20]["model"] = "m"  # an unknown field: the line pass reads that block
    objects[21]["usage"] = {"calls": 1.0, "latency_s": -0.0}  # a count pyarrow will not read as an integer
    objects[70]["model"] = "m"
    path = _write(tmp_path / "mixed.jsonl", objects)
    columns, line_pass = both_ways(path, rows, monkeypatch)
    assert columns == line_pass
    assert columns[0] == "ok"
    _, notes, overall, _ = columns[1]
    assert notes == [
        f"{path}: unknown field 'model' ignored (2 predictions, first on line 21); the known fields "
        "are id, action, answer, citations, quotes, usage"
    ]
    assert overall["joint_success"] == 1.0 and overall["avg_calls"] == 1 / len(rows)
    assert math.copysign(1.0, overall["avg_latency_s"]) == 1.0  # -0.0 counts as 0, not as -0


def test_scores_read_column_wise_are_the_row_predicates_on_real_rows(
    rows: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every reference system's output on 8 copies of the real rows, with random usage."""
    replicated = replicate(rows, 8 * len(rows))
    path = tmp_path / "synthetic.jsonl"
    write_predictions(path, rows, len(replicated), seed=3)
    monkeypatch.setattr(predictions_module, "BLOCK_LINES", 100)  # many blocks
    columns, line_pass = both_ways(path, replicated, monkeypatch)
    assert columns == line_pass and columns[0] == "ok"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        objects = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        by_id = {p.id: p for p in validate_predictions(objects)}
    preds = load_predictions(path, replicated)
    scores = score_predictions(replicated, preds)
    assert [p.id for p in preds] == [r["id"] for r in replicated] == preds.ids()
    assert list(preds) == [by_id[r["id"]] for r in replicated]
    for i, row in enumerate(replicated):
        pred = by_id[row["id"]]
        assert scores.rows.answer_ok[i] == answer_ok(row, pred), row["id"]
        assert scores.rows.source_ok[i] == source_ok(row, pred), row["id"]
        assert scores.rows.success[i] == success(row, pred), row["id"]
    from_objects = score_predictions(replicated, load_predictions(objects, replicated))
    assert from_objects.overall == scores.overall and from_objects.per_variant == scores.per_variant
    assert scores.overall["joint_success"] not in (0.0, 1.0)
