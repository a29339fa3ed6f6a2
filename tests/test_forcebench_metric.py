"""The `metrics/forcebench` evaluate module: loads offline, agrees with the library, doctest runs."""

from __future__ import annotations

import doctest
from pathlib import Path

import evaluate
import pytest
from forcebench_fixtures import REPO, sample_rows
from module_files import load_file

from eviscope.suites.forcebench.baselines import baseline_predictions
from eviscope.suites.forcebench.scoring import score_predictions

METRIC = REPO / "metrics" / "forcebench"


@pytest.fixture(scope="module")
def forcebench() -> evaluate.EvaluationModule:
    return evaluate.load(str(METRIC))


def test_the_module_matches_the_library_on_pooled_baselines_and_judges(forcebench) -> None:
    rows = sample_rows()
    by_id = {r["id"]: r for r in rows}
    predictions = baseline_predictions(rows, ["token_overlap", "axis_forcecheck"]) + [
        {
            "id": r["id"],
            "evaluator": "judge",
            "prompt": "generic",
            "label_safe": "fully_supported",
            "label_raised": "partially_supported" if r["axis"] != "scope" else "refused",
        }
        for r in rows
    ]
    references = [{k: by_id[p["id"]][k] for k in ("id", "axis", "severity")} for p in predictions]
    result = forcebench.compute(predictions=predictions, references=references)
    expected = score_predictions(rows, predictions)
    assert result == expected
    assert result["per_evaluator"]["judge"]["missing"] == 2
    assert set(result["per_evaluator"]) == {"baseline/token_overlap", "baseline/axis_forcecheck", "judge"}


def test_references_with_an_eval_split_are_scored_on_it_as_eviscope_score_does(forcebench) -> None:
    rows = [{**r, "split": "eval" if n % 2 else "pool"} for n, r in enumerate(sample_rows())]
    predictions = baseline_predictions(rows, ["token_overlap"])
    by_id = {r["id"]: r for r in rows}
    references = [{k: by_id[p["id"]][k] for k in ("id", "axis", "severity", "split")} for p in predictions]
    result = forcebench.compute(predictions=predictions, references=references)
    assert result == score_predictions(rows, predictions)
    assert (result["split"], result["n"], result["set_aside"]) == ("eval", len(rows) // 2, len(rows) // 2)
    assert result["all_rows"]["n"] == len(rows)


def test_mismatched_ids_are_refused(forcebench) -> None:
    with pytest.raises(Exception, match="paired with reference id"):
        forcebench.compute(
            predictions=[{"id": "fb-1", "evaluator": "e", "score_safe": 1.0, "score_raised": 0.0}],
            references=[{"id": "fb-2", "axis": "scope", "severity": 1}],
        )


def test_the_card_example_runs_as_a_doctest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    outcome = doctest.testmod(load_file(METRIC / "forcebench.py", "forcebench_metric"))
    assert outcome.attempted > 0 and outcome.failed == 0


def test_the_space_folder_is_complete() -> None:
    readme = (METRIC / "README.md").read_text(encoding="utf-8")
    assert readme.startswith("---\n") and "app_file: app.py" in readme
    assert "import gradio" not in (METRIC / "forcebench.py").read_text(encoding="utf-8")
    assert "gradio" in (METRIC / "requirements.txt").read_text(encoding="utf-8")
    assert Path(METRIC / "app.py").is_file()
