"""ForceBench from human-written claims (contract §5, issue 33): the six sources' readers, the copy
filter, and temporal as temporal status (a forecast made certain is modality)."""

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from eviscope.builders.forcebench.drafting import draft_rows, human_span, source_name
from eviscope.builders.forcebench.human import (
    HUMAN_SOURCES,
    Unit,
    detokenize,
    press_claim,
    read_check_covid,
    read_citation_integrity,
    read_insciout,
    read_missciplus,
    read_timeqa,
    read_units,
    read_vitaminc,
)
from eviscope.core.errors import EviScopeError
from eviscope.core.sources import resolve
from eviscope.suites.forcebench.lints import COPY_SHARE, MIN_COVERAGE, copies_evidence, copy_share, coverage
from eviscope.suites.forcebench.patterns import find_edits
from eviscope.suites.forcebench.rows import CLAIM_SOURCES, FIELDS, RAISED_SOURCES


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


# The copy filter ---------------------------------------------------------------------------------


def test_a_claim_standing_in_one_run_of_the_evidence_copies_it() -> None:
    evidence = "In the trial, coffee may reduce fatigue in shift workers, the authors said."
    assert copy_share("Coffee may reduce fatigue in shift workers.", evidence) == 1.0
    # 9 of 10 words in one run is a copy; the same words broken into two runs are not
    assert (
        copy_share("Coffee may reduce fatigue in shift workers, the authors said today.", evidence)
        >= COPY_SHARE
    )
    assert copy_share("In shift workers, coffee may reduce fatigue.", evidence) < COPY_SHARE
    row = {
        "calibrated_claim": "In shift workers, coffee may reduce fatigue.",
        "raised_claim": "Coffee will reduce fatigue in shift workers.",
        "evidence": "Coffee will reduce fatigue in shift workers, the authors said.",
    }
    assert copies_evidence(row)  # the raised (warranted) side copies: a copy detector would order it
    assert not copies_evidence({**row, "raised_claim": "In shift workers, coffee will reduce fatigue."})


def test_a_human_claim_that_copies_its_evidence_is_no_pair() -> None:
    copied = Unit(
        "Check-COVID:1",
        "MIT",
        "",
        "Masks may reduce transmission of the virus in schools.",
        "Masks may reduce transmission of the virus in schools.",
        "Masks may reduce transmission of the virus in schools.",
    )
    own = Unit(
        "Check-COVID:2",
        "MIT",
        "",
        "In schools, wearing masks may reduce how often the virus spreads between pupils.",
        "In schools, wearing masks may reduce how often the virus spreads between pupils.",
        "Wearing masks in schools may reduce how often the virus spreads.",
    )
    rows, stats = draft_rows([], units=[copied, own])
    assert [r["calibrated_claim"] for r in rows] == [
        "Wearing masks in schools may reduce how often the virus spreads."
    ]
    assert sum(stats["contrast/human_claim"]["rejected"]["copies_evidence"].values()) == 1


# Temporal is temporal status; a forecast made certain is modality ---------------------------------


@pytest.mark.parametrize(
    ("claim", "raised"),
    [
        (
            "World trade is projected to reach $30 trillion by 2030.",
            "World trade will reach $30 trillion by 2030.",
        ),
        ("Sales are expected to decrease next year.", "Sales will decrease next year."),
    ],
)
def test_a_forecast_made_certain_is_modality_never_temporal(claim: str, raised: str) -> None:
    assert list(find_edits(claim, "temporal")) == []
    assert [(e.rule.name, e.raised) for e in find_edits(claim, "modality")] == [
        ("forecast-to-certainty", raised)
    ]


@pytest.mark.parametrize(
    ("claim", "raised"),
    [
        ("As of 2019, New Jersey has nine casinos.", "Currently, New Jersey has nine casinos."),
        ("Oman has 484 confirmed cases as of 10 April 2020.", "Oman has 484 confirmed cases."),
        (
            "Washington has the most deaths in the country, as of March 22, 2020.",
            "Washington has the most deaths in the country.",
        ),
        ("Reanimation is the best remix album to date.", "Reanimation is the best remix album."),
    ],
)
def test_a_dated_present_state_is_raised_to_an_undated_one(claim: str, raised: str) -> None:
    assert [e.raised for e in find_edits(claim, "temporal")] == [raised]


@pytest.mark.parametrize(
    "claim",
    [
        "The format remained unchanged as of 2017.",  # a past state: no present to claim
        "Tomb Raider became the best-selling title as of November 2017.",
        "McQuarrie co-wrote his most successful film to date, The Tourist, in 2010.",
        "Kaya Scodelario was voted 13th in the UK edition of the list.",  # "is voted" is no English
    ],
)
def test_a_past_event_gives_no_temporal_raise(claim: str) -> None:
    assert list(find_edits(claim, "temporal")) == []


# The readers, on made-up files ------------------------------------------------------------------


def test_insciout_gives_calibrated_claims_and_the_press_office_over_claims(tmp_path: Path) -> None:
    base = {"exaggeration_label": "same"}
    _jsonl(
        tmp_path / "insciout_train.jsonl",
        [
            {
                **base,
                "original_file_id": "1",
                "abstract_conclusion": "CONCLUSIONS: Cycling was associated with lower mortality.",
                "press_release_conclusion": "Cycling is linked to fewer deaths, finds a study in The BMJ today.",
                "abstract_strength": 1,
                "press_release_strength": 1,
            },
            {
                **base,
                "original_file_id": "2",
                "abstract_conclusion": "Sitting was associated with higher blood pressure.",
                "press_release_conclusion": "Sitting raises blood pressure",
                "abstract_strength": 1,
                "press_release_strength": 3,
                "exaggeration_label": "exaggerates",
            },
            {
                **base,
                "original_file_id": "3",
                "abstract_conclusion": "Smoking causes cancer.",
                "press_release_conclusion": "Smoking may be linked to cancer.",
                "abstract_strength": 3,
                "press_release_strength": 1,
                "exaggeration_label": "downplays",
            },
        ],
    )
    _jsonl(tmp_path / "insciout_test.jsonl", [])
    units = list(read_insciout(tmp_path))
    assert [(u.source, u.claim, u.over_claim, u.axis, u.license) for u in units] == [
        ("InSciOut:1", "Cycling is linked to fewer deaths.", "", "", "GPL-3.0"),
        ("InSciOut:2", "", "Sitting raises blood pressure.", "relation", "GPL-3.0"),
    ]
    assert units[0].evidence == "Cycling was associated with lower mortality."
    assert (
        press_claim("Cycling, a cheap habit, is linked to fewer deaths.")
        == "Cycling, a cheap habit, is linked to fewer deaths."
    )


def test_vitaminc_keeps_every_distinct_supported_claim_and_a_sentence_without_figures_for_scope(
    tmp_path: Path,
) -> None:
    row = {
        "unique_id": "a_1",
        "case_id": "a",
        "wiki_revision_id": "1",
        "label": "SUPPORTS",
        "page": "Oman",
        "group": "x",
    }
    _jsonl(
        tmp_path / "test.jsonl",
        [
            {
                **row,
                "claim": "Oman had 484 cases by April 10 , 2020 .",
                "evidence": "As of 10 April 2020 , Oman -LRB- the Sultanate -RRB- has 484 cases .",
            },
            {  # a second annotator's claim on a later revision of the same sentence: a claim of its own
                **row,
                "unique_id": "a_2",
                "claim": "Oman had 485 cases .",
                "evidence": "As of 11 April 2020 , Oman has 485 cases .",
            },
            {  # the same claim again: read once
                **row,
                "unique_id": "a_3",
                "claim": "Oman had 485 cases .",
                "evidence": "As of 12 April 2020 , Oman has 485 cases .",
            },
            {
                **row,
                "unique_id": "b_1",
                "case_id": "b",
                "label": "REFUTES",
                "claim": "Oman had 9 cases .",
                "evidence": "As of 2020 , Oman has 484 cases .",
            },
            {  # no figure or date: a scope claim at most
                **row,
                "unique_id": "c_1",
                "case_id": "c",
                "claim": "Most Omani villages are in the mountains .",
                "evidence": "Most of the villages of Oman lie in the mountains .",
            },
        ],
    )
    units = list(read_vitaminc(tmp_path))
    assert [(u.source, u.context, u.claim, u.evidence, u.license) for u in units] == [
        (
            "VitaminC:a_1",
            "Oman",
            "Oman had 484 cases by April 10, 2020.",
            "As of 10 April 2020, Oman (the Sultanate) has 484 cases.",
            "CC BY-SA 3.0",
        ),
        (
            "VitaminC:a_2",
            "Oman",
            "Oman had 485 cases.",
            "As of 11 April 2020, Oman has 485 cases.",
            "CC BY-SA 3.0",
        ),
        (
            "VitaminC:c_1",
            "Oman",
            "Most Omani villages are in the mountains.",
            "Most of the villages of Oman lie in the mountains.",
            "CC BY-SA 3.0",
        ),
    ]
    assert [u.axes for u in units] == [("scope", "temporal", "numeric")] * 2 + [("scope",)]
    assert detokenize("It 's `` big '' .") == 'It\'s "big".'


def test_a_human_claim_is_shown_the_evidence_sentences_that_cover_it_when_its_marked_ones_do_not() -> None:
    # the source marks the study's aim, the claim paraphrases its result: the result is the span
    evidence = (
        "OBJECTIVE: We compared cloth masks to medical masks in hospital workers. "
        "RESULTS: Infection rates were highest in the cloth mask arm compared with the medical mask arm."
    )
    aim = "OBJECTIVE: We compared cloth masks to medical masks in hospital workers."
    unit = Unit("Check-COVID:x", "MIT", "", evidence, aim, "")
    claim = "Compared to medical masks, cloth masks are associated with higher infection rates."
    span = human_span(unit, claim)
    assert span.text.startswith("RESULTS: Infection rates were highest") and span.evidence == evidence
    assert coverage(span.text, claim) >= MIN_COVERAGE > coverage(aim, claim)
    # a marked span that covers the claim is kept; evidence that covers it nowhere keeps the marked span
    assert human_span(unit, "Cloth masks were compared to medical masks in hospital workers.").text == aim
    assert human_span(unit, "Vitamin D is associated with fewer colds in winter.").text == aim


def test_a_real_check_covid_claim_is_shown_the_result_sentence_it_paraphrases() -> None:
    if not os.environ.get("EVISCOPE_CHECK_COVID"):
        pytest.skip("EVISCOPE_CHECK_COVID not set: no copy of Check-COVID to read")
    spec = next(s for s in HUMAN_SOURCES if s.name == "check_covid")
    unit = next(
        u
        for u in read_units(spec, resolve("check_covid", None))
        if u.source.endswith("5fb42ba104ded09dac378c2a_1")
    )
    assert unit.span.startswith("OBJECTIVE: The aim of this study")
    span = human_span(unit, unit.claim)
    assert span.text.startswith(
        "RESULTS: The rates of all infection outcomes were highest in the cloth mask arm"
    )
    assert span.text in unit.evidence and coverage(span.text, unit.claim) >= MIN_COVERAGE


def test_check_covid_joins_a_supported_claim_to_its_abstract_sentences(tmp_path: Path) -> None:
    _jsonl(
        tmp_path / "corpus.json",
        [{"cord_id": "c1", "title": "T", "abstract": ["One.", "Two is here.", "Three.", "Four."]}],
    )
    _jsonl(
        tmp_path / "Check-COVID_all.json",
        [
            {
                "id": "x_0",
                "claim": "Two is here ",
                "cord_id": "c1",
                "label": "SUPPORT",
                "evidence_set": [{"sent_index": 1, "type": "PRIMARY"}],
                "is_auth": True,
            },
            {
                "id": "x_1",
                "claim": "Nine.",
                "cord_id": "c1",
                "label": "REFUTE",
                "evidence_set": [{"sent_index": 1, "type": "PRIMARY"}],
                "is_auth": False,
            },
        ],
    )
    (unit,) = read_check_covid(tmp_path)
    assert (unit.source, unit.claim, unit.span, unit.evidence, unit.license) == (
        "Check-COVID:x_0",
        "Two is here.",
        "Two is here.",
        "One. Two is here. Three.",
        "MIT",
    )


def test_missciplus_pairs_the_accurate_premise_with_the_misinformation_claim(tmp_path: Path) -> None:
    study = {
        "all_passages": {
            "P-0": {"sentences": ["A trial ran.", "Curcumin stabilised myeloma in one patient."]}
        }
    }
    argument = {
        "claim": "Turmeric reverses cancer",
        "accurate_premise_p0": {
            "premise": "Curcumin stabilised myeloma in one patient",
            "mapping": [{"passage": "P-0", "sentences": [1]}],
        },
        "fallacies": [{"interchangeable_fallacies": [{"class": "Hasty Generalization"}]}],
    }
    _jsonl(tmp_path / "dev.missciplus.jsonl", [{"id": "arg-1", "argument": argument, "study": study}])
    _jsonl(
        tmp_path / "test.missciplus.jsonl",
        [
            {
                "id": "arg-2",
                "argument": {**argument, "accurate_premise_p0": {"premise": "x", "mapping": []}},
                "study": study,
            }
        ],
    )
    (unit,) = read_missciplus(tmp_path)
    assert (unit.claim, unit.over_claim, unit.axis, unit.span, unit.license) == (
        "Curcumin stabilised myeloma in one patient.",
        "Turmeric reverses cancer.",
        "scope",
        "Curcumin stabilised myeloma in one patient.",
        "Apache-2.0",
    )


def test_citation_integrity_keeps_accurate_citing_sentences_without_markers(tmp_path: Path) -> None:
    _jsonl(
        tmp_path / "corpus.jsonl",
        [
            {
                "doc_id": 7,
                "title": "",
                "abstract": ["Background.", "Hypoglycemia was associated with mortality.", "End."],
            }
        ],
    )
    _jsonl(
        tmp_path / "claims-train.jsonl",
        [
            {
                "id": 0,
                "claim": "Hypoglycemia is associated with mortality [<|cit|>].",
                "evidence": {"7": [{"sentences": [1], "label": "ACCURATE"}]},
                "cited_doc_ids": [7],
            },
            {
                "id": 1,
                "claim": "Hypoglycemia causes death [<|cit|>].",
                "evidence": {"7": [{"sentences": [1], "label": "OVERSIMPLIFY"}]},
                "cited_doc_ids": [7],
            },
        ],
    )
    for name in ("claims-dev.jsonl", "claims-test.jsonl"):
        _jsonl(tmp_path / name, [])
    (unit,) = read_citation_integrity(tmp_path)
    assert (unit.claim, unit.span, unit.license) == (
        "Hypoglycemia is associated with mortality.",
        "Hypoglycemia was associated with mortality.",
        "MIT",
    )


def test_timeqa_writes_a_time_scoped_claim_from_question_and_answer(tmp_path: Path) -> None:
    doc = {
        "index": "/wiki/X#P54",
        "paras": ["X", "X played for San Marino from 2008 to 2009 ."],
        "questions": [
            ["Which team did X play for from 2008 to 2009?", [{"para": 1, "answer": "San Marino"}]],
            ["Who is X?", [{"para": 1, "answer": "a player"}]],
        ],
    }
    (tmp_path / "human_annotated_train.json").write_text(json.dumps([doc]), encoding="utf-8")
    (tmp_path / "human_annotated_test.json").write_text("[]", encoding="utf-8")
    (unit,) = read_timeqa(tmp_path)
    assert (unit.claim, unit.evidence, unit.license) == (
        "X played for San Marino from 2008 to 2009.",
        "X played for San Marino from 2008 to 2009.",
        "BSD-3-Clause",
    )


def test_a_missing_or_malformed_source_file_is_one_line_naming_it(tmp_path: Path) -> None:
    with pytest.raises(
        EviScopeError,
        match=r"insciout_train\.jsonl is missing; point at a local copy with --insciout PATH or EVISCOPE_INSCIOUT=PATH",
    ):
        list(read_insciout(tmp_path))
    (tmp_path / "insciout_train.jsonl").write_text('{"original_file_id": "1"}\n', encoding="utf-8")
    with pytest.raises(
        EviScopeError, match=r"insciout_train\.jsonl:1: field 'press_release_conclusion' missing"
    ):
        list(read_insciout(tmp_path))


# Drafting from human claims --------------------------------------------------------------------


def test_human_claims_are_drafted_with_their_source_and_licence_and_an_over_claim_is_the_raise() -> None:
    abstract = "Sitting for long hours was associated with higher blood pressure in office workers."
    units = [
        Unit(
            "InSciOut:2",
            "GPL-3.0",
            "",
            abstract,
            abstract,
            "",
            "Daily sitting increases blood pressure in office workers.",
            "relation",
        ),
        Unit(
            "Check-COVID:9",
            "MIT",
            "",
            "Among nursing home residents, COVID-19 infection was associated with hospitalisation.",
            "Among nursing home residents, COVID-19 infection was associated with hospitalisation.",
            "In nursing homes, COVID-19 infection is associated with hospital admission.",
        ),
    ]
    rows, _ = draft_rows([], units=units)
    by_source = {r["source"]: r for r in rows}
    human = by_source["InSciOut:2"]
    assert (human["calibrated_claim"], human["raised_claim"]) == (
        "Daily sitting is associated with increased blood pressure in office workers.",
        "Daily sitting increases blood pressure in office workers.",
    )
    assert (human["raised_source"], human["claim_source"], human["source_license"]) == (
        "human",
        "human_claim",
        "GPL-3.0",
    )
    edit = by_source["Check-COVID:9"]
    assert (edit["raised_source"], edit["source_license"], edit["axis"]) == ("edit", "MIT", "relation")
    assert set(FIELDS) == set(human) and {r["claim_source"] for r in rows} <= set(CLAIM_SOURCES)
    assert {r["raised_source"] for r in rows} <= set(RAISED_SOURCES)


# The readers, on the real files (the copies named by EVISCOPE_<NAME>; skipped without them) -----------


@pytest.mark.parametrize(
    ("name", "units", "over_claims"),
    [
        ("insciout", 515, {"relation": 109}),
        ("vitaminc_real", 17071, {}),
        ("check_covid", 502, {}),
        ("missciplus", 101, {"relation": 44, "scope": 40}),
        ("citation_integrity", 832, {}),
        ("timeqa_human", 3, {}),
    ],
)
def test_each_source_reads_its_real_files(name: str, units: int, over_claims: dict[str, int]) -> None:
    spec = next(s for s in HUMAN_SOURCES if s.name == name)
    env = f"EVISCOPE_{name.upper()}"
    if not os.environ.get(env):
        pytest.skip(f"{env} not set: no copy of {spec.title} to read")
    read = read_units(spec, resolve(name, None))
    assert len(read) == units
    assert dict(Counter(u.axis for u in read if u.over_claim)) == over_claims
    assert all(u.span in u.evidence and u.license == spec.license for u in read)
    assert {source_name(u.source) for u in read} == {spec.title}
    assert len({u.source for u in read}) == units
