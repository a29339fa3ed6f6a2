"""contract §4 metrics on hand-built rows and predictions whose every value is computed by hand."""

from __future__ import annotations

import pytest
from eviscope_fixtures import HAND_SUCCESS, HAND_VALUES, hand_predictions, hand_rows

from eviscope.core.errors import EviScopeError
from eviscope.suites.eviscope.predictions import Prediction
from eviscope.suites.eviscope.rows import VARIANTS
from eviscope.suites.eviscope.scoring import (
    QUARTET_METRICS,
    ROW_METRICS,
    answer_ok,
    score,
    source_ok,
    success,
)


@pytest.fixture(scope="module")
def hand():
    return score(hand_rows(), hand_predictions())


def test_every_overall_metric_has_its_hand_computed_value(hand):
    # The hand rows show no irrelevant edit: the false-conflict rate is not applicable.
    assert set(hand.overall) == (set(ROW_METRICS) - {"false_conflict_rate"}) | set(QUARTET_METRICS)
    for name, value in HAND_VALUES.items():
        assert hand.overall[name] == pytest.approx(value, abs=1e-12), name


def test_per_variant_values_and_where_metrics_are_defined(hand):
    pv = hand.per_variant
    assert pv["sufficient"]["answer_accuracy"] == 0.5  # `10` is not `2010`; q3 abstained
    assert pv["noisy"]["source_accuracy"] == 0.5  # a noise citation and an empty citation list
    assert pv["noisy"]["unsupported_citation_rate"] == pytest.approx(1 / 3)
    assert pv["sufficient"]["span_precision"] == 1.0
    assert pv["noisy"]["span_precision"] == pytest.approx(1 / 3)  # a quote in the wrong document
    assert (pv["insufficient"]["abstention_precision"], pv["insufficient"]["abstention_recall"]) == (1.0, 0.5)
    assert pv["conflicting"]["conflict_accuracy"] == 0.5
    assert pv["conflicting"]["conflict_blind_answering"] == 0.25
    assert pv["sufficient"]["avg_prompt_tokens"] == 25.0 and pv["sufficient"]["avg_calls"] == 1.0
    assert pv["insufficient"]["utility_per_call"] == pv["insufficient"]["joint_success"]  # no usage
    assert "answer_accuracy" not in pv["insufficient"] and "answer_accuracy" not in pv["conflicting"]
    assert "abstention_recall" not in pv["sufficient"] and "conflict_accuracy" not in pv["noisy"]
    assert "hallucination_rate" not in pv["noisy"]
    assert all(name not in pv[v] for v in VARIANTS for name in QUARTET_METRICS)


def test_row_and_quartet_vectors(hand):
    vectors = hand.vectors()
    assert vectors["rows"]["success"] == HAND_SUCCESS
    assert vectors["rows"]["answer_ok"][:4] == [0, 1, 0, 1]  # the blind conflict answer is the gold one
    assert vectors["quartets"]["quartet_id"] == ["q1", "q2", "q3", "q4"]
    assert vectors["quartets"]["evidence_removal_sensitivity"] == [0, 1, 0, 1]
    assert vectors["quartets"]["noise_robustness"] == [0, 0, 0, 1]
    assert vectors["quartets"]["conflict_sensitivity"] == [0, 1, 0, 1]
    assert vectors["quartets"]["quartet_consistency"] == [0, 0, 0, 1]


def test_action_confusion_counts_null_actions(hand):
    assert hand.action_confusion()["insufficient"] == {
        "answer": 1,
        "abstain": 2,
        "flag_conflict": 0,
        "null": 1,
    }


ROW = {"answers": ["2010", "Denver Broncos"], "expected_action": "answer", "supporting_doc_ids": ["d1"]}


@pytest.mark.parametrize(
    ("answer", "ok"),
    [("10", False), ("2010", True), ("in 2010.", True), ("the Denver Broncos", True), ("Denver", False)],
)
def test_answer_matches_aliases_on_token_boundaries(answer, ok):
    assert answer_ok(ROW, Prediction(id="x", action="answer", answer=answer)) is ok


def test_answer_ok_needs_the_answer_action():
    assert not answer_ok(ROW, Prediction(id="x", action="flag_conflict", answer="2010"))


@pytest.mark.parametrize(
    ("citations", "ok"), [([], False), (None, False), (["d2"], False), (["d2", "d1"], True)]
)
def test_source_ok_needs_one_supporting_citation(citations, ok):
    assert source_ok(ROW, Prediction(id="x", action="answer", citations=citations)) is ok


def test_success_of_non_answer_rows_is_the_expected_action():
    row = {**ROW, "expected_action": "abstain", "supporting_doc_ids": []}
    assert success(row, Prediction(id="x", action="abstain"))
    assert not success(row, Prediction(id="x", action=None))
    assert not success(row, Prediction(id="x", action="flag_conflict"))


def test_null_actions_are_wrong_everywhere():
    rows = hand_rows()
    result = score(rows, [{"id": row["id"], "action": None} for row in rows])
    assert result.overall["joint_success"] == 0.0
    assert result.overall["hallucination_rate"] == 0.0
    assert result.overall["abstention_recall"] == 0.0 and result.overall["abstention_precision"] == 0.0
    assert result.overall["unsupported_citation_rate"] == 0.0  # no citations at all
    assert all(result.overall[name] == 0.0 for name in QUARTET_METRICS)


def test_without_usage_the_utility_is_the_joint_success():
    rows = hand_rows()
    preds = [{k: v for k, v in p.items() if k != "usage"} for p in hand_predictions()]
    result = score(rows, preds)
    assert result.overall["total_cost_usd"] == 0.0 and result.overall["avg_calls"] == 0.0
    assert result.overall["utility_per_call"] == result.overall["joint_success"] == 0.5


def test_incomplete_quartets_are_named():
    rows = [row for row in hand_rows() if row["id"] != "q3-noisy"]
    preds = [p for p in hand_predictions() if p["id"] != "q3-noisy"]
    with pytest.raises(EviScopeError, match=r"1 incomplete quartets: q3 \(no noisy\)"):
        score(rows, preds)


def test_a_row_with_an_unknown_variant_is_named():
    rows = hand_rows()
    rows[5] = {**rows[5], "variant": "noisier"}
    with pytest.raises(EviScopeError, match=r"row q2-noisy: field `variant` is 'noisier'"):
        score(rows, hand_predictions())


def test_the_metric_table_orders_every_metric_scoring_reports() -> None:
    from eviscope.core.metrics import names
    from eviscope.suites.eviscope.metrics import METRICS
    from eviscope.suites.eviscope.scoring import QUARTET_METRICS, ROW_METRICS

    assert list(QUARTET_METRICS) == list(names(METRICS, level="quartet"))
    assert names(METRICS, level="row") == ROW_METRICS
    assert len({m.name for m in METRICS}) == len(METRICS)


def _near_duplicates(kinds: dict[str, str]) -> list[dict]:
    """The hand rows, each variant's rows with the ``near_duplicate`` of ``kinds``."""
    return [{**row, "near_duplicate": kinds[row["variant"]]} for row in hand_rows()]


def test_false_conflict_rate_is_the_share_of_irrelevant_edits_flagged():
    # xl's noise: a copy of the support in which a value the question does not ask for was changed.
    rows = _near_duplicates(
        {
            "sufficient": "none",
            "noisy": "irrelevant_edit",
            "insufficient": "mirror",
            "conflicting": "conflict",
        }
    )
    preds = [
        {**p, "action": "flag_conflict"} if p["id"] in ("q1-noisy", "q3-insufficient") else p
        for p in hand_predictions()
    ]
    result = score(rows, preds)
    # Over the four noisy rows only: q1's is flagged; the flagged insufficient row is no irrelevant edit.
    assert result.overall["false_conflict_rate"] == 0.25
    assert result.per_variant["noisy"]["false_conflict_rate"] == 0.25
    assert "false_conflict_rate" not in result.per_variant["insufficient"]


@pytest.mark.parametrize("kinds", [None, dict.fromkeys(("sufficient", "noisy", "insufficient"), "mirror")])
def test_false_conflict_rate_is_not_applicable_without_irrelevant_edits(kinds):
    # No near_duplicate field, or no row of that kind: left out (the tables show —), never 0.
    if kinds is None:
        rows = [{k: v for k, v in row.items() if k != "near_duplicate"} for row in hand_rows()]
    else:
        rows = _near_duplicates({**kinds, "conflicting": "conflict"})
    flag_all = [{"id": row["id"], "action": "flag_conflict"} for row in rows]
    assert "false_conflict_rate" not in score(rows, flag_all).overall


def test_an_unknown_near_duplicate_kind_is_named():
    from eviscope.suites.eviscope.predictions import check_rows

    rows = _near_duplicates(dict.fromkeys(("sufficient", "noisy", "insufficient", "conflicting"), "none"))
    rows[1]["near_duplicate"] = "irrelevant edit"
    with pytest.raises(EviScopeError, match=r"row 2 \(id q1-noisy\).*near_duplicate"):
        check_rows(rows)


def test_the_leaderboard_shows_the_false_conflict_rate_where_it_is_defined():
    import math

    from eviscope.space.leaderboard import leaderboard_table

    edited = _near_duplicates(
        {"sufficient": "none", "noisy": "irrelevant_edit", "insufficient": "none", "conflicting": "conflict"}
    )
    preds = hand_predictions()
    records = [
        {
            "id": "1",
            "system": "no-edits",
            "submitted_at": "t1",
            "result": score(hand_rows(), preds).to_dict(),
        },
        {"id": "2", "system": "edits", "submitted_at": "t2", "result": score(edited, preds).to_dict()},
    ]
    table = leaderboard_table("eviscope-v1.1", records, sort_by="false conflicts")
    by_system = dict(zip(table["system"], table["false conflicts"], strict=True))
    assert by_system["edits"] == 0.0  # no noisy row of the hand predictions flags a conflict
    assert math.isnan(by_system["no-edits"])  # not applicable: an empty cell, the line still shown
    assert list(table["system"]) == ["edits", "no-edits"]  # lower is better


def test_two_rows_of_one_variant_in_a_quartet_are_named():
    rows = hand_rows()
    rows[5] = {**rows[5], "id": "q2-noisy-again", "variant": "sufficient"}
    preds = [{**p, "id": "q2-noisy-again"} if p["id"] == "q2-noisy" else p for p in hand_predictions()]
    with pytest.raises(
        EviScopeError, match=r"quartet q2 has two sufficient rows \(q2-sufficient, q2-noisy-again\)"
    ):
        score(rows, preds)


def test_counts_past_one_byte_widen_their_vectors():
    # counts are held in one byte a row until a count passes 255
    plain = score(hand_rows(), hand_predictions())
    preds = hand_predictions()
    preds[0] = {**preds[0], "citations": ["sup1"] + [f"x{k}" for k in range(299)]}
    wide = score(hand_rows(), preds)
    assert plain.rows.citations.dtype == "uint8" and wide.rows.citations.dtype == "uint16"
    assert (wide.rows.citations[0], wide.rows.unsupported_citations[0]) == (300, 299)
    assert wide.rows.citations[1:].tolist() == plain.rows.citations[1:].tolist()
    answered = (plain.rows.expected == 0) & (plain.rows.action == 0)
    unsupported = int(plain.rows.unsupported_citations[answered].sum()) + 299
    cited = int(plain.rows.citations[answered].sum()) + 299
    assert wide.overall["unsupported_citation_rate"] == unsupported / cited
