"""Prediction schema and loading (contract §3): every bad input is one EviScopeError naming where."""

from __future__ import annotations

import json
import random

import pytest
from eviscope_fixtures import hand_predictions, hand_rows, write_jsonl

from eviscope.core.errors import EviScopeError, EviScopeWarning
from eviscope.suites.eviscope.predictions import MAX_NAMED_IDS, load_predictions


def test_predictions_are_aligned_with_rows_whatever_their_order(tmp_path):
    rows = hand_rows()
    shuffled = hand_predictions()
    random.Random(3).shuffle(shuffled)
    for source in (shuffled, write_jsonl(tmp_path / "p.jsonl", shuffled)):
        preds = load_predictions(source, rows)
        assert [p.id for p in preds] == [row["id"] for row in rows]


def test_jsonl_skips_blank_lines_and_ignores_extra_fields_with_one_warning_each(tmp_path):
    rows = hand_rows()
    lines = [json.dumps({**p, "raw_output": "…", "model": "x"}) for p in hand_predictions()]
    path = tmp_path / "p.jsonl"
    path.write_text("\n\n".join(lines) + "\n\n", encoding="utf-8")
    with pytest.warns(EviScopeWarning) as caught:
        preds = load_predictions(path, rows)
    assert preds[0].answer == "10" and preds[0].usage.prompt_tokens == 100
    assert [str(w.message) for w in caught] == [
        f"{path}: unknown field '{field}' ignored (16 predictions, first on line 1); "
        "the known fields are id, action, answer, citations, quotes, usage"
        for field in ("raw_output", "model")
    ]


def _misspell(pred: dict, typo: str) -> dict:
    """``pred`` with one field written as ``typo`` (``usage.prompt_token``: a usage field)."""
    pred = {**pred, "quotes": [{"doc_id": "d1", "text": "in 2010"}]}
    if typo == "usage.prompt_token":
        usage = dict(pred["usage"])
        pred["usage"] = {**usage, "prompt_token": usage.pop("prompt_tokens")}
        pred["usage"].pop("prompt_tokens", None)
    elif typo == "quotes.0.txt":
        pred["quotes"] = [{"doc_id": "d1", "txt": "in 2010"}]
    else:
        known = {"citation": "citations", "quote": "quotes", "actions": "action", "anwser": "answer"}[typo]
        pred[typo] = pred.pop(known)
    return pred


NEAR_MISSES = {
    "citation": "citations",
    "quote": "quotes",
    "actions": "action",
    "anwser": "answer",
    "usage.prompt_token": "usage.prompt_tokens",
    "quotes.0.txt": "quotes.0.text",
}


@pytest.mark.parametrize("typo", NEAR_MISSES)
def test_a_near_miss_of_a_known_field_is_an_error_naming_line_field_and_known_field(tmp_path, typo):
    # issue 35: `citation` scored joint success 0.544 -> 0.281 without a word
    preds = hand_predictions()
    preds[2] = _misspell(preds[0] | {"id": preds[2]["id"]}, typo)
    path = write_jsonl(tmp_path / "p.jsonl", preds)
    expected = f"unknown field '{typo}' — did you mean '{NEAR_MISSES[typo]}'?"
    with pytest.raises(EviScopeError) as err:
        load_predictions(path, hand_rows())
    assert str(err.value) == f"{path} line 3 (id {preds[2]['id']}): {expected}"
    with pytest.raises(EviScopeError) as err:
        load_predictions(preds, hand_rows())
    assert str(err.value) == f"predictions prediction 3 (id {preds[2]['id']}): {expected}"


def test_a_lookalike_beside_the_field_it_resembles_is_only_named_in_a_warning():
    preds = [{**p, "answer": p.get("answer"), "answers": ["gold"]} for p in hand_predictions()]
    with pytest.warns(
        EviScopeWarning, match="unknown field 'answers' ignored \\(16 predictions, first on prediction 1\\)"
    ):
        assert load_predictions(preds, hand_rows())[0].answer == "10"


def test_unparsable_prediction_is_kept_with_null_action():
    preds = load_predictions(hand_predictions(), hand_rows())
    assert preds[2].id == "q1-insufficient" and preds[2].action is None


def test_malformed_json_line_names_its_line_number(tmp_path):
    path = tmp_path / "p.jsonl"
    lines = [json.dumps(p) for p in hand_predictions()]
    lines[4] = lines[4][:-3]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(EviScopeError, match=r"p\.jsonl line 5: not valid JSON"):
        load_predictions(path, hand_rows())


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"action": "Answer"}, "action"),
        ({"citations": "sup2"}, "citations"),
        ({"citations": ["sup2", 7]}, "citations.1"),
        ({"quotes": [{"doc_id": "sup2"}]}, "quotes.0.text"),
        ({"usage": {"calls": -1}}, "usage.calls"),
        ({"answer": 2010}, "answer"),
    ],
)
def test_bad_field_names_the_line_id_and_field(tmp_path, change, field):
    preds = hand_predictions()
    preds[5] = {**preds[5], **change}
    path = write_jsonl(tmp_path / "p.jsonl", preds)
    with pytest.raises(EviScopeError) as err:
        load_predictions(path, hand_rows())
    message = str(err.value)
    assert f"line 6 (id {preds[5]['id']}): field `{field}`" in message
    assert "\n" not in message


def test_bad_object_names_its_position_and_id():
    preds = hand_predictions()
    preds[0] = {**preds[0], "action": "guess"}
    with pytest.raises(
        EviScopeError, match=r"prediction 1 \(id q1-sufficient\): field `action`: must be answer"
    ):
        load_predictions(preds, hand_rows())


def test_missing_action_field_is_an_error_not_a_null():
    preds = hand_predictions()
    del preds[3]["action"]
    with pytest.raises(EviScopeError, match=r"id q1-conflicting\): field `action`: Field required"):
        load_predictions(preds, hand_rows())


def test_unknown_duplicate_and_missing_ids_are_named_together():
    preds = hand_predictions()
    preds[1] = {**preds[1], "id": "q9-noisy"}
    preds.append(dict(preds[0]))
    with pytest.raises(EviScopeError) as err:
        load_predictions(preds, hand_rows())
    assert str(err.value) == (
        "predictions: ids do not match the 16 rows: 1 unknown ids (q9-noisy); "
        "1 duplicate ids (q1-sufficient); 1 missing ids (q1-noisy); give exactly one prediction per row id"
    )


def test_many_missing_ids_name_the_first_few_and_count_the_rest():
    with pytest.raises(EviScopeError) as err:
        load_predictions(hand_predictions()[:2], hand_rows())
    assert "14 missing ids (q1-insufficient, q1-conflicting, q2-sufficient" in str(err.value)
    assert f"+{14 - MAX_NAMED_IDS} more" in str(err.value)


def test_unreadable_file_is_an_error(tmp_path):
    with pytest.raises(EviScopeError, match="cannot read predictions"):
        load_predictions(tmp_path / "absent.jsonl", hand_rows())


def test_ids_whose_hashes_collide_are_still_joined_exactly(tmp_path, monkeypatch):
    # The join and the duplicate check match ids by hash first: with every hash equal, both fall back
    # to comparing the ids themselves and give the same predictions and the same errors.
    from eviscope.suites.eviscope import predictions as predictions_module

    rows = hand_rows()
    shuffled = hand_predictions()
    random.Random(5).shuffle(shuffled)
    path = write_jsonl(tmp_path / "p.jsonl", shuffled)
    expected = list(load_predictions(path, rows))
    monkeypatch.setattr(predictions_module, "hash", lambda text: 7, raising=False)
    for source in (shuffled, path):
        assert list(load_predictions(source, rows)) == expected
    with pytest.raises(EviScopeError, match=r"1 unknown ids \(q9-noisy\); 1 missing ids"):
        load_predictions([*shuffled[1:], {**shuffled[0], "id": "q9-noisy"}], rows)
    duplicated = write_jsonl(tmp_path / "d.jsonl", [*shuffled, shuffled[3]])
    with pytest.raises(
        EviScopeError, match=rf"line 17: duplicate id {shuffled[3]['id']} \(first on line 4\)"
    ):
        load_predictions(duplicated, rows)
