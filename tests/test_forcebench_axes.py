"""The paper's axes and the drafting's rejection reasons (issue 24), on real AttributionBench claims
that the drafting before issue 24 kept as pairs; and the controls lowered with the contrast markers."""

from __future__ import annotations

from collections import Counter

import pytest

from eviscope.builders.forcebench.drafting import REJECTION_REASONS, draft_rows, lowerings
from eviscope.suites.forcebench.patterns import find_edits, licenses_raised


def _source(claim: str, passage: str, row_id: str = "HAGRID_1") -> dict:
    return {
        "id": row_id,
        "question": "What does the passage say?",
        "claim": claim,
        "references": [passage],
        "attribution_label": "attributable",
        "src_dataset": "HAGRID",
    }


def _rejected(claim: str, passage: str | None = None) -> dict[str, int]:
    """The rejection counts of the cited-claim contrast drafts of ``claim`` (its own passage by default)."""
    _, stats = draft_rows([_source(claim, passage or claim)])
    removed = stats["contrast/attribution_claim"]["rejected"]
    return {reason: sum(by_axis.values()) for reason, by_axis in removed.items() if sum(by_axis.values())}


@pytest.mark.parametrize(
    ("claim", "axis"),
    [
        (  # fb-32fc09371d was filed as relation
            "If there's concern that the cancer cells have spread to other parts of the body, your doctor "
            "might recommend imaging tests, such as CT or PET scans.",
            "modality",
        ),
        (
            "Future work should be done to explore the importance of the consequence.",
            "modality",
        ),  # fb-3647b1e415
    ],
)
def test_deontic_shifts_are_modality_never_relation(claim: str, axis: str) -> None:
    deontic = [e for e in find_edits(claim) if e.new in ("require", "must")]
    assert deontic and {e.rule.axis for e in deontic} == {axis}


@pytest.mark.parametrize(
    ("claim", "passage", "reason"),
    [
        (  # fb-a6c53368c3: help fund -> fund, which the passage licenses
            "Businesses, especially small businesses, rely on loans, credit cards and lines of credit to help "
            "fund their growth.",
            None,
            "not_association_to_causation",
        ),
        (  # fb-0f0ba01b01: treat -> cure is not association -> causation
            "Ketchup was believed to have medicinal properties that could help treat a variety of ailments.",
            None,
            "not_association_to_causation",
        ),
        ("There have been 89 Governors of Connecticut since 1639.", None, "unnatural_raise"),  # fb-95fb8e5fc8
        (
            "Takeo's younger cousin Brandon Spikes is currently a free agent.",
            None,
            "unnatural_raise",
        ),  # fb-a3cebeb194
        (  # fb-0426cab23e: deleting "more than" changes no precision
            "There are more than 7,800 students enrolled at the Cockrell School of Engineering.",
            None,
            "bound_deletion_only",
        ),
        (  # fb-e647973e62: a best song "of the decade" stays listed
            'Their song "How You Remind Me" was listed as the best-selling rock song of the decade.',
            None,
            "raise_licensed_by_claim",
        ),
        (  # a garbled scraped claim
            "The the committee may approve the budget of the city council (as stated.",
            None,
            "unnatural_claim",
        ),
        (  # fb-2dda9646dd, read as off axis: a frequency word is no modality
            "As explorers traipsed around the globe and discovered new places, they often had no idea what "
            "to call them, so they asked the locals.",
            None,
            "frequency_not_modality",
        ),
        (  # fb-9fc068ffaa: "generally provided" -> "always provided"
            "Palliative care, which is generally provided on an inpatient basis, is designated for patients "
            "regardless of their life expectancy.",
            None,
            "frequency_not_modality",
        ),
        (  # fb-1ab29217e3: dropping "in South Africa" leaves the same claim elided (SARS)
            "Residents who pay taxes in South Africa have to fill in an annual tax return form and submit it "
            "to SARS.",
            None,
            "qualifier_deleted",
        ),
        (  # fb-370f54247d: dropping "in Canada"
            "The name of the law that was passed to legalize euthanasia in Canada is Bill C-14.",
            None,
            "qualifier_deleted",
        ),
        (  # fb-20ee34353c: dropping "in children", a population
            "While the exact number of needlestick injuries in children is unknown, even one injury is "
            "enough to cause public alarm.",
            None,
            "qualifier_deleted",
        ),
        (  # fb-67096d0d25: a mixed conditional copied from the source
            "Porter calculated that every dollar invested in a retrofit may save $32 had the property owner "
            "not paid for seismic upgrades.",
            "Porter calculated that every dollar invested in a retrofit may save $32 had the property owner "
            "not paid for seismic upgrades.",
            "unnatural_claim",
        ),
        (  # fb-88a6b355a9 ("the top 3-5 stakeholders": a range now gives no draft, range_cut): an
            # imperative question, not a statement
            "Think, who are the roughly 5 stakeholders that you want deeply involved in the planning and "
            "review of the product roadmap.",
            None,
            "unnatural_claim",
        ),
        (  # fb-18542283b8: a reference's author list copied as a claim
            "Kadin, M. E., Levi, E. & Kempf, W. Progression of lymphomatoid papulosis to systemic lymphoma is "
            "associated with escape from growth inhibition.",
            None,
            "unnatural_claim",
        ),
        (  # fb-3bc9b307dc: TeX markup copied from a scraped answer
            "Their mass grows as $R^3$ with the radius while the area of the wheel is expected to grow as "
            "$R^2$ only.",
            None,
            "unnatural_claim",
        ),
        (  # fb-e682f94c56: a list glued on after a colon
            "There are several steps your healthcare provider may take to make an accurate diagnosis "
            "including: Asking questions about your symptoms.",
            None,
            "unnatural_claim",
        ),
        (  # a scope marker inside a superlative: "the first ... on several charts" says no less
            "The song became a number one hit in the UK, the first by an Epstein-managed Liverpool group "
            "to achieve this on many charts.",
            None,
            "quantifier_in_superlative",
        ),
        (  # the calibrated claim names a place the passage does not
            "Some patients in Ohio recovered within a week.",
            "Some patients recovered within a week of the treatment.",
            "calibrated_exceeds_span",
        ),
    ],
)
def test_each_rule_rejects_the_real_claim_it_was_written_for(
    claim: str, passage: str | None, reason: str
) -> None:
    assert reason in REJECTION_REASONS
    assert reason in _rejected(claim, passage)


def test_a_claim_on_two_axes_is_kept_on_one_only() -> None:
    claim = "Some studies suggest that coffee may reduce fatigue in adults."
    passage = "Some studies suggest that coffee, taken daily, may reduce fatigue among adults."
    rows, stats = draft_rows([_source(claim, passage)])
    contrast = [r for r in rows if r["pair_type"] == "contrast"]
    assert len(contrast) == 1
    removed = stats["contrast/attribution_claim"]["rejected"]
    assert sum(removed["claim_on_other_axis"].values()) + sum(removed["duplicate_claim_axis"].values()) >= 1


def test_a_control_lowers_the_marker_the_passage_states_and_raises_back_exactly() -> None:
    vocabulary = Counter({("modality", "possibility-to-certainty", "may", "will"): 3})
    sentence = "The new vaccine will reduce hospital admissions in older adults."
    assert [weak for weak, _ in lowerings(sentence, vocabulary)] == [
        "The new vaccine may reduce hospital admissions in older adults."
    ]
    assert list(lowerings("The new vaccine will not reduce admissions.", vocabulary)) == []


def test_controls_only_use_markers_of_the_contrast_pairs() -> None:
    sources = [
        _source(
            "Coffee may reduce fatigue in shift workers.",
            "In shift workers, coffee may reduce fatigue.",
            "H_1",
        ),
        _source(
            "The new vaccine will reduce hospital admissions in older adults.",
            "Trials show that in older adults the new vaccine will reduce hospital admissions.",
            "H_2",
        ),
        _source(
            "All patients in the trial recovered within a week.",
            "All patients in the trial recovered within a week.",
            "H_3",
        ),
    ]
    rows, _ = draft_rows(sources)
    by_type = {r["pair_type"]: r for r in rows if r["claim_source"] == "attribution_claim"}
    assert by_type["contrast"]["raised_claim"] == "Coffee will reduce fatigue in shift workers."
    control = by_type["licensed"]
    assert (control["calibrated_claim"], control["raised_claim"]) == (
        "The new vaccine may reduce hospital admissions in older adults.",
        "The new vaccine will reduce hospital admissions in older adults.",
    )
    # "All" -> "Some" is a scope marker no contrast pair uses here: no control is drafted from it
    assert not any(r["raised_claim"].startswith("All patients") for r in rows)


@pytest.mark.parametrize(
    "sentence",
    [
        "The CanAm Highway follows US 85 from El Paso, Texas, to the border.",  # a road's name, not a quantity
        "Estimates of total deaths range from 9 million to over 15 million people.",  # a bound before it
        "The anime ended on October 2, 2011, after 25 episodes aired weekly.",  # a date
    ],
)
def test_numeric_controls_lower_only_quantities(sentence: str) -> None:
    vocabulary = Counter(
        {
            ("numeric", "approximation-to-exact", "approximately", ""): 5,
            ("numeric", "range-to-endpoint", "1 to 2", "2"): 3,  # would invent the range's other number
        }
    )
    lowered = [weak for weak, _ in lowerings(sentence, vocabulary)]
    assert not any(
        bad in weak
        for weak in lowered
        for bad in ("US approximately", "over approximately", "October approximately", " to 2,")
    ), lowered


def test_a_control_whose_lowering_breaks_the_grammar_is_not_drafted() -> None:
    # drafted before issue 24's checks: "Shingles is were associated with by the same virus ..."
    # and since issue 33 (VitaminC): "an infectious disease was associated with by the … coronavirus"
    contrast = "Heavy drinking and smoking were associated with liver damage in the cohort."
    passage = "In the cohort, heavy drinking and smoking were associated with liver damage."
    control = "Shingles is caused by the same virus that causes chickenpox."
    passage_2 = "The virus that causes chickenpox is the one by which shingles is caused."
    rows, _ = draft_rows([_source(contrast, passage, "H_1"), _source(control, passage_2, "H_2")])
    assert [r["raised_claim"] for r in rows if r["pair_type"] == "contrast"] == [
        "Heavy drinking and smoking caused liver damage in the cohort."
    ]
    assert not any(" is were " in r["calibrated_claim"] or " with by " in r["calibrated_claim"] for r in rows)
    weak = [
        weak
        for weak, _ in lowerings(
            control,
            Counter(
                {
                    ("relation", "association-to-causation", "is associated with", "causes"): 1,
                    ("relation", "association-to-causation", "was associated with", "caused"): 1,
                }
            ),
        )
    ]
    assert not any(" by " in w.split("associated with", 1)[-1][:4] for w in weak), weak


def test_as_of_is_not_raised_to_currently_in_a_present_perfect() -> None:
    # fb-eabe260314: "Currently, the Autódromo Hermanos Rodríguez has been the only venue ..."
    claim = (
        "As of 2018, the Autódromo Hermanos Rodríguez has been the only venue for the F1 Mexican Grand Prix."
    )
    assert [e for e in find_edits(claim, "temporal") if e.rule.name == "as-of-to-current"] == []
    kept = "As of 2019, New Jersey has nine casinos."
    assert [e.raised for e in find_edits(kept, "temporal")] == ["Currently, New Jersey has nine casinos."]


@pytest.mark.parametrize("verb", ["set", "scheduled", "slated"])
def test_an_arranged_future_is_no_prediction_and_licenses_will(verb: str) -> None:
    # fb-a6570141de: "is set to earn" a contracted salary already says "will earn"
    claim = f"Golden State Warriors superstar Stephen Curry is {verb} to earn $48.07 million in 2022-23."
    assert list(find_edits(claim, "modality")) == []
    expected = "Stephen Curry is expected to earn $48.07 million in 2022-23."
    edit = next(find_edits(expected, "modality"))
    assert edit.raised == "Stephen Curry will earn $48.07 million in 2022-23."
    assert licenses_raised(f"Stephen Curry is {verb} to earn $48.07 million in 2022-23.", edit)


def test_a_control_is_not_lowered_inside_a_superlative() -> None:
    # fb-0ea85c72a8: "the first ... to achieve this on all charts" lowered to "several charts"
    sentence = (
        "The song was produced by George Martin and became a number one hit in the UK, the first by an "
        "Epstein-managed Liverpool group to achieve this on all charts."
    )
    contrast = _source("Many types of competitive skiing events are recognized by the IOC.", "", "H_1")
    contrast["references"] = [
        "Today many types of competitive skiing events are by now recognized by the IOC."
    ]
    rows, stats = draft_rows([contrast, _source(sentence, sentence, "H_2")])
    assert [r for r in rows if r["pair_type"] == "licensed"] == []
    removed = stats["licensed/attribution_claim"]["rejected"]
    assert sum(removed["quantifier_in_superlative"].values()) >= 1


def test_mostly_after_a_modal_is_raised_to_only_not_entirely() -> None:
    # fb-50e42c8f8f, fb-673f759665: "The layoffs will mostly come from ..." was raised to "will entirely come from ..."
    claim = "The layoffs will mostly come from Facebook, Instagram and WhatsApp."
    assert [e.raised for e in find_edits(claim, "scope")] == [
        "The layoffs will only come from Facebook, Instagram and WhatsApp."
    ]
    adjective = "The human energy used to propel bicycles is renewable and largely non-polluting."
    assert [e.new for e in find_edits(adjective, "scope")] == ["entirely"]


def test_an_association_with_a_degree_is_raised_to_determines_not_causes() -> None:
    # fb-d1241d25d8: "... and is correlated with the degree of binocular vision" was raised to "causes the degree"
    claim = (
        "The proportion of decussating fibers varies between species, and is correlated with the degree of "
        "binocular vision enjoyed by a species."
    )
    assert [e.new for e in find_edits(claim, "relation")] == ["determines"]
    assert [e.new for e in find_edits("Smoking is associated with lung cancer in adults.", "relation")] == [
        "causes"
    ]


def test_an_association_raise_keeps_also_and_no_pair_drops_it() -> None:
    # fb-800db57f24: "diabetes insipidus which is also associated with frequent urination" -> "which causes"
    claim = (
        'The term "mellitus" or "from honey" was added by the Briton John Rolle in the late 1700s to separate '
        "the condition from diabetes insipidus which is also associated with frequent urination."
    )
    assert [e.new for e in find_edits(claim, "relation")] == ["also causes"]
    rows, _ = draft_rows([_source(claim, claim)])
    assert not any("which causes" in r["raised_claim"] for r in rows)


def test_a_past_count_in_a_dated_attribution_frame_is_not_raised_to_the_present() -> None:
    # fb-5aade58087: "According to the 2010 census, it had a population of 104,553" -> "it has"
    for claim in (
        "According to the 2010 census, it had a population of 104,553, making it the 35th-most populous city "
        "in Texas.",
        "In 2011, the national statistics office reported that the town had a population of 6,269.",
    ):
        assert list(find_edits(claim, "temporal")) == [], claim
    assert [e.new for e in find_edits("The town had a population of 6,269 at its peak.", "temporal")] == [
        "has a population of"
    ]


def test_a_control_never_lowers_known_to_to_a_consensus() -> None:
    # fb-157f5f164a: "he is known to have been in command" lowered to "he is widely considered to have been"
    sentence = "During this period he is known to have been in command of a hundred archers."
    consensus = Counter({("modality", "belief-to-knowledge", "is widely considered to", "is known to"): 2})
    assert list(lowerings(sentence, consensus)) == []
    plain = Counter({("modality", "belief-to-knowledge", "is considered to", "is known to"): 2})
    assert [weak for weak, _ in lowerings(sentence, plain)] == [
        "During this period he is considered to have been in command of a hundred archers."
    ]
