"""The drafting patterns and the locality lints on hand-built pairs."""

from __future__ import annotations

import pytest
from forcebench_fixtures import PAIRS, make_row, sample_rows

from eviscope.forcebench.lints import failed_lints
from eviscope.forcebench.patterns import find_edits, raising_axes


@pytest.mark.parametrize(("axis", "calibrated", "raised"), PAIRS)
def test_each_axis_pattern_drafts_the_expected_raise(axis: str, calibrated: str, raised: str) -> None:
    assert raised in [edit.raised for edit in find_edits(calibrated, axis)]
    assert raising_axes(calibrated, raised) == {axis}


def test_hand_built_pairs_pass_every_lint() -> None:
    assert {row["id"]: failed_lints(row) for row in sample_rows()} == {row["id"]: [] for row in sample_rows()}


def test_negated_limiters_are_not_raised() -> None:
    assert list(find_edits("Smoking does not contribute to hearing loss in adults.", "relation")) == []
    assert list(find_edits("The drug may not reduce pain in most adults.", "modality")) == []


@pytest.mark.parametrize(
    ("calibrated", "raised", "axis", "failing"),
    [
        # a new entity comes in with the raise
        (
            "Coffee may reduce fatigue in shift workers.",
            "Coffee will reduce fatigue in Ohio workers.",
            "modality",
            ["single_edit", "same_entities_numbers", "one_axis"],
        ),
        # two separate edits
        (
            "Coffee may reduce fatigue in many workers.",
            "Coffee will reduce fatigue in all workers.",
            "modality",
            ["single_edit", "one_axis"],
        ),
        # a raise on another axis than the row says
        (
            "Coffee may reduce fatigue in shift workers.",
            "Coffee will reduce fatigue in shift workers.",
            "scope",
            ["one_axis"],
        ),
        # no change at all
        (
            "Coffee may reduce fatigue in shift workers.",
            "Coffee may reduce fatigue in shift workers!",
            "modality",
            ["distinct", "single_edit", "one_axis"],
        ),
        # a number that is not in the calibrated claim
        (
            "About 300 people attended the Paris event.",
            "About 400 people attended the Paris event.",
            "numeric",
            ["same_entities_numbers", "one_axis"],
        ),
    ],
)
def test_nonlocal_pairs_fail_the_right_lints(
    calibrated: str, raised: str, axis: str, failing: list[str]
) -> None:
    assert failed_lints(make_row("fb-x", axis, calibrated, raised)) == failing


def test_a_span_outside_the_evidence_or_a_claim_beyond_the_span_fails() -> None:
    row = make_row("fb-x", "modality", "Coffee may reduce fatigue.", "Coffee will reduce fatigue.")
    assert failed_lints({**row, "evidence_span": "Coffee might reduce fatigue."}) == [
        "span_in_evidence",
        "warranted",
    ]
    assert failed_lints({**row, "calibrated_claim": "Coffee may reduce fatigue and stress."}) == [
        "warranted",
        "single_edit",
        "one_axis",
    ]
