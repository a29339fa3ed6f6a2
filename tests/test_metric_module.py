"""The `evaluate` module metrics/eviscope_metric: a thin face that reproduces the library to the last digit."""

from __future__ import annotations

import doctest
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import evaluate
import pytest
from eviscope_fixtures import HAND_SUCCESS, HAND_VALUES, hand_predictions, hand_rows
from module_files import load_file

from eviscope.core.errors import EviScopeError
from eviscope.suites.eviscope.scoring import score

REPO = Path(__file__).resolve().parents[1]
MODULE_DIR = REPO / "metrics" / "eviscope_metric"


@pytest.fixture(scope="module")
def module():
    return evaluate.load(str(MODULE_DIR))


def test_compute_equals_the_library_exactly(module):
    rows, preds = hand_rows(), hand_predictions()
    results = module.compute(predictions=preds, references=rows)
    assert results == score(rows, preds).to_dict()
    assert {k: results[k] for k in HAND_VALUES} == pytest.approx(HAND_VALUES, abs=1e-12)
    assert results["n_rows"] == 16 and results["n_quartets"] == 4


def test_prediction_order_and_batching_do_not_matter(module):
    rows, preds = hand_rows(), hand_predictions()
    expected = module.compute(predictions=preds, references=rows)
    random.Random(1).shuffle(preds)
    module.add_batch(predictions=preds[:9], references=rows[:9])
    module.add_batch(predictions=preds[9:], references=rows[9:])
    assert module.compute() == expected


def test_return_vectors(module):
    results = module.compute(predictions=hand_predictions(), references=hand_rows(), return_vectors=True)
    assert results["vectors"]["rows"]["success"] == HAND_SUCCESS
    assert results["vectors"]["quartets"]["quartet_consistency"] == [0, 0, 0, 1]


def test_bad_prediction_raises_the_library_error(module):
    preds = hand_predictions()
    preds[3]["action"] = "refuse"
    with pytest.raises(EviScopeError, match=r"id q1-conflicting\): field `action`"):
        module.compute(predictions=preds, references=hand_rows())


def test_card_front_matter_and_space_files():
    card = (MODULE_DIR / "README.md").read_text()
    front = card.split("---")[1]
    for line in ("sdk: gradio", "app_file: app.py", "- evaluate", "- metric"):
        assert line in front
    assert "import gradio" not in (MODULE_DIR / "eviscope_metric.py").read_text()
    app = (MODULE_DIR / "app.py").read_text()
    assert "build_widget" in app and "launch_gradio_widget" not in app  # evaluate 0.4.6's calls gr.inputs
    assert 'with_name("eviscope_metric.py")' in app  # found beside app.py, whatever the folder's name


def test_doctested_example(monkeypatch):
    monkeypatch.chdir(REPO)
    source = load_file(MODULE_DIR / "eviscope_metric.py", "eviscope_metric_doc")
    test = doctest.DocTestParser().get_doctest(source._KWARGS_DESCRIPTION, {}, "eviscope", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 10


def test_loads_offline_from_another_folder(tmp_path):
    code = (
        "import evaluate, json, sys; m = evaluate.load(sys.argv[1]); "
        "print(json.dumps(m.compute(predictions=json.loads(sys.argv[2]), references=json.loads(sys.argv[3]))))"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code, str(MODULE_DIR), json.dumps(hand_predictions()), json.dumps(hand_rows())],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    assert json.loads(done.stdout.strip().splitlines()[-1])["quartet_consistency"] == 0.25


def test_compute_validates_each_prediction_once(module, monkeypatch):
    import eviscope.suites.eviscope.predictions as predictions

    calls = []

    class Counting:
        def __init__(self, validator):
            self.validator = validator

        def validate_python(self, obj, **options):
            calls.append(obj["id"])
            return self.validator.validate_python(obj, **options)

    rows, preds = hand_rows(), hand_predictions()
    expected = score(rows, preds).to_dict()
    monkeypatch.setattr(predictions, "_VALIDATOR", Counting(predictions._VALIDATOR))
    assert module.compute(predictions=preds, references=rows) == expected
    assert sorted(calls) == sorted(p["id"] for p in preds)
