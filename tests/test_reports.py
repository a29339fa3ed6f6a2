"""Reports (JSON, Markdown, PNG) and the error exporter (paper §7)."""

from __future__ import annotations

import json

import matplotlib.image
import numpy as np
import pytest
from eviscope_fixtures import HAND_VALUES, hand_predictions, hand_rows
from PIL import Image

from eviscope.core.plotting import RIGHT, WRONG
from eviscope.runner.manifest import run_system
from eviscope.suites.eviscope.error_export import errors_markdown, failing_quartets, write_error_export
from eviscope.suites.eviscope.predictions import load_predictions
from eviscope.suites.eviscope.reports import write_reports
from eviscope.suites.eviscope.rows import VARIANTS
from eviscope.suites.eviscope.scoring import score_predictions


@pytest.fixture(scope="module")
def scored():
    rows = hand_rows()
    preds = load_predictions(hand_predictions(), rows)
    return rows, preds, score_predictions(rows, preds)


def test_reports_hold_every_metric_and_the_plots_are_images(scored, tmp_path):
    paths = write_reports(scored[2], tmp_path, {"config": "hand", "predictions": "hand.jsonl"})
    report = json.loads(paths["json"].read_text())
    assert report["meta"] == {"config": "hand", "predictions": "hand.jsonl"}
    assert report["overall"] == pytest.approx(HAND_VALUES)
    assert report["per_variant"]["noisy"]["source_accuracy"] == 0.5
    assert report["action_confusion"]["conflicting"] == {
        "answer": 1,
        "abstain": 1,
        "flag_conflict": 2,
        "null": 0,
    }
    markdown = paths["markdown"].read_text()
    assert ["quartet_consistency (QCS)", "0.250"] in _rows(markdown)
    assert ["answer_accuracy", "0.750", "0.500", "1.000", "—", "—"] in _rows(markdown)
    assert ["insufficient", "abstain", "1", "2", "0", "1"] in _rows(markdown)
    assert "![quartet transitions](quartet_transitions.png)" in markdown
    for name in ("quartet_transitions", "action_confusion"):
        image = matplotlib.image.imread(paths[name])
        assert image.shape[0] > 100 and image.shape[1] > 100


def test_plots_name_the_system_and_config_and_use_blue_and_orange(scored, tmp_path):
    meta = {"config": "eviscope-v1.1", "system": "smollm2 (gate)", "predictions": "p.jsonl"}
    paths = write_reports(scored[2], tmp_path, meta)
    titles = {
        name: Image.open(paths[name]).text["Title"] for name in ("quartet_transitions", "action_confusion")
    }
    assert titles == {
        "quartet_transitions": "smollm2 (gate) on eviscope-v1.1: quartet transitions",
        "action_confusion": "smollm2 (gate) on eviscope-v1.1: expected (boxed) vs predicted action",
    }
    pixels = {
        tuple(p) for p in np.asarray(Image.open(paths["quartet_transitions"]).convert("RGB")).reshape(-1, 3)
    }
    for colour in (
        RIGHT,
        WRONG,
    ):  # the quartet map's right and wrong cells: blue and orange, not green and red
        assert tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5)) in pixels


def test_a_run_is_named_by_its_manifest_model_and_policy(tmp_path):
    run = tmp_path / "runs" / "smollm2-gate"
    run.mkdir(parents=True)
    (run / "manifest.json").write_text(
        json.dumps({"model": "HuggingFaceTB/SmolLM2-135M-Instruct", "policy": "gate"})
    )
    assert run_system(run / "predictions.jsonl") == "SmolLM2-135M-Instruct (gate)"
    (run / "manifest.json").write_text("{not json")
    assert run_system(run / "predictions.jsonl") == "smollm2-gate"  # a broken manifest does not stop a score


def test_failing_quartets_put_four_rows_side_by_side(scored):
    records = failing_quartets(*scored)
    assert [r["quartet_id"] for r in records] == ["q1", "q2", "q3"]  # q4 succeeds everywhere
    q2 = records[1]
    assert q2["failed_variants"] == ["noisy"]
    assert list(q2["rows"]) == list(VARIANTS)
    assert q2["rows"]["noisy"] == {
        "id": "q2-noisy",
        "expected_action": "answer",
        "action": "answer",
        "answer": "Broncos",
        "citations": [],
        "supporting_doc_ids": ["sup2"],
        "conflicting_doc_ids": [],
        "answer_ok": True,
        "source_ok": False,
        "success": False,
    }
    assert records[0]["rows"]["insufficient"]["action"] is None
    assert records[0]["conflict_answer"] == "2012"


def test_error_export_files(scored, tmp_path):
    records = failing_quartets(*scored)
    records[0]["question"] = "A | B?"
    jsonl, markdown = write_error_export(records, tmp_path)
    assert [json.loads(line)["quartet_id"] for line in jsonl.read_text().splitlines()] == ["q1", "q2", "q3"]
    text = markdown.read_text()
    assert text == errors_markdown(records)
    assert "## q1: A \\| B?" in text
    assert ["", "sufficient", "noisy", "insufficient", "conflicting"] in _rows(text)
    assert ["predicted", "answer", "answer", "null", "answer"] in _rows(text)
    assert ["success", "✓", "✗", "✓", "✓"] in _rows(text)  # q2


def _rows(markdown: str) -> list[list[str]]:
    """The cells of every Markdown table row in ``markdown``, stripped of their padding."""
    return [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in markdown.splitlines()
        if line.startswith("|")
    ]
