"""What is scored, but not as its author may think, gets one warning line (issue 35) from every entry
point: ``eviscope score``, the two ``evaluate`` modules and the Space's ``/submit`` callback.

- an unknown field that is no near miss of a known one (the near misses are errors:
  ``tests/malformed_inputs.py``) is named once per field;
- ForceBench labels outside their prompt's label set score null, as the contract says, and are
  counted per value;
- predictions made for another config (``eviscope-v1`` and ``eviscope-v1.1`` share their row ids) are
  named with the config they fit.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from eviscope.cli import main
from eviscope.core.errors import EviScopeWarning
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.reference_systems import predict
from eviscope.suites.forcebench.rows import read_rows

REPO = Path(__file__).resolve().parents[1]
EVISCOPE_FIELDS = "the known fields are id, action, answer, citations, quotes, usage"


def write(path: Path, objects: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objects), encoding="utf-8")
    return path


def score(capsys: pytest.CaptureFixture[str], path: Path, config: str, dataset: Path) -> tuple[dict, str]:
    """(the report ``eviscope score --json`` prints, its stderr); the command must succeed."""
    code = main(["score", str(path), "--config", config, "--dataset", str(dataset), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out), err


@pytest.fixture(scope="module")
def lexical(built_dataset: Path) -> dict[str, list[dict[str, Any]]]:
    """The lexical baseline's predictions for eviscope-v1 and eviscope-v1.1."""
    return {
        config: predict("lexical", load_rows(config, built_dataset))
        for config in ("eviscope-v1", "eviscope-v1.1")
    }


def judged(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A force-aware judge's predictions on every ForceBench row, every 10th `label_safe` outside the
    label set (`fully_supported` is the generic prompt's) and every 25th `label_raised` too (`yes`)."""
    return [
        {
            "id": row["id"],
            "evaluator": "judge/force_aware",
            "prompt": "force_aware",
            "label_safe": "fully_supported" if i % 10 == 0 else "force_calibrated",
            "label_raised": "yes" if i % 25 == 0 else "force_gap",
        }
        for i, row in enumerate(rows)
    ]


def stray_count(rows: list[dict[str, Any]]) -> tuple[int, int]:
    return len(range(0, len(rows), 10)), len(range(0, len(rows), 25))


# --- eviscope score ---------------------------------------------------------------------------


def test_score_names_each_unknown_field_once_in_one_line(built_dataset, lexical, tmp_path, capsys):
    path = write(
        tmp_path / "p.jsonl", [{**p, "model": "lexical", "raw": "…"} for p in lexical["eviscope-v1.1"]]
    )
    report, err = score(capsys, path, "eviscope-v1.1", built_dataset)
    assert err.splitlines() == [
        f"eviscope score: warning: {path}: unknown field '{field}' ignored (160 predictions, first on "
        f"line 1); {EVISCOPE_FIELDS}"
        for field in ("model", "raw")
    ]
    # the extra fields change nothing: the same score as the clean file
    clean, _ = score(
        capsys, write(tmp_path / "clean.jsonl", lexical["eviscope-v1.1"]), "eviscope-v1.1", built_dataset
    )
    assert report["overall"] == clean["overall"]


def test_score_names_the_config_that_predictions_for_another_fit(built_dataset, lexical, tmp_path, capsys):
    # issue 35: eviscope-v1.1 predictions scored with --config eviscope-v1 were accepted without a word
    path = write(tmp_path / "p.jsonl", lexical["eviscope-v1.1"])
    _, err = score(capsys, path, "eviscope-v1", built_dataset)
    [line] = err.splitlines()
    assert line.startswith(f"eviscope score: warning: {path}: ")
    assert (
        "cited doc ids and quotes are not in their rows' documents in eviscope-v1; they fit eviscope-v1.1 ("
        in line
    )
    _, err = score(capsys, path, "eviscope-v1.1", built_dataset)
    assert err == ""


def test_forcebench_labels_outside_the_set_score_null_with_one_counting_warning(
    built_dataset, tmp_path, capsys
):
    rows = read_rows(built_dataset)
    path = write(tmp_path / "fb.jsonl", [{**p, "model": "judge"} for p in judged(rows)])
    report, err = score(capsys, path, "forcebench", built_dataset)
    safe, raised = stray_count(rows)
    assert err.splitlines() == [
        f"eviscope score: warning: {path}: unknown field 'model' ignored ({len(rows)} predictions, first on "
        "line 1); the known fields are id, evaluator, prompt, label_safe, label_raised, score_safe, score_raised",
        f"eviscope score: warning: {path}: {safe + raised} labels are outside their prompt's label set and "
        "score null (a violation on a contrast, a penalty on a control): "
        f"'fully_supported' ×{safe} (force_aware), 'yes' ×{raised} (force_aware)",
    ]
    assert report["missing"] > 0  # the contract's null, on the headline rows


# --- the evaluate modules ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def modules() -> dict[str, Any]:
    evaluate = pytest.importorskip("evaluate", reason="evaluate is not installed: pip install -e .")
    return {
        "eviscope": evaluate.load(str(REPO / "metrics" / "eviscope_metric")),
        "forcebench": evaluate.load(str(REPO / "metrics" / "forcebench")),
    }


def messages(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, EviScopeWarning)]


def test_the_eviscope_module_warns_of_unknown_fields_and_of_another_config(built_dataset, lexical, modules):
    rows = load_rows("eviscope-v1", built_dataset)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        modules["eviscope"].compute(
            predictions=[{**p, "model": "x"} for p in lexical["eviscope-v1"]], references=rows
        )
    assert messages(caught) == [
        f"predictions: unknown field 'model' ignored (160 predictions, first on prediction 1); {EVISCOPE_FIELDS}"
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        modules["eviscope"].compute(predictions=lexical["eviscope-v1.1"], references=rows)
    [message] = messages(caught)
    assert message.startswith("predictions: ") and message.endswith(
        "cited doc ids and quotes are not in their rows' documents in the references; were they made "
        "for another config?"
    )


def test_the_forcebench_module_counts_labels_outside_the_set(built_dataset, modules):
    rows = read_rows(built_dataset)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = modules["forcebench"].compute(predictions=judged(rows), references=rows)
    safe, raised = stray_count(rows)
    assert messages(caught) == [
        f"predictions: {safe + raised} labels are outside their prompt's label set and score null (a "
        f"violation on a contrast, a penalty on a control): 'fully_supported' ×{safe} (force_aware), "
        f"'yes' ×{raised} (force_aware)"
    ]
    assert result["missing"] > 0


# --- the Space's /submit ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def submit(built_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    pytest.importorskip("gradio", reason="gradio is not installed (the Space): pip install -e '.[space]'")
    from eviscope.space.annotation import AnnotationStore
    from eviscope.space.data import RowSource
    from eviscope.space.leaderboard import LocalResultStore
    from eviscope.space.limits import Limits
    from eviscope.space.ui import build_demo

    results = tmp_path_factory.mktemp("results")
    unlimited = Limits(submissions=10**9, upload_bytes=2**62)
    demo = build_demo(
        RowSource(built_dataset), LocalResultStore(results), AnnotationStore(results / "a"), limits=unlimited
    )
    return next(fn.fn for fn in demo.fns.values() if fn.api_name == "submit")


def test_the_space_shows_each_warning_with_the_recorded_result(built_dataset, lexical, submit, tmp_path):
    path = write(tmp_path / "v11.jsonl", [{**p, "model": "x"} for p in lexical["eviscope-v1.1"]])
    status, _, _ = submit("eviscope-v1", "lexical on v1", str(path))
    assert status.startswith("Recorded")
    warned = [part for part in status.split("\n\n") if part.startswith("**Warning:**")]
    assert len(warned) == 2
    assert "unknown field 'model' ignored (160 predictions, first on line 1)" in warned[0]
    assert "in eviscope-v1; they fit eviscope-v1.1 (" in warned[1]
    rows = read_rows(built_dataset)
    path = write(tmp_path / "fb.jsonl", judged(rows))
    status, _, _ = submit("forcebench", "stray judge", str(path))
    safe, _ = stray_count(rows)
    [warned] = [part for part in status.split("\n\n") if part.startswith("**Warning:**")]
    assert "labels are outside their prompt" in warned and f"×{safe}" in warned
