"""The drafting's parse check and surface matching (issue 33), on made-up sentences of each class the
third annotation round filed as garbled, and the kinds of rewrite the drafting no longer makes."""

from __future__ import annotations

import pytest

from eviscope.builders.forcebench.balance import MATCHED, cpa_of, match_shares
from eviscope.builders.forcebench.drafting import lints_of, rejection_reasons
from eviscope.builders.forcebench.grammar import grammar_flags
from eviscope.suites.forcebench.patterns import find_edits


def _flags(weak: str, strong: str, rule: str = "association-to-causation") -> list[str]:
    return grammar_flags({"calibrated_claim": weak, "raised_claim": strong}, rule)


@pytest.mark.parametrize(
    ("weak", "strong", "flag"),
    [
        (
            "Smoking is a major contribute to of death in adults.",
            "Smoking is a major cause of death in adults.",
            "preposition_without_object",
        ),
        (
            "The report lists deaths due to all increases the risk of, including 7 million combat deaths.",
            "The report lists deaths due to all causes, including 7 million combat deaths.",
            "preposition_without_object",
        ),
        (
            "Abortion is associated with more the risk of breast cancer.",
            "Abortion increases the risk of breast cancer.",
            "comparative_before_determiner",
        ),
        (
            "Smoking is the most common contribute to of lung cancer.",
            "Smoking is the most common cause of lung cancer.",
            "verb_for_noun",
        ),
        (
            "The country closed most its borders in March.",
            "The country closed all its borders in March.",
            "quantifier_before_determiner",
        ),
        (
            "He was a around 42 years old man then.",
            "He was a 42 years old man then.",
            "approximation_not_one_value",
        ),
        (
            "The film earned another €around 2.45 million in China.",
            "The film earned another €2.45 million in China.",
            "approximation_not_one_value",
        ),
        (
            "Patients were aged between 30 and almost 45 years.",
            "Patients were aged between 30 and 45 years.",
            "approximation_not_one_value",
        ),
        (
            "The inhibitor blocks caspase about 8 in human cells.",
            "The inhibitor blocks caspase 8 in human cells.",
            "approximation_not_one_value",
        ),
        (
            "Obese patients were more likely to die than others.",
            "Obese patients were certain to die than others.",
            "comparative_certainty",
        ),
    ],
)
def test_each_garbled_class_is_flagged(weak: str, strong: str, flag: str) -> None:
    assert flag in _flags(weak, strong)


@pytest.mark.parametrize(
    ("weak", "strong"),
    [
        ("Coffee is associated with reduced fatigue in adults.", "Coffee reduces fatigue in adults."),
        ("Obesity contributes to diabetes in adults.", "Obesity causes diabetes in adults."),
        (
            "The country closed most of its borders in March.",
            "The country closed all of its borders in March.",
        ),
        ("The town had about 5,000 residents in the census.", "The town had 5,000 residents in the census."),
        ("The rate rose by about 30% in the first year.", "The rate rose by 30% in the first year."),
        ("The film earned about $2.45 million in China.", "The film earned $2.45 million in China."),
        (
            "Obese patients were likely to die within a year.",
            "Obese patients were certain to die within a year.",
        ),
    ],
)
def test_grammatical_rewrites_pass(weak: str, strong: str) -> None:
    assert _flags(weak, strong) == []


def test_a_past_state_made_present_must_not_keep_its_date_or_another_past_verb() -> None:
    assert _flags(
        "The territory had a population of 1,000 in 2011.",
        "The territory has a population of 1,000 in 2011.",
        "past-count-to-present",
    ) == ["tense_mix"]
    assert (
        _flags(
            "Paris was the largest city in the region.",
            "Paris is the largest city in the region.",
            "past-state-to-present",
        )
        == []
    )


def _row(weak: str, strong: str, evidence: str, pair_type: str = "contrast") -> dict:
    return {
        "id": "fb-0",
        "axis": "numeric",
        "severity": 1,
        "context": "",
        "evidence": evidence,
        "evidence_span": evidence,
        "calibrated_claim": weak,
        "raised_claim": strong,
        "claim_source": "human_claim",
        "pair_type": pair_type,
    }


def test_a_range_is_never_cut_to_its_endpoint() -> None:
    sentence = "Attendance was 5,000 to 7,000 people per game last season."
    edits = [edit for edit in find_edits(sentence, "numeric") if edit.rule.name == "range-to-endpoint"]
    assert edits
    for edit in edits:
        row = _row(
            sentence, edit.raised, "Attendance was 5,000 to 7,000 people per game last season, it says."
        )
        assert rejection_reasons(row, edit)[0] == "range_cut"


def test_a_human_claim_must_stand_in_its_span() -> None:
    """A person's claim is checked for support by the source, but it may say more than the passage
    shown (issue 33): its content words must stand in the span, as a cited claim's must."""
    row = _row(
        "A recent poll found women about 20% more cautious.", "x", "Women emphasise caution more than men."
    )
    assert "span_covers_claim" in lints_of(row)
    assert "span_licenses_marker" not in lints_of(row)


def test_cpa_of_matches_the_metric_definition() -> None:
    # contrasts: 2 of 3 passed (MVR 1/3); controls: 1 of 2 lapsed (LPR 1/2)
    assert cpa_of([True, True, False, True, False], [True, True, True, False, False]) == pytest.approx(
        0.5 * (2 / 3) + 0.5 * 0.5
    )


def test_matching_sets_aside_until_the_surface_baselines_are_within_their_limits() -> None:
    """Contrast pairs whose weaker claim copies the evidence's limiter and controls that never do: a
    word-overlap scorer orders every contrast right and lapses on no control, until the matching sets
    contrast pairs aside."""
    evidence = "Sales rose by about 30% last year, the report said, in about half of the stores."
    rows = [
        _row(f"Sales rose by about {n}% in {n} stores.", f"Sales rose by {n}% in {n} stores.", evidence)
        for n in range(10, 30)
    ]
    rows += [
        _row(
            f"Sales rose by nearly {n}% in the shops.",
            f"Sales rose by {n}% in the shops.",
            evidence,
            "licensed",
        )
        for n in range(40, 50)
    ]
    rows += [
        _row(
            f"Sales rose by about {n}% in all the shops.",
            f"Sales rose by {n}% in all the shops.",
            evidence,
            "licensed",
        )
        for n in range(50, 55)
    ]
    kept, aside = match_shares(rows, [f"{i:03d}" for i in range(len(rows))])
    assert aside and sorted(kept + aside) == list(range(len(rows)))
    from eviscope.builders.forcebench.balance import _weaker_first

    kinds = [rows[i]["pair_type"] == "contrast" for i in kept]
    for name, limit in MATCHED.items():
        assert cpa_of([_weaker_first(name, rows[i]) for i in kept], kinds) <= limit + 1e-9, name
    assert any(rows[i]["pair_type"] == "contrast" for i in kept)
