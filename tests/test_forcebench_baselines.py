"""The evidence-blind ForceBench baselines on hand-built pairs: what each prefers, and the claim-only
classifier's half split."""

from __future__ import annotations

from forcebench_fixtures import make_row

from eviscope.suites.forcebench.baselines import (
    EVIDENCE_BLIND,
    FORCE_WORDS,
    PAIR_BASELINES,
    baseline_predictions,
    classifier_predictions,
    copy_detector,
    edit_direction,
    fewer_force_words,
    shorter_claim,
)
from eviscope.suites.forcebench.scoring import score_units, units_from_predictions


def test_the_blind_scorers_never_read_the_evidence() -> None:
    assert shorter_claim("anything", "Coffee may reduce fatigue.") == -4.0
    assert shorter_claim("", "Coffee may reduce fatigue.") == -4.0
    assert {"will", "all", "causes", "must", "always"} <= FORCE_WORDS
    assert fewer_force_words("", "All patients will always recover.") == -3.0
    assert fewer_force_words("All patients will always recover.", "Some patients may recover.") == 0.0


def test_prefer_fewer_force_words_wins_contrasts_and_loses_controls() -> None:
    contrast = make_row("fb-c", "modality", "Coffee may reduce fatigue.", "Coffee will reduce fatigue.")
    control = make_row(
        "fb-l", "modality", "Coffee may reduce fatigue.", "Coffee will reduce fatigue.", pair_type="licensed"
    )
    numeric = make_row("fb-n", "numeric", "It costs about 40 dollars.", "It costs 40 dollars.")
    rows = [contrast, control, numeric]
    result = score_units(units_from_predictions(rows, baseline_predictions(rows)))["per_evaluator"]
    fewer = result["baseline/fewer_force_words"]
    # contrast: will is a force word -> right; numeric: no force word either side -> tie, a violation
    assert (fewer["mvr"], fewer["lpr"], fewer["cpa"]) == (0.5, 1.0, 0.25)
    shorter = result["baseline/shorter_claim"]
    # same length on modality (a tie: violation on the contrast, no penalty on the control); the raised
    # numeric claim is shorter, so it is preferred: a violation
    assert (shorter["mvr"], shorter["lpr"], shorter["cpa"]) == (1.0, 0.0, 0.5)


def test_the_classifier_runs_on_a_sample_with_an_axis_of_one_pair() -> None:
    # a seeded subset of the eval split (scripts/forcebench_sample.py) can hold one relation contrast
    # pair; stratifying on it raised sklearn's ValueError instead of scoring the sample
    rows = [
        make_row(f"fb-{i:02d}", "modality", f"Drug {i} may help.", f"Drug {i} will help.", pair_type=kind)
        for i, kind in enumerate(["contrast", "licensed"] * 5)
    ]
    rows.append(make_row("fb-rel", "relation", "Salt is linked to strokes.", "Salt causes strokes."))
    predictions, report = classifier_predictions(rows, seed=3)
    assert report["test"] == 11 and sorted(p["id"] for p in predictions) == sorted(r["id"] for r in rows)


def test_the_classifier_predicts_every_row_once_by_a_model_that_never_saw_it() -> None:
    rows = []
    for i in range(20):
        kind = "licensed" if i % 2 else "contrast"
        rows.append(
            make_row(
                f"fb-{i:02d}",
                "modality",
                f"Drug d{i:02d} may help.",
                f"Drug d{i:02d} will help.",
                pair_type=kind,
            )
        )
    predictions, report = classifier_predictions(rows, seed=3)
    assert (report["folds"], report["test"]) == (5, 20)
    assert sorted(p["id"] for p in predictions) == sorted(report["ids"]) == sorted(r["id"] for r in rows)
    assert report["chance"] == 0.5
    # only the drug's name tells the rows apart: a model that had seen a row would read its pair type
    # off it; a fold's rows (two of each kind, stratified) differ only in names its model never saw,
    # so one guess covers the fold, right on half of it
    assert report["accuracy"] == 0.5
    assert {p["score_raised"] for p in predictions} <= {0.0, 1.0}
    assert classifier_predictions(rows, seed=3) == (predictions, report)


def test_the_classifier_runs_with_one_control() -> None:
    rows = [
        make_row(f"fb-{i:02d}", "modality", f"Drug {i} may help.", f"Drug {i} will help.", pair_type=kind)
        for i, kind in enumerate(["contrast"] * 6 + ["licensed"])
    ]
    predictions, report = classifier_predictions(rows)
    assert report["folds"] == 2 and len(predictions) == report["test"] == 7
    # the control's fold was fitted on contrast pairs only, so it is called a contrast
    assert next(p for p in predictions if p["id"] == "fb-06")["score_raised"] == 0.0


def test_the_copy_detector_prefers_whichever_claim_stands_in_the_evidence() -> None:
    evidence = "Background sentence. Coffee may reduce fatigue in adults. Closing sentence."
    assert copy_detector(evidence, "Coffee may reduce fatigue in adults.") == 1.0  # word for word
    assert copy_detector(evidence, "coffee MAY reduce fatigue, in adults") == 1.0  # contract §1 tokens
    # not a copy: half its word overlap (5 of its 6 words are in the evidence)
    assert copy_detector(evidence, "Coffee will reduce fatigue in adults.") == 0.5 * 5 / 6
    # a control whose stronger claim is the evidence's own sentence: the copy wins, as on a contrast
    control = make_row(
        "fb-l", "modality", "Coffee may reduce fatigue.", "Coffee will reduce fatigue.", pair_type="licensed"
    )
    control["evidence"] = "Coffee will reduce fatigue."
    contrast = make_row("fb-c", "modality", "Coffee may reduce fatigue.", "Coffee will reduce fatigue.")
    rows = [contrast, control]
    preds = baseline_predictions(rows, ["copy_detector"])
    copy = score_units(units_from_predictions(rows, preds))["per_evaluator"]["baseline/copy_detector"]
    assert (copy["mvr"], copy["lpr"], copy["cpa"]) == (0.0, 0.0, 1.0)


def test_edit_direction_prefers_the_weaker_side_of_the_edit_without_the_evidence() -> None:
    assert edit_direction("", "Coffee may reduce fatigue.", "Coffee will reduce fatigue.") == (1.0, 0.0)
    assert edit_direction("", "It costs about 40 dollars.", "It costs 40 dollars.") == (
        1.0,
        0.0,
    )  # limiter dropped
    assert edit_direction("", "Coffee will help.", "Coffee may help.") == (0.0, 1.0)
    assert edit_direction("", "The river is wide.", "The river is long.") == (0.5, 0.5)  # no known direction
    contrast = make_row("fb-c", "modality", "Coffee may reduce fatigue.", "Coffee will reduce fatigue.")
    control = {**contrast, "id": "fb-l", "pair_type": "licensed", "evidence": "Rivers flow east."}
    rows = [contrast, control]
    direction = score_units(units_from_predictions(rows, baseline_predictions(rows, ["edit_direction"])))
    result = direction["per_evaluator"]["baseline/edit_direction"]
    # the evidence differs and the scores do not: right on the contrast, penalises the licensed claim
    assert (result["mvr"], result["lpr"], result["cpa"]) == (0.0, 1.0, 0.5)
    assert "edit_direction" in EVIDENCE_BLIND and "edit_direction" in PAIR_BASELINES


def test_every_baseline_is_in_the_default_run() -> None:
    rows = [make_row("fb-c", "modality", "Coffee may reduce fatigue.", "Coffee will reduce fatigue.")]
    evaluators = {p["evaluator"] for p in baseline_predictions(rows)}
    assert {"baseline/copy_detector", "baseline/edit_direction", "baseline/token_overlap"} <= evaluators
    assert "baseline/entity_overlap" in evaluators
