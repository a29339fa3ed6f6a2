"""MVR and FS (contract §6): ties, missing scores, label mappings, pooling and the joins by id."""

from __future__ import annotations

import json

import pytest

from eviscope.core.errors import EviScopeError
from eviscope.suites.forcebench.scoring import (
    ForcePrediction,
    Unit,
    label_score,
    read_predictions,
    score_units,
    units_from_predictions,
)

ROWS = [
    {"id": "fb-1", "axis": "relation", "severity": 1},
    {"id": "fb-2", "axis": "modality", "severity": 2},
    {"id": "fb-3", "axis": "modality", "severity": 2},
    {"id": "fb-4", "axis": "numeric", "severity": 3},
]


def test_ties_and_missing_scores_are_violations_and_reversals_count_their_margin() -> None:
    units = [
        Unit("fb-1", "e", "relation", 1, 1.0, 0.0),  # ordered: margin 1
        Unit("fb-2", "e", "modality", 2, 0.5, 0.5),  # tie: violation, margin 0
        Unit("fb-3", "e", "modality", 2, None, 0.0),  # missing: violation, margin 0
        Unit("fb-4", "e", "numeric", 3, 0.2, 0.8),  # reversed: violation, margin -0.6
    ]
    result = score_units(units)
    assert result["mvr"] == pytest.approx(3 / 4)
    assert result["fs"] == pytest.approx((1.0 + 0 + 0 - 0.6) / 4)
    assert (result["violations"], result["missing"], result["n"]) == (3, 1, 4)
    assert result["per_axis"]["modality"]["mvr"] == 1.0
    assert result["per_axis"]["relation"] == {
        "mvr": 0.0,
        "fs": 1.0,
        "lpr": None,
        "cpa": None,
        "n": 1,
        "n_licensed": 0,
        "violations": 0,
        "penalties": 0,
        "missing": 0,
    }
    assert result["per_axis"]["scope"]["mvr"] is None
    assert result["per_severity"]["3"]["fs"] == pytest.approx(-0.6)


def test_lpr_counts_a_warranted_stronger_claim_scored_lower_and_cpa_balances_both_kinds() -> None:
    units = [
        Unit("fb-1", "e", "relation", 1, 1.0, 0.0),  # contrast, right
        Unit("fb-2", "e", "modality", 2, 1.0, 1.0),  # contrast, tie: violation
        Unit("c-1", "e", "scope", 2, 1.0, 1.0, "licensed"),  # control, tie: right (s_strong >= s_weak)
        Unit("c-2", "e", "scope", 2, 1.0, 0.0, "licensed"),  # control, strong penalised
        Unit("c-3", "e", "numeric", 2, 0.5, 0.75, "licensed"),  # control, right
        Unit("c-4", "e", "numeric", 2, None, 1.0, "licensed"),  # control, missing: penalty
    ]
    result = score_units(units)
    # MVR and FS on the two contrasts only; LPR 2/4; CPA = 1/2 (1 - 1/2) + 1/2 (1 - 2/4)
    assert (result["mvr"], result["fs"], result["n"]) == (0.5, 0.5, 2)
    assert (result["lpr"], result["penalties"], result["n_licensed"]) == (0.5, 2, 4)
    assert result["cpa"] == 0.5
    assert result["per_axis"]["scope"]["lpr"] == 0.5 and result["per_axis"]["scope"]["cpa"] is None


def test_an_evaluator_that_prefers_the_weaker_claim_gets_cpa_one_half() -> None:
    weaker = [
        Unit(f"x-{i}", "e", "modality", 2, 1.0, 0.0, kind)
        for i, kind in enumerate(["contrast", "licensed"] * 3)
    ]
    oracle = [
        Unit(u.id, "o", u.axis, u.severity, 1.0, 0.0 if u.pair_type == "contrast" else 1.0, u.pair_type)
        for u in weaker
    ]
    assert (score_units(weaker)["mvr"], score_units(weaker)["lpr"], score_units(weaker)["cpa"]) == (
        0.0,
        1.0,
        0.5,
    )
    assert score_units(oracle)["cpa"] == 1.0


def test_a_row_with_an_unknown_pair_type_names_row_and_field() -> None:
    rows = [{**ROWS[0], "pair_type": "control"}]
    with pytest.raises(
        EviScopeError, match=r"row 1 \(id fb-1\).*'pair_type' \"control\" is not one of contrast, licensed"
    ):
        units_from_predictions(rows, [])


def test_label_mappings_of_both_prompt_families() -> None:
    assert [label_score("generic", x) for x in ("fully_supported", "partially_supported", "irrelevant")] == [
        1.0,
        0.5,
        0.0,
    ]
    assert [label_score("force_aware", x) for x in ("force_calibrated", "force_gap", "contradicted")] == [
        1.0,
        0.0,
        0.0,
    ]
    assert label_score("dummy_axis", "force_calibrated") == 1.0
    assert label_score("generic", "force_calibrated") is None
    assert label_score("axis_free", None) is None


def test_judges_pool_their_units_and_out_of_set_labels_count_as_missing() -> None:
    judge_a = [
        {
            "id": r["id"],
            "evaluator": "a",
            "prompt": "generic",
            "label_safe": "fully_supported",
            "label_raised": "partially_supported",
        }
        for r in ROWS
    ]
    judge_b = [
        {
            "id": r["id"],
            "evaluator": "b",
            "prompt": "force_aware",
            "label_safe": "force_calibrated",
            "label_raised": "fully_supported" if r["id"] == "fb-1" else "force_calibrated",
        }
        for r in ROWS
    ]
    result = score_units(units_from_predictions(ROWS, judge_a + judge_b))
    assert result["per_evaluator"]["a"]["mvr"] == 0.0
    assert result["per_evaluator"]["a"]["fs"] == pytest.approx(0.5)
    # b ties on three pairs and gives an out-of-set label on the fourth: four violations, one missing
    assert result["per_evaluator"]["b"]["mvr"] == 1.0
    assert result["per_evaluator"]["b"]["missing"] == 1
    assert result["mvr"] == pytest.approx(4 / 8)
    assert result["fs"] == pytest.approx(2.0 / 8)
    assert result["n"] == 8


def test_a_score_that_disagrees_with_its_label_is_an_error() -> None:
    pred = ForcePrediction(
        id="fb-1",
        evaluator="j",
        prompt="force_aware",
        label_safe="force_gap",
        label_raised="force_gap",
        score_safe=1.0,
        score_raised=0.0,
    )
    with pytest.raises(EviScopeError, match=r"score_safe=1\.0 disagrees"):
        pred.scores()


@pytest.mark.parametrize(
    ("predictions", "message"),
    [
        ([{"id": "fb-9", "evaluator": "e", "score_safe": 1, "score_raised": 0}], "fb-9"),
        ([{"id": r["id"], "evaluator": "e", "score_safe": 1, "score_raised": 0} for r in ROWS[:3]], "fb-4"),
        ([{"id": "fb-1", "evaluator": "e", "score_safe": 1, "score_raised": 0}] * 2, "duplicate .*fb-1"),
        ([{"id": "fb-1", "evaluator": "e", "prompt": "chatty"}], "prompt"),
    ],
)
def test_bad_prediction_sets_name_the_ids(predictions: list[dict], message: str) -> None:
    with pytest.raises(EviScopeError, match=message):
        units_from_predictions(ROWS, predictions)


def test_read_predictions_names_the_bad_line(tmp_path) -> None:
    path = tmp_path / "preds.jsonl"
    path.write_text(json.dumps({"id": "fb-1", "evaluator": "e", "score_safe": 1.0}) + "\n{oops\n")
    with pytest.raises(EviScopeError, match=r"preds.jsonl:2"):
        read_predictions(path)
    path.write_text(json.dumps({"id": "fb-1", "evaluator": "e", "score_safe": "high"}) + "\n")
    with pytest.raises(EviScopeError, match=r"preds.jsonl:1: field 'score_safe'"):
        read_predictions(path)


def test_the_harness_metrics_are_on_the_eval_split_as_eviscope_score_gives_them() -> None:
    from forcebench_fixtures import sample_rows

    from eviscope.suites.forcebench import harness
    from eviscope.suites.forcebench.scoring import score_predictions

    rows = [{**row, "split": "eval" if n % 3 else "pool"} for n, row in enumerate(sample_rows())]
    # the judge gets every eval pair right and every pool pair wrong (a tie)
    items = [
        harness.forcebench_item(
            row,
            which,
            "generic",
            "partially_supported" if (which, row["split"]) == ("raised", "eval") else "fully_supported",
        )
        for row in rows
        for which in ("safe", "raised")
    ]
    assert (harness.forcebench_metric("mvr", items), harness.forcebench_metric("fs", items)) == (0.0, 0.5)
    expected = score_predictions(rows, harness.forcebench_predictions(items))
    assert (expected["split"], expected["set_aside"], expected["mvr"]) == ("eval", 4, 0.0)
    assert expected["all_rows"]["mvr"] == 0.4
