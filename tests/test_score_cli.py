"""`eviscope score`, `compare` and `baseline` on a dataset laid out as `eviscope build` writes it."""

from __future__ import annotations

import json

import pytest
from eviscope_fixtures import HAND_VALUES, hand_predictions, hand_rows, write_dataset, write_jsonl

from eviscope.cli import main

CONFIG = "eviscope-v1.1"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    return write_dataset(tmp_path_factory.mktemp("dataset"), CONFIG, hand_rows())


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_score_prints_tables_and_writes_reports(dataset, tmp_path, capsys):
    preds = write_jsonl(tmp_path / "hand.jsonl", hand_predictions())
    out_dir = tmp_path / "report"
    code, out, _ = run(capsys, "score", "--config", CONFIG, "--dataset", dataset, preds,
                       "--out", out_dir)  # fmt: skip
    assert code == 0
    assert "QCS" in out and "0.250" in out and "joint_success" in out
    names = {p.name for p in out_dir.iterdir()}
    assert names == {"report.json", "report.md", "quartet_transitions.png", "action_confusion.png",
                     "failing_quartets.jsonl", "failing_quartets.md"}  # fmt: skip
    assert len((out_dir / "failing_quartets.jsonl").read_text().splitlines()) == 3


def test_score_json_is_the_report(dataset, tmp_path, capsys):
    preds = write_jsonl(tmp_path / "hand.jsonl", hand_predictions())
    code, out, _ = run(capsys, "score", "--dataset", dataset, preds, "--json",
                       "--out", tmp_path / "r")  # fmt: skip
    assert code == 0
    report = json.loads(out)
    assert report["overall"] == pytest.approx(HAND_VALUES)
    assert report == json.loads((tmp_path / "r" / "report.json").read_text())


def test_score_names_bad_ids_in_one_line(dataset, tmp_path, capsys):
    preds = hand_predictions()
    preds[0]["id"] = "q0-sufficient"
    path = write_jsonl(tmp_path / "bad.jsonl", preds)
    code, out, err = run(capsys, "score", "--dataset", dataset, path, "--out", tmp_path / "r")
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert (
        "bad.jsonl: ids do not match the 16 rows: 1 unknown ids (q0-sufficient); 1 missing ids (q1-sufficient)"
        in err
    )


def test_unbuilt_config_says_how_to_build_it(tmp_path, capsys):
    code, _, err = run(capsys, "score", "--config", "eviscope-v1", "--dataset", tmp_path,
                       tmp_path / "p.jsonl")  # fmt: skip
    assert code == 2
    assert f"run `eviscope build eviscope-v1 --out {tmp_path}` first" in err


def test_baseline_then_compare(dataset, tmp_path, capsys):
    files = {}
    for system in ("oracle", "always-answer"):
        files[system] = tmp_path / system / "predictions.jsonl"
        code, _, err = run(
            capsys, "baseline", "--system", system, "--dataset", dataset, "--out", tmp_path / system
        )
        assert code == 0 and "16 predictions" in err
    code, out, _ = run(capsys, "compare", files["oracle"], files["always-answer"], "--dataset", dataset,
                       "--json", "--draws", 500)  # fmt: skip
    assert code == 0
    result = json.loads(out)
    assert (result["draws"], result["seed"]) == (500, 0)
    ers = result["metrics"]["evidence_removal_sensitivity"]
    assert (ers["A"], ers["B"], ers["b"], ers["c"]) == (1.0, 0.0, 4, 0)
    assert ers["p_value"] == 0.125 and ers["ci_low"] == ers["ci_high"] == 1.0
    assert result["metrics"]["noise_robustness"]["p_value"] == 1.0
    code, out, _ = run(capsys, "compare", files["oracle"], files["always-answer"], "--dataset", dataset)
    assert code == 0 and "McNemar p" in out and "ERS" in out


def test_score_warns_in_one_line_when_the_run_beside_the_predictions_asked_other_rows(
    dataset, tmp_path, capsys
):
    from eviscope.runner.manifest import rows_sha256
    from eviscope.suites.eviscope.dataset import load_rows
    from eviscope.suites.eviscope.task import EviScopeTask

    rows = load_rows(CONFIG, dataset)
    redrawn = [{**rows[0], "question": "Where did the other event happen?"}, *rows[1:]]  # same ids
    run_dir = tmp_path / "runs" / "hand"
    run_dir.mkdir(parents=True)
    preds = write_jsonl(run_dir / "predictions.jsonl", hand_predictions())
    for asked, warned in ((rows, False), (redrawn, True)):
        manifest = {
            "model": "m",
            "policy": "vanilla",
            "rows": {"sha256": rows_sha256(EviScopeTask("vanilla"), asked)},
        }
        (run_dir / "manifest.json").write_text(json.dumps(manifest))
        code, out, err = run(capsys, "score", "--dataset", dataset, preds, "--out", tmp_path / "r")
        assert code == 0 and "QCS" in out
        assert err.count("\n") == warned
        assert ("records a run that asked other rows than the 16 scored" in err) == warned
