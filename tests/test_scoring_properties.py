"""Property-based tests of the EviScope scoring core (contract §4) on random valid quartets and predictions.

Rows are built with ``eviscope_fixtures.quartet`` (random gold aliases, conflict answer and optional
second alias); predictions are random valid contract §3 objects that mix right and wrong actions,
gold, partial and wrong answers, supporting, noise and unknown citations, matching and stray quotes,
and partial usage. The properties:

- every rate is in [0, 1], averages and costs are non-negative;
- an independent, literal implementation of contract §4 (:func:`reference`) gives every metric, overall
  and for the rows of each variant alone;
- shuffling rows and predictions changes no metric and no per-row or per-quartet 0/1 value;
- the oracle reference system scores 1.0 on every success metric and 0.0 on every failure rate;
- overall row metrics are the row-weighted (or, for the micro ratios, denominator-weighted)
  combination of the per-variant figures, and the quartet vectors are conjunctions of row success.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from eviscope_fixtures import quartet
from hypothesis import given, settings
from hypothesis import strategies as st

from eviscope.core.normalize import contains, norm
from eviscope.suites.eviscope.reference_systems import oracle
from eviscope.suites.eviscope.rows import ACTIONS, NEAR_DUPLICATES, VARIANTS
from eviscope.suites.eviscope.scoring import QUARTET_METRICS, ROW_METRICS, Scores, score

SETTINGS = settings(deadline=None, max_examples=40)

RATES = [
    name for name in ROW_METRICS if not name.startswith(("avg_", "total_")) and name != "utility_per_call"
] + list(QUARTET_METRICS)
"""Metrics that are shares or ratios of counts: every one must lie in [0, 1]."""

SUCCESS_METRICS = [
    "answer_accuracy",
    "source_accuracy",
    "span_precision",
    "span_recall",
    "span_f1",
    "abstention_precision",
    "abstention_recall",
    "abstention_f1",
    "conflict_accuracy",
    "joint_success",
    *QUARTET_METRICS,
]
FAILURE_METRICS = [
    "right_answer_wrong_source",
    "right_source_wrong_answer",
    "unsupported_citation_rate",
    "conflict_blind_answering",
    "hallucination_rate",
]

# A small vocabulary so that aliases, answers and quotes often overlap, contain one another or
# collide after normalization (articles, punctuation, case).
WORDS = ["1066", "2010", "10", "Paris", "paris", "Denver", "Broncos", "river", "King", "the", "of"]


@st.composite
def phrases(draw: st.DrawFn) -> str:
    """A phrase of 1-3 vocabulary words with at least one word that survives normalization."""
    words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3))
    phrase = " ".join(words)
    return phrase if norm(phrase) else phrase + " river"


@st.composite
def datasets(draw: st.DrawFn) -> list[dict[str, Any]]:
    """1-5 complete quartets of contract §2 rows with random aliases and conflict answers."""
    rows = []
    for n in range(1, draw(st.integers(1, 5)) + 1):
        aliases = draw(st.lists(phrases(), min_size=1, max_size=3, unique_by=norm))
        conflict = draw(phrases())
        if any(norm(conflict) == norm(alias) for alias in aliases):
            conflict = "Lyon"  # not in the vocabulary, so not an alias
        quartet_rows = quartet(n, aliases[0], conflict)
        for row in quartet_rows:
            row["answers"] = list(aliases)
            kind = draw(st.sampled_from([None, *NEAR_DUPLICATES]))
            if kind is not None:  # an optional field: absent, or any of its values
                row["near_duplicate"] = kind
        rows += quartet_rows
    return rows


def _shown_ids(row: Mapping[str, Any]) -> list[str]:
    return [doc["doc_id"] for doc in row["documents"]]


def _inexact(top: float) -> st.SearchStrategy[float]:
    """Floats in [0, top] that binary cannot represent exactly, so that sums round differently by order."""
    return st.integers(0, 9973).map(lambda k: k * top / 9973)


@st.composite
def prediction_for(draw: st.DrawFn, row: Mapping[str, Any], costly: bool = False) -> dict[str, Any]:
    """A random valid contract §3 prediction for ``row`` (optional fields absent, null or set).

    ``costly``: every prediction reports a latency and a cost that binary floats cannot represent.
    """
    pred: dict[str, Any] = {"id": row["id"], "action": draw(st.sampled_from([*ACTIONS, None]))}
    answer = st.one_of(
        st.none(),
        st.sampled_from(row["answers"]),
        st.sampled_from(row["answers"]).map(lambda a: f"It was in {a.upper()}!"),
        st.just(row["conflict_answer"] or "river"),
        phrases(),
        st.just(""),
    )
    doc_ids = st.sampled_from([*_shown_ids(row), "doc-unknown"])
    texts = [doc["text"] for doc in row["documents"]] + [span["text"] for span in row["support_spans"]]
    quote_text = st.one_of(
        st.sampled_from(texts),
        st.sampled_from(texts).map(lambda t: " ".join(t.split()[2:6])),  # a fragment
        phrases(),
    )
    quote = st.fixed_dictionaries({"doc_id": doc_ids, "text": quote_text})
    usage = st.fixed_dictionaries(
        {},
        optional={
            "prompt_tokens": st.none() | st.integers(0, 2000),
            "completion_tokens": st.none() | st.integers(0, 200),
            "calls": st.none() | st.integers(0, 3),
            "latency_s": st.none() | st.floats(0, 10, allow_nan=False) | _inexact(10),
            "cost_usd": st.none() | st.floats(0, 0.01, allow_nan=False) | _inexact(0.01),
        },
    )
    for field, values in (
        ("answer", answer),
        ("citations", st.none() | st.lists(doc_ids, max_size=3)),
        ("quotes", st.none() | st.lists(quote, max_size=3)),
        ("usage", st.none() | usage),
    ):
        if draw(st.booleans()):
            pred[field] = draw(values)
    if costly:
        pred["usage"] = {
            **(pred.get("usage") or {}),
            "latency_s": draw(_inexact(10)),
            "cost_usd": draw(_inexact(0.01)),
        }
    return pred


@st.composite
def scored_sets(draw: st.DrawFn, costly: bool = False) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rows = draw(datasets())
    return rows, [draw(prediction_for(row, costly)) for row in rows]


# --- A literal implementation of contract §4 -----------------------------------------------------------


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def _answer_ok(row: Mapping[str, Any], pred: Mapping[str, Any]) -> bool:
    if pred["action"] != "answer":
        return False
    answer = pred.get("answer") or ""
    return any(norm(answer) == norm(a) or contains(answer, a) for a in row["answers"])


def _source_ok(row: Mapping[str, Any], pred: Mapping[str, Any]) -> bool:
    citations = pred.get("citations") or []
    return bool(citations) and any(c in row["supporting_doc_ids"] for c in citations)


def _success(row: Mapping[str, Any], pred: Mapping[str, Any]) -> bool:
    if row["expected_action"] == "answer":
        return _answer_ok(row, pred) and _source_ok(row, pred)
    return pred["action"] == row["expected_action"]


def _quote_matches(quote: Mapping[str, Any], span: Mapping[str, Any]) -> bool:
    return quote["doc_id"] == span["doc_id"] and (
        contains(quote["text"], span["text"]) or contains(span["text"], quote["text"])
    )


def _usage(pred: Mapping[str, Any], field: str) -> float:
    return (pred.get("usage") or {}).get(field) or 0


def reference(rows: Sequence[Mapping[str, Any]], preds: Mapping[str, Mapping[str, Any]]) -> dict[str, float]:
    """contract §4 row metrics over ``rows``, each present only where the rows it is taken over exist."""
    pairs = [(row, preds[row["id"]]) for row in rows]
    out: dict[str, float] = {}
    answerable = [(r, p) for r, p in pairs if r["expected_action"] == "answer"]
    if answerable:
        a = [_answer_ok(r, p) for r, p in answerable]
        s = [_source_ok(r, p) for r, p in answerable]
        out["answer_accuracy"] = sum(a) / len(a)
        out["source_accuracy"] = sum(s) / len(s)
        out["right_answer_wrong_source"] = sum(x and not y for x, y in zip(a, s, strict=True)) / len(a)
        out["right_source_wrong_answer"] = sum(y and not x for x, y in zip(a, s, strict=True)) / len(a)
        cited = [(r, c) for r, p in answerable if p["action"] == "answer" for c in p.get("citations") or []]
        unsupported = sum(c not in r["supporting_doc_ids"] for r, c in cited)
        out["unsupported_citation_rate"] = _ratio(unsupported, len(cited))
        quotes = matching = gold = matched = 0
        for r, p in answerable:
            qs, spans = p.get("quotes") or [], r["support_spans"]
            quotes += len(qs)
            matching += sum(any(_quote_matches(q, g) for g in spans) for q in qs)
            gold += len(spans)
            matched += sum(any(_quote_matches(q, g) for q in qs) for g in spans)
        precision, recall = _ratio(matching, quotes), _ratio(matched, gold)
        out["span_precision"], out["span_recall"] = precision, recall
        out["span_f1"] = _ratio(2 * precision * recall, precision + recall)
    if any(r["expected_action"] == "abstain" for r, _ in pairs):
        predicted = sum(p["action"] == "abstain" for _, p in pairs)
        expected = sum(r["expected_action"] == "abstain" for r, _ in pairs)
        hits = sum(p["action"] == r["expected_action"] == "abstain" for r, p in pairs)
        precision, recall = _ratio(hits, predicted), _ratio(hits, expected)
        out["abstention_precision"], out["abstention_recall"] = precision, recall
        out["abstention_f1"] = _ratio(2 * precision * recall, precision + recall)
    conflicting = [p for r, p in pairs if r["variant"] == "conflicting"]
    if conflicting:
        out["conflict_accuracy"] = sum(p["action"] == "flag_conflict" for p in conflicting) / len(conflicting)
        out["conflict_blind_answering"] = sum(p["action"] == "answer" for p in conflicting) / len(conflicting)
    edited = [p for r, p in pairs if r.get("near_duplicate") == "irrelevant_edit"]
    if edited:
        out["false_conflict_rate"] = sum(p["action"] == "flag_conflict" for p in edited) / len(edited)
    not_answerable = [p for r, p in pairs if r["expected_action"] != "answer"]
    if not_answerable:
        out["hallucination_rate"] = sum(p["action"] == "answer" for p in not_answerable) / len(not_answerable)
    if pairs:
        n = len(pairs)
        out["joint_success"] = sum(_success(r, p) for r, p in pairs) / n
        for field in ("prompt_tokens", "completion_tokens", "calls", "latency_s"):
            out[f"avg_{field}"] = sum(_usage(p, field) for _, p in pairs) / n
        out["total_cost_usd"] = sum(_usage(p, "cost_usd") for _, p in pairs)
        calls = out["avg_calls"]
        out["utility_per_call"] = out["joint_success"] / calls if calls else out["joint_success"]
    return out


SPEC_QUARTETS = {
    "evidence_removal_sensitivity": ("sufficient", "insufficient"),
    "noise_robustness": ("sufficient", "noisy"),
    "conflict_sensitivity": ("sufficient", "conflicting"),
    "quartet_consistency": ("sufficient", "noisy", "insufficient", "conflicting"),
}
"""contract §4: the variants whose rows must all succeed for a quartet to count, written out here."""


def reference_quartets(rows: Sequence[Mapping[str, Any]], preds: Mapping[str, Any]) -> dict[str, float]:
    """contract §4 quartet metrics: the share of quartets whose listed variants' rows all succeed."""
    ok = {(r["quartet_id"], r["variant"]): _success(r, preds[r["id"]]) for r in rows}
    quartets = {r["quartet_id"] for r in rows}
    return {
        name: sum(all(ok[q, v] for v in variants) for q in quartets) / len(quartets)
        for name, variants in SPEC_QUARTETS.items()
    }


def _approx(expected: Mapping[str, float]) -> Any:
    return pytest.approx(dict(expected), rel=1e-9, abs=1e-12)


def _by_id(preds: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {p["id"]: p for p in preds}


# --- Properties ------------------------------------------------------------------------------------


@SETTINGS
@given(scored_sets())
def test_rates_lie_in_the_unit_interval_and_amounts_are_not_negative(case):
    rows, preds = case
    result = score(rows, preds)
    for figures in (result.overall, *result.per_variant.values()):
        for name, value in figures.items():
            assert math.isfinite(value), name
            if name in RATES:
                assert 0.0 <= value <= 1.0, (name, value)
            else:
                assert value >= 0.0, (name, value)
    # complete quartets: every metric, the false-conflict rate where some row is an irrelevant edit
    edited = any(row.get("near_duplicate") == "irrelevant_edit" for row in rows)
    not_applicable = set() if edited else {"false_conflict_rate"}
    assert set(result.overall) == (set(ROW_METRICS) - not_applicable) | set(QUARTET_METRICS)
    assert set(result.per_variant) == set(VARIANTS)


@SETTINGS
@given(scored_sets())
def test_every_metric_matches_a_literal_reading_of_the_spec(case):
    rows, preds = case
    result = score(rows, preds)
    by_id = _by_id(preds)
    assert result.overall == _approx({**reference(rows, by_id), **reference_quartets(rows, by_id)})
    assert result.rows.success.tolist() == [_success(r, by_id[r["id"]]) for r in rows]
    assert result.rows.answer_ok.tolist() == [_answer_ok(r, by_id[r["id"]]) for r in rows]


@SETTINGS
@given(scored_sets())
def test_per_variant_figures_are_those_of_the_variants_rows_alone(case):
    rows, preds = case
    result = score(rows, preds)
    by_id = _by_id(preds)
    for variant in VARIANTS:
        mine = [row for row in rows if row["variant"] == variant]
        assert result.per_variant[variant] == _approx(reference(mine, by_id)), variant


def _vectors_by_key(result: Scores) -> tuple[dict, dict]:
    vectors = result.vectors()
    rows, quartets = vectors["rows"], vectors["quartets"]
    per_row = {
        rid: (a, s, ok)
        for rid, a, s, ok in zip(
            rows["id"], rows["answer_ok"], rows["source_ok"], rows["success"], strict=True
        )
    }
    per_quartet = {
        qid: tuple(quartets[name][i] for name in QUARTET_METRICS)
        for i, qid in enumerate(quartets["quartet_id"])
    }
    return per_row, per_quartet


@SETTINGS
@given(st.booleans().flatmap(scored_sets), st.randoms(use_true_random=False))
def test_row_and_prediction_order_change_nothing(case, rng: random.Random):
    """Bit for bit: a float sum must not round differently when the rows come in another order."""
    rows, preds = case
    result = score(rows, preds)
    shuffled_rows, shuffled_preds = rows[:], preds[:]
    rng.shuffle(shuffled_rows)
    rng.shuffle(shuffled_preds)
    again = score(shuffled_rows, shuffled_preds)
    assert again.overall == result.overall
    assert again.per_variant.keys() == result.per_variant.keys()
    for variant, figures in result.per_variant.items():
        assert again.per_variant[variant] == figures, variant
    assert _vectors_by_key(again) == _vectors_by_key(result)
    assert again.action_confusion() == result.action_confusion()


@SETTINGS
@given(datasets(), st.randoms(use_true_random=False))
def test_the_oracle_succeeds_everywhere(rows, rng: random.Random):
    preds = oracle(rows)
    rng.shuffle(preds)
    result = score(rows, preds)
    for figures in (result.overall, *result.per_variant.values()):
        for name in SUCCESS_METRICS:
            if name in figures:
                assert figures[name] == 1.0, name
        for name in FAILURE_METRICS:
            if name in figures:
                assert figures[name] == 0.0, name
    assert all(name in result.overall for name in SUCCESS_METRICS + FAILURE_METRICS)
    assert result.rows.success.all()


def _weights(rows: Sequence[Mapping[str, Any]], by_id: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    """Per variant, the size of each metric's domain: the weight of that variant in the overall figure."""
    out: dict[str, dict[str, float]] = {}
    for variant in VARIANTS:
        mine = [(r, by_id[r["id"]]) for r in rows if r["variant"] == variant]
        answerable = [(r, p) for r, p in mine if r["expected_action"] == "answer"]
        rows_n = len(mine)
        out[variant] = {
            **dict.fromkeys(["answer_accuracy", "source_accuracy"], len(answerable)),
            **dict.fromkeys(["right_answer_wrong_source", "right_source_wrong_answer"], len(answerable)),
            "unsupported_citation_rate": sum(
                len(p.get("citations") or []) for _, p in answerable if p["action"] == "answer"
            ),
            "span_precision": sum(len(p.get("quotes") or []) for _, p in answerable),
            "span_recall": sum(len(r["support_spans"]) for r, _ in answerable),
            "abstention_recall": sum(r["expected_action"] == "abstain" for r, _ in mine),
            "conflict_accuracy": rows_n if variant == "conflicting" else 0,
            "conflict_blind_answering": rows_n if variant == "conflicting" else 0,
            "hallucination_rate": sum(r["expected_action"] != "answer" for r, _ in mine),
            **dict.fromkeys(
                ["joint_success", *(f"avg_{f}" for f in ("prompt_tokens", "completion_tokens"))], rows_n
            ),
            **dict.fromkeys(["avg_calls", "avg_latency_s"], rows_n),
        }
    return out


@SETTINGS
@given(scored_sets())
def test_overall_figures_combine_the_per_variant_figures(case):
    rows, preds = case
    result = score(rows, preds)
    weights = _weights(rows, _by_id(preds))
    overall, per_variant = result.overall, result.per_variant
    for name in weights["sufficient"]:
        total = sum(weights[v][name] for v in VARIANTS)
        combined = sum(weights[v][name] * per_variant[v][name] for v in VARIANTS if weights[v][name])
        assert overall[name] == pytest.approx(_ratio(combined, total), rel=1e-9, abs=1e-12), name
    cost = sum(per_variant[v]["total_cost_usd"] for v in VARIANTS)
    assert overall["total_cost_usd"] == pytest.approx(cost, rel=1e-9, abs=1e-15)
    # Every expected abstention is an insufficient row: the recall is that variant's.
    assert overall["abstention_recall"] == per_variant["insufficient"]["abstention_recall"]
    for figures in (overall, *per_variant.values()):
        for prefix in ("span", "abstention"):
            if f"{prefix}_f1" in figures:
                p, r = figures[f"{prefix}_precision"], figures[f"{prefix}_recall"]
                assert figures[f"{prefix}_f1"] == pytest.approx(_ratio(2 * p * r, p + r)), prefix
    # Quartet metrics: each quartet holds exactly when all its listed variants' rows succeed.
    q = result.quartets
    success_of = dict(zip(result.rows.ids, result.rows.success.tolist(), strict=True))
    for i, qid in enumerate(q.quartet_ids):
        for name, variants in SPEC_QUARTETS.items():
            assert bool(q.holds(name)[i]) == all(success_of[f"{qid}-{v}"] for v in variants), (qid, name)
        assert [result.rows.ids[j] for j in q.row_index[i]] == [f"{qid}-{v}" for v in VARIANTS]
    qcs = overall["quartet_consistency"]
    assert qcs <= min(overall[name] for name in QUARTET_METRICS)
    assert qcs <= min(per_variant[v]["joint_success"] for v in VARIANTS)
