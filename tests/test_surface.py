"""The surface audit and the string-matching reference systems: what the documents, compared only as
strings and never against the question, tell of a row's action."""

from __future__ import annotations

import pytest
from eviscope_fixtures import hand_rows

from eviscope.suites.eviscope.reference_systems import lexical, predict
from eviscope.suites.eviscope.scoring import score
from eviscope.suites.eviscope.shortcuts import FEATURE_SETS
from eviscope.suites.eviscope.surface import (
    NEAR_DUPLICATE,
    SURFACE_FEATURES,
    closest_pair,
    differing_kinds,
    differing_tokens,
    surface_audit,
)

SUPPORT = "Intro. The bridge opened in {year} after work began in {begun} by {who}. More text follows here."
SAME = "Outro. A parade started in {year} before music began in {begun} by {who}. Less text follows there."
ALT = "Later. Its tolls were cut in {year} and lights were added in {begun}, then painted green."
OTHER = (
    "Unrelated passage {k} about rivers and music, long enough to be a passage of its own.",
    "A second article describes mountain weather {k}, snow in winter and storms in spring.",
)
WIDTH = 120
"""Every text is padded with dots (no tokens) to this many characters: the layout is the same."""


def _doc(doc_id: str, title: str, text: str) -> dict:
    return {"doc_id": doc_id, "title": title, "text": text.ljust(WIDTH, ".")}


def _rows(quartets: int, shown: dict[str, list[str]]) -> list[dict]:
    """``quartets`` quartets whose variants show the documents named in ``shown``: ``sup`` (the
    support), ``conflict`` (its copy with the answer, a year, changed), ``edit`` (a copy with another
    year changed), ``word`` (a copy with another word changed), ``mirror`` (an unedited copy),
    ``same`` and ``alt`` (same-article passages), ``same-edit`` (a copy of ``same`` with a year
    changed), ``o1``/``o2`` (other articles)."""
    rows = []
    for q in range(quartets):
        base = {"year": 1990 + q, "begun": 1950 + q, "who": "the city"}
        texts = {
            "sup": SUPPORT.format(**base),
            "conflict": SUPPORT.format(**{**base, "year": 1890 + q}),
            "edit": SUPPORT.format(**{**base, "begun": 1850 + q}),
            "word": SUPPORT.format(**{**base, "who": "the state"}),
            "mirror": SUPPORT.format(**base),
            "same": SAME.format(**base),
            "same-edit": SAME.format(**{**base, "year": 1790 + q}),
            "alt": ALT.format(**base),
            "o1": OTHER[0].format(k=q),
            "o2": OTHER[1].format(k=q),
        }
        for variant, action in (
            ("sufficient", "answer"),
            ("noisy", "answer"),
            ("insufficient", "abstain"),
            ("conflicting", "flag_conflict"),
        ):
            title = {"o1": "Other A", "o2": "Other B"}
            supported = "sup" in shown[variant]
            rows.append(
                {
                    "id": f"q{q}-{variant}",
                    "quartet_id": f"q{q}",
                    "variant": variant,
                    "question": "When did the bridge open?",
                    "title": "Bridge",
                    "expected_action": action,
                    "documents": [
                        _doc(f"{name}{q}", title.get(name, "Bridge"), texts[name]) for name in shown[variant]
                    ],
                    "answers": [str(base["year"])],
                    "supporting_doc_ids": [f"sup{q}"] if supported else [],
                    "support_spans": [{"doc_id": f"sup{q}", "text": texts["sup"]}] if supported else [],
                    "conflicting_doc_ids": [f"conflict{q}"] if variant == "conflicting" else [],
                }
            )
    return rows


PAPER = {
    "sufficient": ["sup"],
    "noisy": ["o1", "sup", "o2"],
    "insufficient": ["o1", "same", "o2"],
    "conflicting": ["conflict", "sup"],
}
"""The paper's design: only the conflicting row shows an edited copy (and only it two documents)."""
BALANCED = {
    "sufficient": ["sup"],
    "noisy": ["sup", "o1", "same"],
    "insufficient": ["same", "o1", "alt"],
    "conflicting": ["conflict", "o1", "sup"],
}
"""Three documents of one length everywhere, two of the article, but an edited copy of the support
only in the conflicting row."""
MATCHED = {
    "sufficient": ["sup"],
    "noisy": ["edit", "o1", "sup"],
    "insufficient": ["same", "o1", "same-edit"],
    "conflicting": ["conflict", "o1", "sup"],
}
"""BALANCED's layout, and in every multi-document row a copy that differs in one year: only the
question tells whether it is the year asked for."""


def test_the_closest_pair_is_the_edited_copy_and_its_differences_are_typed():
    [_, noisy, insufficient, conflicting] = _rows(1, MATCHED)
    pair = closest_pair(conflicting)
    assert (pair.inner, pair.outer) == (0, 2) and pair.containment >= NEAR_DUPLICATE
    assert pair.differing == ("1890", "1990")
    assert differing_kinds(pair.differing) == {"year": 2, "number": 0, "other": 0}
    kinds = differing_kinds(["5", "three", "1990s", "2001", "state", "2150"])
    assert kinds == {"year": 2, "number": 3, "other": 1}
    assert closest_pair(insufficient).differing == ("1790", "1990")
    assert closest_pair(noisy).differing == ("1850", "1950")
    assert closest_pair({"documents": [{"text": "One passage."}]}) is None


def test_what_a_copy_holds_beyond_a_window_is_no_difference():
    outer = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh"]
    window = ["third", "fourth", "5th", "sixth"]  # a window of outer with one word changed
    assert differing_tokens(window, outer) == ["5th", "fifth"]
    assert differing_tokens(outer[1:4], outer) == []


def test_every_surface_feature_reads_the_documents_never_the_question():
    rows = _rows(2, BALANCED)
    asked = [{**row, "question": "Who paid for the parade?"} for row in rows]
    width = 3
    for name, feature in SURFACE_FEATURES.items():
        assert [feature(r, width) for r in rows] == [feature(r, width) for r in asked], name
    conflicting = rows[3]
    assert SURFACE_FEATURES["near-duplicate-differs"](conflicting, width) == [1.0]
    assert SURFACE_FEATURES["differing-tokens"](conflicting, width) == [2.0]
    assert SURFACE_FEATURES["differing-kinds"](conflicting, width) == [2.0, 0.0, 0.0]
    noisy_without_copy = _rows(1, PAPER)[1]
    assert SURFACE_FEATURES["near-duplicate-differs"](noisy_without_copy, width) == [-1.0]
    assert SURFACE_FEATURES["layout"](conflicting, width) == [
        x for feature in FEATURE_SETS.values() for x in feature(conflicting, width)
    ]


def test_an_edited_copy_only_in_conflicting_rows_gives_them_away():
    result = surface_audit(_rows(24, BALANCED))
    assert set(result["features"]) == {*SURFACE_FEATURES, "surface"}
    assert result["near_duplicate_threshold"] == NEAR_DUPLICATE
    majority = result["majority"]["multi_document_rows"]
    assert majority == pytest.approx(1 / 3, abs=0.01)
    # The layout is the same in every multi-document row; the copy is not: every string feature finds
    # every conflict (noisy and insufficient rows, without a near-duplicate, stay a coin toss).
    assert result["features"]["layout"]["multi_document_rows"] == majority
    for feature in ("near-duplicate-differs", "differing-tokens", "differing-kinds"):
        assert result["features"][feature]["multi_document_rows"] == pytest.approx(2 / 3, abs=0.01), feature
    assert result["features"]["max-containment"]["multi_document_rows"] >= 2 / 3
    assert result["max_gain_multi_document"] > 30
    assert "per_source" not in result


def test_matched_near_duplicates_tell_nothing_that_the_question_does_not():
    result = surface_audit(_rows(24, MATCHED))
    majority = result["majority"]["multi_document_rows"]
    for name, measured in result["features"].items():
        assert measured["multi_document_rows"] - majority <= 0.05, name


def test_the_audit_is_reported_per_source_where_rows_name_one():
    rows = _rows(24, BALANCED)
    for row in rows:
        row["source"] = "squad-dev" if int(row["quartet_id"][1:]) % 2 else "tydiqa"
    result = surface_audit(rows)
    assert set(result["per_source"]) == {"squad-dev", "tydiqa"}
    for source, part in result["per_source"].items():
        assert part["fitted_quartets"] + part["held_out_quartets"] == 12, source
        assert part["features"]["differing-kinds"]["multi_document_rows"] == pytest.approx(2 / 3, abs=0.01)


# --- The string-matching reference systems -------------------------------------------------------


def test_near_duplicate_flags_every_copy_and_diff_only_a_copy_that_differs_in_a_number():
    rows = _rows(1, {"sufficient": ["sup"], "noisy": ["mirror", "o1", "sup"],
                     "insufficient": ["word", "o1", "sup"], "conflicting": ["conflict", "o1", "sup"]})  # fmt: skip
    lex = {p["id"]: p for p in lexical(rows)}
    near, diff = ({p["id"]: p for p in predict(name, rows)} for name in ("near-duplicate", "diff"))
    flagged = {"id": "q0-conflicting", "action": "flag_conflict", "citations": ["conflict0", "sup0"]}
    assert near["q0-conflicting"] == diff["q0-conflicting"] == flagged
    for row_id in ("q0-noisy", "q0-insufficient"):  # an unedited copy; a copy with a word changed
        assert near[row_id]["action"] == "flag_conflict"
        assert diff[row_id] == lex[row_id]
    assert near["q0-sufficient"] == diff["q0-sufficient"] == lex["q0-sufficient"]


@pytest.mark.parametrize("system", ["near-duplicate", "diff"])
def test_string_matching_systems_are_lexical_without_a_copy(system):
    rows = hand_rows()
    for row in rows:  # the hand conflict passage is a copy of the support: make it another passage
        if row["variant"] == "conflicting":
            row["documents"][0] = {**row["documents"][0], "text": "In 1999 it was not so."}
    assert predict(system, rows) == lexical(rows)


def test_on_the_papers_layout_string_matching_finds_every_conflict():
    rows = _rows(4, PAPER)
    for system in ("near-duplicate", "diff"):
        result = score(rows, predict(system, rows)).overall
        assert result["conflict_accuracy"] == 1.0, system
