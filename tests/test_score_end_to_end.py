"""The README's path on the real built configs: build, run the lexical baseline, score, compare."""

from __future__ import annotations

import json

import pytest

from eviscope.cli import main
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.reference_systems import predict
from eviscope.suites.eviscope.rows import VARIANTS
from eviscope.suites.eviscope.scoring import QUARTET_METRICS, score

SUCCESS_METRICS = ("answer_accuracy", "source_accuracy", "span_f1", "abstention_f1", "conflict_accuracy",
                   "joint_success", *QUARTET_METRICS)  # fmt: skip


@pytest.mark.parametrize("config", ["eviscope-v1.1", "eviscope-v1"])
def test_oracle_scores_one_on_every_success_metric_of_the_built_config(built_dataset, config):
    rows = load_rows(config, built_dataset)
    assert len(rows) == 160 and {row["variant"] for row in rows} == set(VARIANTS)
    result = score(rows, predict("oracle", rows))
    assert {name: result.overall[name] for name in SUCCESS_METRICS} == dict.fromkeys(SUCCESS_METRICS, 1.0)
    assert result.overall["hallucination_rate"] == 0.0 and len(result.quartets.quartet_ids) == 40


def test_lexical_baseline_scored_and_compared_from_the_command_line(built_dataset, tmp_path, capsys):
    config = ["--config", "eviscope-v1.1", "--dataset", str(built_dataset)]
    lexical, oracle = tmp_path / "lexical" / "predictions.jsonl", tmp_path / "oracle" / "predictions.jsonl"
    assert main(["baseline", "--system", "lexical", *config, "--out", str(lexical.parent)]) == 0
    assert main(["baseline", "--system", "oracle", *config, "--out", str(oracle.parent)]) == 0
    assert len(lexical.read_text().splitlines()) == 160
    capsys.readouterr()
    assert main(["score", *config, str(lexical), "--out", str(tmp_path / "r"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["n_quartets"] == 40
    # The baseline reads only the documents, so it is neither perfect nor useless.
    assert 0 < report["overall"]["joint_success"] < 1
    assert sum(report["action_confusion"]["conflicting"].values()) == 40
    assert main(["compare", str(lexical), str(oracle), *config, "--json", "--draws", "1000"]) == 0
    compared = json.loads(capsys.readouterr().out)["metrics"]
    for name in QUARTET_METRICS:
        assert compared[name]["A"] == report["overall"][name] and compared[name]["B"] == 1.0
        assert compared[name]["b"] == 0 and compared[name]["c"] == round(40 * (1 - compared[name]["A"]))
