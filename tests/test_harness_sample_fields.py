"""Predictions read from a harness log are as strict as a predictions file: a reply whose object
holds a near miss of a prediction field (``citation``) is one error line naming the log, the row and
the field, as ``eviscope score`` names it, instead of a reply read as citing nothing (issue 35)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eviscope.cli import main
from eviscope.core.errors import EviScopeError
from eviscope.suites.eviscope.predictions import load_predictions

ROW = {"id": "q01-noisy", "quartet_id": "q01"}


def samples_log(path: Path, reply: dict) -> Path:
    """An lm-eval ``--log_samples`` file of one EviScope request answered with ``reply``."""
    sample = {"doc_id": 0, "doc": ROW, "filtered_resps": [json.dumps(reply)]}
    path.write_text(json.dumps(sample) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("reply", "field", "known"),
    [
        ({"action": "answer", "answer": "1066", "citation": ["doc-1"]}, "citation", "citations"),
        (
            {"action": "answer", "quotes": [{"doc_id": "doc-1", "txt": "In 1066."}]},
            "quotes.0.txt",
            "quotes.0.text",
        ),
    ],
)
def test_a_near_miss_in_a_logged_reply_is_the_error_eviscope_score_gives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reply: dict, field: str, known: str
) -> None:
    log = samples_log(tmp_path / "samples_eviscope_v1_1_x.jsonl", reply)
    out = tmp_path / "predictions.jsonl"
    assert main(["tasks", "predictions", str(log), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    said = f"unknown field '{field}' — did you mean '{known}'?"
    assert err.endswith(f"samples_eviscope_v1_1_x.jsonl: the reply to row q01-noisy: {said}")
    assert "\n" not in err and not out.exists()

    # the same object in a list of predictions: the same words from the reader of `eviscope score`
    with pytest.raises(EviScopeError) as raised:
        load_predictions([{"id": ROW["id"], **reply}], [ROW])
    assert str(raised.value).endswith(said)


def test_a_logged_reply_with_the_known_fields_and_others_is_read(tmp_path: Path) -> None:
    """A field that is no near miss (a model's reasoning) is not an error: the reply is read as before."""
    reply = {"action": "answer", "answer": "1066", "citations": ["doc-1"], "reasoning": "the text says so"}
    log = samples_log(tmp_path / "samples_eviscope_v1_1_x.jsonl", reply)
    out = tmp_path / "predictions.jsonl"
    assert main(["tasks", "predictions", str(log), "--out", str(out)]) == 0
    [prediction] = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert prediction == {
        "id": "q01-noisy",
        "action": "answer",
        "answer": "1066",
        "citations": ["doc-1"],
        "quotes": [],
    }
