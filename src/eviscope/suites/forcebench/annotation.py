"""The ForceBench verdicts of the Space's annotation tab, and the row choices of the adjudication.

The Space's tab records an :class:`Annotation` (a decision, corrected fields, a rejection category) per
row; ``cohen_kappa`` and ``disagreements`` give its agreement and adjudication queue. The blind
two-pass sheets of ``eviscope forcebench sheet|agreement|adjudicate`` are :mod:`.sheets`, which uses the
row choices here: ``cap_axes`` keeps at most N rows per axis, ``stratified_split`` picks the evaluation
set stratified by axis and source, ``locality_filter`` drops rows failing the locality lints, and
``flow_table`` prints the paper's Table 4 accounting.

Every choice among rows uses ``stable_hash(seed, id)``, so it does not depend on input order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, field_validator

from eviscope.core import stats
from eviscope.core.errors import EviScopeError
from eviscope.core.stats import stable_hash
from eviscope.core.tables import markdown_table
from eviscope.suites.forcebench.lints import LOCALITY_LINTS, failed_lints
from eviscope.suites.forcebench.rows import AXES, source_group

__all__ = [
    "ANNOTATION_FIELDS",
    "BOUNDARY_TYPES",
    "DECISIONS",
    "Annotation",
    "cap_axes",
    "cohen_kappa",
    "disagreements",
    "flow_table",
    "locality_filter",
    "status_counts",
    "stratified_split",
]

DECISIONS: tuple[str, ...] = ("accept_force_gap", "reject_not_force_gap", "needs_discussion")
BOUNDARY_TYPES: tuple[str, ...] = (
    "",
    "unsupported_calibrated",
    "supported_raised",
    "nonlocal",
    "wrong_entity_or_topic",
    "duplicate",
    "ordinary_addition",
    "ambiguous",
    "span_not_decisive",
)
"""Allowed ``annotation_boundary_type`` values (appendix E's rejection categories; empty for none)."""

CORRECTABLE: tuple[str, ...] = (
    "evidence_span",
    "calibrated_claim",
    "raised_claim",
    "repair",
    "axis",
    "severity",
)
ANNOTATION_FIELDS: tuple[str, ...] = (
    "annotation_decision",
    *(f"annotation_{name}" for name in CORRECTABLE),
    "annotation_boundary_type",
    "annotation_notes",
)

Row = Mapping[str, Any]


class Annotation(BaseModel):
    """One annotator's (or the adjudicator's) verdict on one candidate row."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str
    decision: Literal["accept_force_gap", "reject_not_force_gap", "needs_discussion"]
    evidence_span: str = ""
    calibrated_claim: str = ""
    raised_claim: str = ""
    repair: str = ""
    axis: Literal["", "relation", "modality", "scope", "temporal", "numeric"] = ""
    severity: Literal["", "1", "2", "3"] = ""
    boundary_type: str = ""
    notes: str = ""

    @field_validator("boundary_type")
    @classmethod
    def _known_boundary(cls, value: str) -> str:
        if value not in BOUNDARY_TYPES:
            raise ValueError(f"must be one of {', '.join(b for b in BOUNDARY_TYPES if b)} or empty")
        return value

    def resolve(self, candidate: Row) -> dict[str, Any]:
        """The candidate row with this verdict's corrections applied (empty fields keep the draft)."""
        row = dict(candidate)
        for name in CORRECTABLE:
            value = getattr(self, name)
            if value:
                row[name] = int(value) if name == "severity" else value
        return row


def cohen_kappa(a: Mapping[str, Annotation], b: Mapping[str, Annotation]) -> float:
    """Cohen's kappa of two annotators' row decisions over the ids both annotated."""
    ids = sorted(a.keys() & b.keys())
    if not ids:
        raise EviScopeError("the two sheets share no annotated row")
    value = stats.cohen_kappa([a[i].decision for i in ids], [b[i].decision for i in ids], DECISIONS)
    return float("nan") if value is None else value


def disagreements(
    candidates: Sequence[Row], a: Mapping[str, Annotation], b: Mapping[str, Annotation]
) -> dict[str, str]:
    """Rows the adjudicator must settle, each with the reason."""
    reasons = {}
    for row in candidates:
        x, y = a[row["id"]], b[row["id"]]
        if x.decision != y.decision:
            reasons[row["id"]] = f"decisions differ: {x.decision} / {y.decision}"
        elif x.decision == "needs_discussion":
            reasons[row["id"]] = "both need discussion"
        elif x.decision == "accept_force_gap" and x.resolve(row) != y.resolve(row):
            changed = [n for n in CORRECTABLE if x.resolve(row)[n] != y.resolve(row)[n]]
            reasons[row["id"]] = f"both accept; corrections differ in {', '.join(changed)}"
    return reasons


def cap_axes(rows: Sequence[Row], max_per_axis: int, seed: int = 0) -> list[dict[str, Any]]:
    """At most ``max_per_axis`` rows per axis, the smallest ``stable_hash`` first; output sorted by id."""
    kept: list[dict[str, Any]] = []
    for axis in AXES:
        mine = sorted((r for r in rows if r["axis"] == axis), key=lambda r: stable_hash(seed, r["id"]))
        kept.extend(dict(r) for r in mine[:max_per_axis])
    return sorted(kept, key=lambda r: r["id"])


def _quotas(sizes: Mapping[str, int], total: int) -> dict[str, int]:
    """Largest-remainder allocation of ``total`` over strata in proportion to ``sizes``, capped by size."""
    n = sum(sizes.values())
    if total >= n:
        return dict(sizes)
    exact = {k: total * v / n for k, v in sizes.items()}
    quota = {k: int(x) for k, x in exact.items()}
    for k in sorted(sizes, key=lambda k: (-(exact[k] - quota[k]), k))[: total - sum(quota.values())]:
        quota[k] += 1
    return quota


def stratified_split(
    rows: Sequence[Row], per_axis: int, seed: int = 0
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(evaluation set, rest): ``per_axis`` rows per axis, spread over sources in proportion to their
    share of the axis, the smallest ``stable_hash`` first within each (axis, source). Both lists are
    sorted by id, so the split does not depend on input order."""
    chosen: set[str] = set()
    for axis in AXES:
        strata: dict[str, list[Row]] = {}
        for row in rows:
            if row["axis"] == axis:
                strata.setdefault(source_group(row["source"]), []).append(row)
        quota = _quotas({k: len(v) for k, v in strata.items()}, per_axis)
        for group, members in strata.items():
            members.sort(key=lambda r: stable_hash(seed, r["id"]))
            chosen.update(r["id"] for r in members[: quota[group]])
    ordered = sorted((dict(r) for r in rows), key=lambda r: r["id"])
    return [r for r in ordered if r["id"] in chosen], [r for r in ordered if r["id"] not in chosen]


def locality_filter(rows: Sequence[Row]) -> tuple[list[dict[str, Any]], dict[str, list[str]]]:
    """(rows passing every locality lint, {removed id: failed lints})."""
    kept, removed = [], {}
    for row in rows:
        failed = failed_lints(row, LOCALITY_LINTS)
        if failed:
            removed[row["id"]] = failed
        else:
            kept.append(dict(row))
    return kept, removed


def flow_table(flow: Sequence[tuple[str, int]]) -> str:
    """The construction flow as a Markdown table.

    >>> print(flow_table([("Candidate rows", 3)]))
    | Counted set    |   Rows |
    |----------------|--------|
    | Candidate rows |      3 |
    """
    return markdown_table(["Counted set", "Rows"], [[label, n] for label, n in flow], align=("left", "right"))


def status_counts(rows: Iterable[Row]) -> dict[str, int]:
    """How many rows carry each ``annotation_status``."""
    return dict(Counter(row["annotation_status"] for row in rows))
