"""Counterfactual attribution (contract §7) with a fake deterministic backend and a small embedder."""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np
import pytest

from eviscope.core.errors import EviScopeError
from eviscope.ragonite.attribution import (
    CounterfactualRequest,
    Evidence,
    Row,
    attribute,
    cluster_evidences,
    evaluate_attribution,
    masked_softmax,
)


def embed(texts: Sequence[str]) -> np.ndarray:
    """A small deterministic bag-of-words embedder (64 hashed buckets)."""
    out = np.zeros((len(texts), 64))
    for i, text in enumerate(texts):
        for word in text.lower().replace(".", " ").split():
            out[i, zlib.crc32(word.encode()) % 64] += 1.0
    return out


class FakeBackend:
    """Answers from the first evidence that mentions a year; records every call."""

    def __init__(self) -> None:
        self.calls: list[list[CounterfactualRequest]] = []

    def __call__(self, requests: list[CounterfactualRequest]) -> list[str]:
        self.calls.append(requests)
        return [self.answer(r.documents) for r in requests]

    @staticmethod
    def answer(documents: Sequence[Evidence]) -> str:
        for doc in documents:
            years = [w.strip(".") for w in doc.text.split() if w.strip(".").isdigit()]
            if years:
                return f"It opened in {years[0]}"
        return "I cannot tell"


SUPPORT = Evidence("sup", "The bridge opened in 1932 after years of work.")
NOISE_A = Evidence("na", "Rivers carry sediment towards the sea.")
NOISE_B = Evidence("nb", "Choirs sang in the old cathedral every winter.")


def row(row_id: str, documents: Sequence[Evidence], answer: str | None = "") -> Row:
    answer = FakeBackend.answer(documents) if answer == "" else answer
    return Row(row_id, "When did the bridge open?", tuple(documents), answer)


def test_removing_the_evidence_that_changes_the_answer_makes_it_the_top_evidence() -> None:
    backend = FakeBackend()
    (result,) = attribute([row("r1", [NOISE_A, SUPPORT, NOISE_B])], backend, embed, repeats=2)
    assert result is not None
    assert result.top_doc_id == "sup" and result.clusters[result.top_cluster] == ("sup",)
    assert result.contributions[1] > 0 and result.contributions[0] == pytest.approx(0, abs=1e-9)
    assert result.distribution == pytest.approx((0.0, 1.0, 0.0))
    assert all(len(answers) == 2 for answers in result.counterfactual_answers)


def test_duplicated_evidence_lands_in_one_cluster_and_is_removed_together() -> None:
    copy = Evidence("sup-copy", SUPPORT.text)
    backend = FakeBackend()
    (result,) = attribute([row("r1", [SUPPORT, NOISE_A, copy])], backend, embed)
    assert result is not None and ("sup", "sup-copy") in result.clusters
    # Removing one copy alone would leave the answer unchanged; removing the cluster changes it.
    assert result.top_doc_id in {"sup", "sup-copy"}
    assert {r.removed for r in backend.calls[0]} == {("sup", "sup-copy"), ("na",)}


def test_cluster_evidences_keeps_distinct_evidences_apart() -> None:
    vectors = embed([SUPPORT.text, NOISE_A.text, SUPPORT.text, NOISE_B.text])
    assert cluster_evidences(vectors, eps=0.005, min_samples=2) == [[0, 2], [1], [3]]


def test_all_counterfactuals_of_all_rows_go_to_the_backend_in_one_call() -> None:
    backend = FakeBackend()
    rows = [row(f"r{i}", [NOISE_A, SUPPORT, NOISE_B]) for i in range(5)] + [row("none", [NOISE_A], None)]
    results = attribute(rows, backend, embed, repeats=3)
    assert len(backend.calls) == 1 and len(backend.calls[0]) == 5 * 3 * 3
    assert results[-1] is None  # no answer: nothing to attribute, nothing generated


def test_masked_softmax_sums_to_one_over_unmasked_clusters() -> None:
    scores = [0.4, 0.0, 0.1, 0.3]
    mask = [True, False, True, True]
    for t in (0.05, 1.0, 10.0):
        p = masked_softmax(scores, mask, t)
        assert p.sum() == pytest.approx(1.0) and p[1] == 0.0
        assert p.argmax() == 0
    assert masked_softmax(scores, mask, 10.0)[3] < masked_softmax(scores, mask, 10.0)[0]
    with pytest.raises(EviScopeError):
        masked_softmax(scores, mask, 0.0)


def test_attribution_accuracy_counts_every_row_and_compares_with_mcnemar() -> None:
    near_miss = Evidence("near", "It opened. It opened in spring.")

    def eviscope_row(row_id: str, docs: Sequence[Evidence], gold: Sequence[str]) -> dict:
        shown = [{"doc_id": d.doc_id, "title": "", "text": d.text} for d in docs]
        return {"id": row_id, "documents": shown, "supporting_doc_ids": list(gold)}

    docs = [near_miss, SUPPORT, NOISE_A]
    inputs = [row(f"r{i}", docs) for i in range(4)]  # answered "It opened in 1932"
    inputs.append(row("unanswered", docs, None))
    results = attribute(inputs, FakeBackend(), embed)
    by_id = {r.row_id: a for r, a in zip(inputs, results, strict=True)}
    gold_rows = [eviscope_row(f"r{i}", docs, ["sup"]) for i in range(4)]
    gold_rows.append(eviscope_row("unanswered", docs, ["sup"]))
    gold_rows.append(eviscope_row("gold-not-shown", docs, ["elsewhere"]))
    accuracy = evaluate_attribution(gold_rows, by_id)
    assert by_id["r0"] is not None and by_id["r0"].naive_top_doc_id == "near"  # plausible, not causal
    assert accuracy.rows == 6
    assert accuracy.counterfactual == pytest.approx(4 / 6) and accuracy.naive == 0.0
    assert (accuracy.b, accuracy.c) == (4, 0) and accuracy.p_value == pytest.approx(0.125)


def test_backend_returning_the_wrong_number_of_answers_is_an_error() -> None:
    with pytest.raises(EviScopeError, match="returned 0 answers for 3 counterfactuals"):
        attribute([row("r1", [NOISE_A, SUPPORT, NOISE_B])], lambda requests: [], embed)


def test_runs_answering_different_rows_embed_the_same_evidences_so_a_cache_serves_both() -> None:
    other = Evidence("o", "The tunnel opened in 1950 under the river.")
    rows = [row("a", [SUPPORT, NOISE_A]), row("b", [other, NOISE_B])]
    first_calls: list[list[str]] = []
    second_calls: list[list[str]] = []

    def recording(calls: list[list[str]]):
        def wrapped(texts: Sequence[str]) -> np.ndarray:
            calls.append(list(texts))
            return embed(texts)

        return wrapped

    attribute(rows, FakeBackend(), recording(first_calls))
    one_unanswered = [rows[0], Row("b", rows[1].question, rows[1].documents, None)]
    attribute(one_unanswered, FakeBackend(), recording(second_calls))
    assert first_calls[0] == second_calls[0]
    assert set(first_calls[0]) == {SUPPORT.text, NOISE_A.text, other.text, NOISE_B.text}
