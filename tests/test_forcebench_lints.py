"""The drafting patterns and the locality lints on hand-built pairs."""

from __future__ import annotations

import pytest
from forcebench_fixtures import PAIRS, make_row, sample_rows

from eviscope.suites.forcebench.lints import failed_lints
from eviscope.suites.forcebench.patterns import find_edits, raising_axes


@pytest.mark.parametrize(("axis", "calibrated", "raised"), PAIRS)
def test_each_axis_pattern_drafts_the_expected_raise(axis: str, calibrated: str, raised: str) -> None:
    assert raised in [edit.raised for edit in find_edits(calibrated, axis)]
    assert raising_axes(calibrated, raised) == {axis}


def test_hand_built_pairs_pass_every_lint() -> None:
    assert {row["id"]: failed_lints(row) for row in sample_rows()} == {row["id"]: [] for row in sample_rows()}


def test_negated_limiters_are_not_raised() -> None:
    assert list(find_edits("Smoking does not contribute to hearing loss in adults.", "relation")) == []
    assert list(find_edits("The drug may not reduce pain in most adults.", "modality")) == []


_NO_EDIT = ["span_licenses_marker", "marker_window", "raised_not_licensed"]


@pytest.mark.parametrize(
    ("calibrated", "raised", "axis", "failing"),
    [
        # a new entity comes in with the raise
        (
            "Coffee may reduce fatigue in shift workers.",
            "Coffee will reduce fatigue in Ohio workers.",
            "modality",
            [*_NO_EDIT, "single_edit", "same_entities_numbers", "one_axis"],
        ),
        # two separate edits
        (
            "Coffee may reduce fatigue in many workers.",
            "Coffee will reduce fatigue in all workers.",
            "modality",
            [*_NO_EDIT, "single_edit", "one_axis"],
        ),
        # a raise on another axis than the row says
        (
            "Coffee may reduce fatigue in shift workers.",
            "Coffee will reduce fatigue in shift workers.",
            "scope",
            ["span_licenses_marker", "raised_not_licensed", "one_axis"],
        ),
        # no change at all
        (
            "Coffee may reduce fatigue in shift workers.",
            "Coffee may reduce fatigue in shift workers!",
            "modality",
            ["distinct", *_NO_EDIT, "single_edit", "one_axis"],
        ),
        # a number that is not in the calibrated claim
        (
            "About 300 people attended the Paris event.",
            "About 400 people attended the Paris event.",
            "numeric",
            [*_NO_EDIT, "same_entities_numbers", "one_axis"],
        ),
    ],
)
def test_nonlocal_pairs_fail_the_right_lints(
    calibrated: str, raised: str, axis: str, failing: list[str]
) -> None:
    assert failed_lints(make_row("fb-x", axis, calibrated, raised)) == failing


def test_a_span_outside_the_evidence_fails() -> None:
    row = make_row("fb-x", "modality", "Coffee may reduce fatigue.", "Coffee will reduce fatigue.")
    assert failed_lints({**row, "evidence_span": "Coffee might reduce fatigue."}) == ["span_in_evidence"]


def _claim_row(axis: str, span: str, calibrated: str, raised: str) -> dict:
    """A row whose calibrated claim paraphrases ``span`` (as a cited claim does)."""
    return make_row(
        "fb-c",
        axis,
        calibrated,
        raised,
        evidence=f"Intro. {span} Outro.",
        evidence_span=span,
        claim_source="attribution_claim",
    )


@pytest.mark.parametrize(
    ("axis", "span", "calibrated", "raised"),
    [
        (
            "modality",
            "Drinking coffee might reduce fatigue among night-shift workers.",
            "Coffee may reduce fatigue in shift workers.",
            "Coffee will reduce fatigue in shift workers.",
        ),
        (
            "scope",
            "Most scholars have challenged this view of the tomb.",
            "Many scholars have challenged the view of the tomb.",
            "All scholars have challenged the view of the tomb.",
        ),
        (
            "numeric",
            "The desert stretches roughly 932 miles from north to south.",
            "The desert is about 932 miles from north to south.",
            "The desert is 932 miles from north to south.",
        ),
        (
            "relation",
            "Long QT intervals are associated with sudden cardiac death.",
            "A long QT interval is associated with sudden cardiac death.",
            "A long QT interval causes sudden cardiac death.",
        ),
    ],
)
def test_a_paraphrased_claim_whose_span_licenses_its_marker_passes(
    axis: str, span: str, calibrated: str, raised: str
) -> None:
    assert failed_lints(_claim_row(axis, span, calibrated, raised)) == []


@pytest.mark.parametrize(
    ("axis", "span", "calibrated", "raised", "failing"),
    [
        # the span states it flatly: it warrants no hedge, and it warrants the raised claim
        (
            "modality",
            "Coffee reduces fatigue in shift workers.",
            "Coffee may reduce fatigue in shift workers.",
            "Coffee will reduce fatigue in shift workers.",
            ["span_licenses_marker"],
        ),
        # the span's hedge is about another verb than the claim's
        (
            "modality",
            "Coffee reduces fatigue in shift workers, who may sleep badly for years afterwards anyway.",
            "Coffee may reduce fatigue in shift workers.",
            "Coffee will reduce fatigue in shift workers.",
            ["span_licenses_marker"],
        ),
        # the span already says the raised marker
        (
            "modality",
            "Coffee may reduce fatigue, and it will help shift workers.",
            "Coffee may reduce fatigue in shift workers.",
            "Coffee will reduce fatigue in shift workers.",
            ["raised_not_licensed"],
        ),
        # a weaker frequency in the span does not license a stronger one in the claim
        (
            "modality",
            "Abnormal specimens are sometimes referred to a pathologist.",
            "Abnormal specimens are usually referred to a pathologist.",
            "Abnormal specimens are always referred to a pathologist.",
            ["span_licenses_marker"],
        ),
        # the span gives the number exactly, so the exact claim is warranted
        (
            "numeric",
            "The desert is 932 miles from north to south.",
            "The desert is about 932 miles from north to south.",
            "The desert is 932 miles from north to south.",
            ["span_licenses_marker", "raised_not_licensed"],
        ),
        # the span is about something else
        (
            "modality",
            "Tea is a popular drink in Britain and India.",
            "Coffee may reduce fatigue in shift workers.",
            "Coffee will reduce fatigue in shift workers.",
            ["span_covers_claim", "span_licenses_marker"],
        ),
    ],
)
def test_a_span_that_does_not_license_the_pair_fails(
    axis: str, span: str, calibrated: str, raised: str, failing: list[str]
) -> None:
    assert failed_lints(_claim_row(axis, span, calibrated, raised)) == failing
