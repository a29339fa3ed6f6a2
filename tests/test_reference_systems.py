"""Reference systems: the oracle, always-answer, and the lexical extractive baseline."""

from __future__ import annotations

import pytest
from eviscope_fixtures import hand_rows

from eviscope.suites.eviscope.reference_systems import SYSTEMS, lexical, predict
from eviscope.suites.eviscope.scoring import QUARTET_METRICS, score
from eviscope.suites.eviscope.shortcuts import cross_fit_actions

SUCCESS_METRICS = ("answer_accuracy", "source_accuracy", "span_f1", "abstention_f1", "conflict_accuracy",
                   "joint_success", *QUARTET_METRICS)  # fmt: skip


def test_oracle_scores_one_on_every_success_metric():
    result = score(hand_rows(), predict("oracle", hand_rows()))
    assert all(result.overall[name] == 1.0 for name in SUCCESS_METRICS)
    assert result.overall["hallucination_rate"] == result.overall["conflict_blind_answering"] == 0.0


def test_always_answer_has_perfect_answers_and_no_evidence_sensitivity():
    result = score(hand_rows(), predict("always-answer", hand_rows()))
    overall = result.overall
    assert overall["answer_accuracy"] == overall["source_accuracy"] == overall["noise_robustness"] == 1.0
    assert overall["hallucination_rate"] == overall["conflict_blind_answering"] == 1.0
    assert overall["evidence_removal_sensitivity"] == overall["conflict_sensitivity"] == 0.0
    assert overall["quartet_consistency"] == 0.0 and overall["joint_success"] == 0.5


def test_lexical_answers_abstains_and_flags_from_the_documents_alone():
    rows = hand_rows()
    blind = [{**row, "answers": ["?"], "supporting_doc_ids": [], "support_spans": []} for row in rows]
    preds = lexical(blind)  # gold fields hidden: the same output
    assert preds == lexical(rows)
    by_id = {p["id"]: p for p in preds}
    assert by_id["q1-sufficient"] == {
        "id": "q1-sufficient",
        "action": "answer",
        "answer": "happened in 2010 after long delays",
        "citations": ["sup1"],
        "quotes": [{"doc_id": "sup1", "text": "The event number 1 happened in 2010 after long delays."}],
    }
    assert by_id["q1-noisy"]["citations"] == ["sup1"]  # the distractors cover too little of the question
    assert by_id["q1-insufficient"] == {"id": "q1-insufficient", "action": "abstain"}
    assert by_id["q1-conflicting"]["action"] == "flag_conflict"
    assert sorted(by_id["q1-conflicting"]["citations"]) == ["con1", "sup1"]
    assert score(rows, preds).overall["joint_success"] == 1.0


def test_lexical_threshold_decides_abstention():
    rows = hand_rows()
    # The support sentence covers 2 of the 3 content words of "When did event 1 happen?".
    assert {p["action"] for p in lexical(rows, threshold=0.7)} == {"abstain"}
    assert "answer" in {p["action"] for p in lexical(rows, threshold=0.6)}


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_every_system_gives_one_valid_prediction_per_row(system):
    rows = hand_rows()
    assert score(rows, predict(system, rows)).rows.ids == [row["id"] for row in rows]


def _same_lengths_other_words(rows: list[dict]) -> list[dict]:
    """``rows`` with every document's text replaced by as many ``x`` as it has characters."""
    return [
        {**row, "documents": [{**d, "text": "x" * len(d["text"])} for d in row["documents"]]} for row in rows
    ]


@pytest.mark.parametrize("system", ["doc-count", "title-count", "length-gaps", "layout"])
def test_evidence_blind_systems_choose_their_action_without_reading_a_passage(system):
    rows = hand_rows()
    layout = cross_fit_actions(rows, system)
    assert layout == cross_fit_actions(_same_lengths_other_words(rows), system)
    for pred, action, lex in zip(predict(system, rows), layout, lexical(rows), strict=True):
        assert pred == (lex if action == "answer" else {"id": pred["id"], "action": action})


def test_doc_count_flags_every_two_document_row_and_copies_lexical_elsewhere():
    # The paper's layout: two documents only in conflicting rows, so counting finds every conflict.
    rows = hand_rows()
    preds, wrapped = predict("doc-count", rows), lexical(rows)
    for row, pred, lex in zip(rows, preds, wrapped, strict=True):
        if len(row["documents"]) == 2:
            assert pred == {"id": row["id"], "action": "flag_conflict"}
        else:
            assert pred == lex
    assert score(rows, preds).overall["conflict_accuracy"] == 1.0


def test_doc_count_is_the_lexical_system_where_every_variant_shows_as_many_documents():
    rows = hand_rows()
    for row in rows:
        if row["variant"] == "conflicting":
            row["documents"] = [*row["documents"], {"doc_id": "n1a", "title": "Other A", "text": "Rivers."}]
    multi = [row for row in rows if row["variant"] != "sufficient"]
    assert predict("doc-count", multi) == lexical(multi)
