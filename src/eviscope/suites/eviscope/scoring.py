"""EviScope metrics (contract §4): row predicates, row and quartet metrics, and their 0/1 vectors.

One pass over (row, prediction) pairs computes every per-row quantity into numpy vectors; every
metric, overall and per variant, is then a masked mean or ratio of those vectors.

>>> row = {"id": "q1-sufficient", "quartet_id": "q1", "variant": "sufficient", "answers": ["2010"],
...        "expected_action": "answer", "supporting_doc_ids": ["d1"], "support_spans": []}
>>> pred = Prediction(id="q1-sufficient", action="answer", answer="in 2010", citations=["d1"])
>>> answer_ok(row, pred), source_ok(row, pred), success(row, pred)
(True, True, True)
>>> answer_ok(row, pred.model_copy(update={"answer": "10"}))
False
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from eviscope.core.errors import EviScopeError
from eviscope.core.metrics import names
from eviscope.core.normalize import contains, norm
from eviscope.suites.eviscope.metrics import METRICS
from eviscope.suites.eviscope.predictions import (
    BLOCK_LINES,
    POOL,
    Prediction,
    Predictions,
    gc_paused,
    load_predictions,
)
from eviscope.suites.eviscope.rows import ACTIONS, VARIANTS

__all__ = [
    "QUARTET_METRICS",
    "ROW_METRICS",
    "QuartetVectors",
    "RowVectors",
    "Scores",
    "answer_ok",
    "score",
    "score_predictions",
    "source_ok",
    "success",
]

ANSWER, ABSTAIN, FLAG_CONFLICT = (ACTIONS.index(a) for a in ("answer", "abstain", "flag_conflict"))
NO_ACTION = -1
"""The action code of a prediction with ``action: null``."""
_ACTION_CODE: dict[str | None, int] = {**{a: i for i, a in enumerate(ACTIONS)}, None: NO_ACTION}
_VARIANT_CODE = {v: i for i, v in enumerate(VARIANTS)}
CONFLICTING = _VARIANT_CODE["conflicting"]

ROW_METRICS: tuple[str, ...] = names(METRICS, level="row")
"""Row-level metrics of contract §4, in its order."""

QUARTET_METRICS: dict[str, tuple[str, ...]] = {
    "evidence_removal_sensitivity": ("sufficient", "insufficient"),
    "noise_robustness": ("sufficient", "noisy"),
    "conflict_sensitivity": ("sufficient", "conflicting"),
    "quartet_consistency": VARIANTS,
}
"""Each quartet metric and the variants whose rows must all succeed for a quartet to count (the keys
are the table's quartet metrics, in its order: ``tests/test_scoring.py`` checks it)."""

QUARTET_ABBREVIATIONS = {m.name: m.abbreviation for m in METRICS if m.level == "quartet"}

_USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "calls", "latency_s", "cost_usd")


# --- Row predicates (contract §4), one row at a time -------------------------------------------------


def answer_ok(row: Mapping[str, Any], pred: Prediction) -> bool:
    """``action == "answer"`` and the answer equals or contains a gold alias (normalized)."""
    return pred.action == "answer" and _answer_matches(row, pred.answer)


def _answer_matches(row: Mapping[str, Any], answer: str | None) -> bool:
    answer = answer or ""
    normalized = norm(answer)
    return any(normalized == norm(alias) or contains(answer, alias) for alias in row["answers"])


def source_ok(row: Mapping[str, Any], pred: Prediction) -> bool:
    """Some citation is one of the row's supporting documents."""
    supporting = row["supporting_doc_ids"]
    return any(cited in supporting for cited in pred.citations or ())


def success(row: Mapping[str, Any], pred: Prediction) -> bool:
    """Joint success: right answer from a right source, or the right non-answer action."""
    if row["expected_action"] == "answer":
        return answer_ok(row, pred) and source_ok(row, pred)
    return pred.action == row["expected_action"]


def _span_counts(
    row: Mapping[str, Any], quotes: Sequence[Mapping[str, str]] | None
) -> tuple[int, int, int, int]:
    """(quotes, quotes matching a gold span, gold spans, gold spans matched by a quote)."""
    gold = row["support_spans"]
    if not quotes:
        return 0, 0, len(gold), 0
    hits = [
        [
            q["doc_id"] == g["doc_id"] and (contains(q["text"], g["text"]) or contains(g["text"], q["text"]))
            for g in gold
        ]
        for q in quotes
    ]
    matching = sum(any(h) for h in hits)
    matched = sum(any(h[j] for h in hits) for j in range(len(gold)))
    return len(quotes), matching, len(gold), matched


# --- Vectors --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RowVectors:
    """Per-row quantities, aligned with the rows; codes index :data:`VARIANTS` and :data:`ACTIONS`."""

    ids: list[str]
    quartet_ids: list[str]
    variant: np.ndarray
    expected: np.ndarray
    action: np.ndarray
    """Action code, :data:`NO_ACTION` for ``action: null``."""
    answer_ok: np.ndarray
    source_ok: np.ndarray
    success: np.ndarray
    citations: np.ndarray
    unsupported_citations: np.ndarray
    quotes: np.ndarray
    matching_quotes: np.ndarray
    gold_spans: np.ndarray
    matched_gold_spans: np.ndarray
    """The counts from ``citations`` to here are 0 on rows not expected to answer, and unsigned, of the
    narrowest dtype that holds every row's (one byte unless some count passes 255)."""
    irrelevant_edit: np.ndarray
    """Whether the row's near-duplicate of the support disagrees only about another fact
    (``near_duplicate == "irrelevant_edit"``; False where the row does not say)."""
    usage: dict[str, np.ndarray]
    """Each usage field per row, 0 where it was not given."""


@dataclass(frozen=True)
class QuartetVectors:
    """Per-quartet success of each variant's row (columns in :data:`VARIANTS` order)."""

    quartet_ids: list[str]
    row_index: np.ndarray
    """``row_index[q, v]``: the row of quartet ``q`` and variant ``v``."""
    success: np.ndarray

    def holds(self, metric: str) -> np.ndarray:
        """The 0/1 vector of a quartet metric: do all its variants' rows succeed?"""
        columns = [VARIANTS.index(v) for v in QUARTET_METRICS[metric]]
        return self.success[:, columns].all(axis=1)


def _codes(values: Iterable[str], codes: Mapping[str, int], field: str, ids: Sequence[str]) -> np.ndarray:
    try:
        return np.fromiter((codes[v] for v in values), dtype=np.int8)
    except KeyError as err:
        bad = next(i for i, v in zip(ids, values, strict=True) if v not in codes)
        raise EviScopeError(
            f"row {bad}: field `{field}` is {err.args[0]!r}, not one of {', '.join(map(str, codes))}"
        ) from None


def row_vectors(rows: Sequence[Mapping[str, Any]], preds: Predictions | Sequence[Prediction]) -> RowVectors:
    """Every per-row quantity of contract §4 for predictions aligned with ``rows``, read column by
    column: actions and usage as whole columns, the rest a block of predictions at a time."""
    if not isinstance(preds, Predictions):
        preds = Predictions.from_models(preds)
    ids = [row["id"] for row in rows]
    n = len(rows)
    if len(preds) != n:
        raise ValueError(f"{len(preds)} predictions for {n} rows: join them first (load_predictions)")
    variant = _codes([row["variant"] for row in rows], _VARIANT_CODE, "variant", ids)
    expected = _codes([row["expected_action"] for row in rows], _ACTION_CODE, "expected_action", ids)
    irrelevant_edit = np.fromiter(
        (row.get("near_duplicate") == "irrelevant_edit" for row in rows), dtype=bool, count=n
    )
    table, row_of = preds.table, preds.row_of()
    action = np.empty(n, dtype=np.int8)
    codes = pc.index_in(table.column("action"), value_set=pa.array(ACTIONS), memory_pool=POOL)
    action[row_of] = pc.coalesce(codes, NO_ACTION, memory_pool=POOL).to_numpy()
    usage = np.zeros((n, len(_USAGE_FIELDS)), dtype=np.float64)
    for j, name in enumerate(_USAGE_FIELDS):
        values = pc.struct_field(table.column("usage"), name, memory_pool=POOL)
        # + 0.0: a usage of -0.0 counts as 0, as a missing one does
        usage[row_of, j] = pc.coalesce(values, 0, memory_pool=POOL).to_numpy() + 0.0

    ok_answer = np.zeros(n, dtype=bool)
    ok_source = np.zeros(n, dtype=bool)
    # citations, unsupported, quotes, matching, gold, matched: one byte each while they fit
    counts = np.zeros((n, 6), dtype=np.uint8)
    answerable = expected == ANSWER
    answered = action == ANSWER
    start = 0
    for batch in table.select(["answer", "citations", "quotes"]).to_batches(BLOCK_LINES):
        answers, citation_lists, quote_lists = (batch.column(k).to_pylist() for k in range(3))
        for k, i in enumerate(row_of[start : start + batch.num_rows].tolist()):
            row = rows[i]
            citations = citation_lists[k] or ()
            supporting = row["supporting_doc_ids"]
            unsupported = sum(cited not in supporting for cited in citations)
            ok_source[i] = len(citations) > unsupported
            if answered[i]:
                ok_answer[i] = _answer_matches(row, answers[k])
            if answerable[i]:
                row_counts = (len(citations), unsupported, *_span_counts(row, quote_lists[k]))
                try:
                    counts[i] = row_counts
                except OverflowError:  # a count over the dtype's range: widen the whole array
                    wider = np.promote_types(counts.dtype, np.min_scalar_type(max(row_counts)))
                    counts = counts.astype(wider)
                    counts[i] = row_counts
        start += batch.num_rows
    ok_success = np.where(answerable, ok_answer & ok_source, action == expected)
    return RowVectors(
        ids=ids,
        quartet_ids=[row["quartet_id"] for row in rows],
        variant=variant,
        expected=expected,
        action=action,
        answer_ok=ok_answer,
        source_ok=ok_source,
        success=ok_success,
        citations=counts[:, 0],
        unsupported_citations=counts[:, 1],
        quotes=counts[:, 2],
        matching_quotes=counts[:, 3],
        gold_spans=counts[:, 4],
        matched_gold_spans=counts[:, 5],
        irrelevant_edit=irrelevant_edit,
        usage={name: usage[:, j] for j, name in enumerate(_USAGE_FIELDS)},
    )


def quartet_vectors(v: RowVectors) -> QuartetVectors:
    """Group rows into quartets; every quartet must have exactly one row of each variant."""
    number: dict[str, int] = {}  # quartet id -> quartet number, in order of first appearance
    slot = np.fromiter(
        (number.setdefault(q, len(number)) for q in v.quartet_ids), dtype=np.int64, count=len(v.ids)
    )
    slot *= len(VARIANTS)
    slot += v.variant
    row_index = np.full((len(number), len(VARIANTS)), -1, dtype=np.int64)
    row_index.reshape(-1)[slot] = np.arange(len(v.ids))
    del slot
    if np.count_nonzero(row_index >= 0) < len(v.ids):  # two rows took one slot
        _name_duplicate(v)
    quartet_ids = list(number)
    incomplete = np.flatnonzero((row_index == -1).any(axis=1))
    if incomplete.size:
        named = ", ".join(
            f"{quartet_ids[q]} (no {'/'.join(VARIANTS[c] for c in np.flatnonzero(row_index[q] == -1))})"
            for q in incomplete[:5]
        )
        more = f", … +{incomplete.size - 5} more" if incomplete.size > 5 else ""
        raise EviScopeError(
            f"{incomplete.size} incomplete quartets: {named}{more}; quartet metrics need all four rows"
        )
    return QuartetVectors(quartet_ids=quartet_ids, row_index=row_index, success=v.success[row_index])


def _name_duplicate(v: RowVectors) -> None:
    """Raise the error naming the first row whose quartet already has a row of its variant."""
    seen: dict[tuple[str, int], int] = {}
    for i, key in enumerate(zip(v.quartet_ids, v.variant.tolist(), strict=True)):
        if key in seen:
            quartet, code = key
            raise EviScopeError(
                f"quartet {quartet} has two {VARIANTS[code]} rows ({v.ids[seen[key]]}, {v.ids[i]})"
            )
        seen[key] = i


# --- Metrics --------------------------------------------------------------------------------------


def _ratio(num: float, den: float) -> float:
    return float(num / den) if den else 0.0


def _f1(p: float, r: float) -> float:
    return _ratio(2 * p * r, p + r)


def _total(values: np.ndarray) -> float:
    """The correctly rounded sum of ``values``, the same whatever the order of the rows (a plain
    floating-point sum of latencies or costs rounds differently when the rows come in another order).
    The values are handed to :func:`math.fsum` as Python floats a block at a time, not as one list
    (32 bytes a row)."""
    blocks = range(0, len(values), BLOCK_LINES)
    return math.fsum(itertools.chain.from_iterable(values[i : i + BLOCK_LINES].tolist() for i in blocks))


def row_metrics(v: RowVectors, mask: np.ndarray | None = None) -> dict[str, float]:
    """Row-level metrics of contract §4 over the rows in ``mask`` (all rows by default).

    A metric appears only where it is defined: the rows it is taken over exist among the masked
    rows (answerable rows for the answer/source/span metrics, rows whose near-duplicate disagrees
    only about another fact for the false-conflict rate, rows expected to abstain for the abstention
    metrics, conflicting rows for the conflict metrics, rows not expected to answer for the
    hallucination rate): a metric left out is not applicable (the harnesses give NaN, the tables —). An empty ratio inside a defined metric is 0, as contract §4 says for the
    unsupported-citation rate and span F1 (and as for the abstention precision with no abstention).
    """
    mask = np.ones(len(v.ids), dtype=bool) if mask is None else mask
    out: dict[str, float] = {}
    answerable = mask & (v.expected == ANSWER)
    n_answerable = int(answerable.sum())
    if n_answerable:
        a, s = v.answer_ok[answerable], v.source_ok[answerable]
        out["answer_accuracy"] = float(a.mean())
        out["source_accuracy"] = float(s.mean())
        out["right_answer_wrong_source"] = float((a & ~s).mean())
        out["right_source_wrong_answer"] = float((s & ~a).mean())
        answered = answerable & (v.action == ANSWER)
        out["unsupported_citation_rate"] = _ratio(
            v.unsupported_citations[answered].sum(), v.citations[answered].sum()
        )
        precision = _ratio(v.matching_quotes[answerable].sum(), v.quotes[answerable].sum())
        recall = _ratio(v.matched_gold_spans[answerable].sum(), v.gold_spans[answerable].sum())
        out["span_precision"], out["span_recall"], out["span_f1"] = precision, recall, _f1(precision, recall)
    edited = mask & v.irrelevant_edit
    if edited.any():
        out["false_conflict_rate"] = float((v.action[edited] == FLAG_CONFLICT).mean())
    expected_abstain = mask & (v.expected == ABSTAIN)
    if expected_abstain.any():
        predicted_abstain = mask & (v.action == ABSTAIN)
        hits = (expected_abstain & predicted_abstain).sum()
        precision = _ratio(hits, predicted_abstain.sum())
        recall = _ratio(hits, expected_abstain.sum())
        out["abstention_precision"], out["abstention_recall"] = precision, recall
        out["abstention_f1"] = _f1(precision, recall)
    conflicting = mask & (v.variant == CONFLICTING)
    if conflicting.any():
        out["conflict_accuracy"] = float((v.action[conflicting] == FLAG_CONFLICT).mean())
        out["conflict_blind_answering"] = float((v.action[conflicting] == ANSWER).mean())
    not_answerable = mask & (v.expected != ANSWER)
    if not_answerable.any():
        out["hallucination_rate"] = float((v.action[not_answerable] == ANSWER).mean())
    if mask.any():
        n = int(mask.sum())
        out["joint_success"] = float(v.success[mask].mean())
        for name in ("prompt_tokens", "completion_tokens", "calls", "latency_s"):
            out[f"avg_{name}"] = _total(v.usage[name][mask]) / n
        out["total_cost_usd"] = _total(v.usage["cost_usd"][mask])
        # With no calls recorded (no usage given) the utility is the joint success itself.
        calls = out["avg_calls"]
        out["utility_per_call"] = out["joint_success"] / calls if calls else out["joint_success"]
    return {name: out[name] for name in ROW_METRICS if name in out}


def quartet_metrics(q: QuartetVectors) -> dict[str, float]:
    """ERS, NR, CS and QCS: the share of quartets whose listed variants all succeed."""
    return {name: float(q.holds(name).mean()) if q.quartet_ids else 0.0 for name in QUARTET_METRICS}


@dataclass(frozen=True)
class Scores:
    """Every contract §4 metric of one prediction set, and the vectors they come from."""

    rows: RowVectors
    quartets: QuartetVectors
    overall: dict[str, float]
    """Row metrics over all rows, then the quartet metrics."""
    per_variant: dict[str, dict[str, float]]
    """Row metrics over each variant's rows, where defined."""

    def action_confusion(self) -> dict[str, dict[str, int]]:
        """Per variant, how many rows got each predicted action (``null`` for unparsable)."""
        labels = {**{i: a for i, a in enumerate(ACTIONS)}, NO_ACTION: "null"}
        out = {}
        for code, variant in enumerate(VARIANTS):
            counts = np.bincount(self.rows.action[self.rows.variant == code] + 1, minlength=len(ACTIONS) + 1)
            out[variant] = {labels[i - 1]: int(counts[i]) for i in (1, 2, 3, 0)}
        return out

    def vectors(self) -> dict[str, dict[str, list]]:
        """The per-row and per-quartet 0/1 vectors, as JSON-ready lists."""
        r, q = self.rows, self.quartets
        return {
            "rows": {
                "id": r.ids,
                "quartet_id": r.quartet_ids,
                "variant": [VARIANTS[c] for c in r.variant.tolist()],
                "answer_ok": r.answer_ok.astype(int).tolist(),
                "source_ok": r.source_ok.astype(int).tolist(),
                "success": r.success.astype(int).tolist(),
            },
            "quartets": {
                "quartet_id": q.quartet_ids,
                **{name: q.holds(name).astype(int).tolist() for name in QUARTET_METRICS},
            },
        }

    def to_dict(self, vectors: bool = False) -> dict[str, Any]:
        """Overall metrics at the top level, ``per_variant``, counts, and optionally ``vectors``."""
        out: dict[str, Any] = {
            **self.overall,
            "per_variant": self.per_variant,
            "n_rows": len(self.rows.ids),
            "n_quartets": len(self.quartets.quartet_ids),
        }
        if vectors:
            out["vectors"] = self.vectors()
        return out


def score_predictions(rows: Sequence[Mapping[str, Any]], preds: Predictions | Sequence[Prediction]) -> Scores:
    """Score predictions already validated and aligned with ``rows`` (see :func:`load_predictions`)."""
    with gc_paused():
        v = row_vectors(rows, preds)
        q = quartet_vectors(v)
    per_variant = {}
    for code, variant in enumerate(VARIANTS):
        in_variant = v.variant == code
        if in_variant.any():
            per_variant[variant] = row_metrics(v, in_variant)
    return Scores(
        rows=v, quartets=q, overall={**row_metrics(v), **quartet_metrics(q)}, per_variant=per_variant
    )


def score(
    rows: Sequence[Mapping[str, Any]],
    predictions: str | Path | Iterable[Mapping[str, Any] | Prediction],
    source: str | None = None,
) -> Scores:
    """Validate ``predictions`` (a JSONL file or contract §3 objects), join them to ``rows``, score them."""
    return score_predictions(rows, load_predictions(predictions, rows, source=source))
