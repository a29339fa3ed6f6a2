"""The ForceBench annotation workflow (paper appendices B–C, issue 4).

1. ``export_sheet``: drafted candidates go to a CSV sheet with empty ``annotation_*`` fields.
2. Two annotators fill in a copy each; ``read_sheet`` checks them (ids, decisions, axes, severities).
   An empty correction field keeps the drafted value.
3. ``cohen_kappa`` on the row decisions; ``write_adjudication_sheet`` lists the disagreements: the
   decisions differ, either says ``needs_discussion``, or both accept with different corrections.
4. ``apply_adjudication`` settles every row: both accept alike → kept as ``annotated`` (two people,
   no adjudicator); settled on the adjudication sheet with ``accept_force_gap`` → kept as
   ``adjudicated``; rejected by both or by the adjudicator → dropped; a disagreement the sheet leaves
   open → reported as unresolved and dropped.
5. ``cap_axes`` keeps at most N accepted rows per axis, ``stratified_split`` picks the evaluation set
   stratified by axis and source, ``locality_filter`` drops rows failing the locality lints, and
   ``construction_flow`` gives the paper's Table 4 accounting.

Every choice among rows uses ``stable_hash(seed, id)``, so it does not depend on input order.
"""

from __future__ import annotations

import csv
import hashlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from eviscope.core.errors import EviScopeError
from eviscope.suites.forcebench.lints import LOCALITY_LINTS, failed_lints
from eviscope.suites.forcebench.rows import AXES, FIELDS, source_group

__all__ = [
    "ANNOTATION_FIELDS",
    "BOUNDARY_TYPES",
    "DECISIONS",
    "Annotation",
    "Settled",
    "apply_adjudication",
    "cap_axes",
    "cohen_kappa",
    "construction_flow",
    "disagreements",
    "export_sheet",
    "flow_table",
    "locality_filter",
    "read_adjudication_sheet",
    "read_sheet",
    "stable_hash",
    "status_counts",
    "stratified_split",
    "write_adjudication_sheet",
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
_SHEET_ROW_FIELDS = tuple(name for name in FIELDS if name != "annotation_status")
_ADJUDICATION_FIELDS = tuple(f"adjudication_{name.removeprefix('annotation_')}" for name in ANNOTATION_FIELDS)

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


def stable_hash(seed: int, row_id: str) -> str:
    """The tie-breaking key of a row: independent of input order, fixed for a seed."""
    return hashlib.sha256(f"{seed}\x1f{row_id}".encode()).hexdigest()


def export_sheet(rows: Sequence[Row], path: Path) -> Path:
    """Write the annotation sheet: the candidate fields, then empty ``annotation_*`` fields."""
    path = Path(path)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=[*_SHEET_ROW_FIELDS, *ANNOTATION_FIELDS])
        writer.writeheader()
        for row in rows:
            writer.writerow(
                {**{name: row[name] for name in _SHEET_ROW_FIELDS}, **dict.fromkeys(ANNOTATION_FIELDS, "")}
            )
    return path


def _read_csv(path: Path, prefix: str, required: Iterable[str]) -> list[tuple[int, dict[str, str]]]:
    path = Path(path)
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            header = reader.fieldnames or []
            missing = [name for name in ("id", *required) if name not in header]
            if missing:
                raise EviScopeError(
                    f"{path}: not a ForceBench {prefix} sheet; missing columns {', '.join(missing)}"
                )
            return [(number, row) for number, row in enumerate(reader, start=2)]
    except OSError as err:
        raise EviScopeError(f"{path}: cannot read sheet ({err.strerror})") from err


def _parse_sheet(path: Path, prefix: str, candidates: Sequence[Row]) -> dict[str, Annotation]:
    fields = ANNOTATION_FIELDS if prefix == "annotation" else _ADJUDICATION_FIELDS
    known = {row["id"] for row in candidates}
    verdicts: dict[str, Annotation] = {}
    for number, raw in _read_csv(path, prefix, fields[:1]):
        where = f"{path}:{number}"
        row_id = (raw.get("id") or "").strip()
        if row_id not in known:
            raise EviScopeError(f"{where}: id {row_id!r} is not a candidate row")
        if row_id in verdicts:
            raise EviScopeError(f"{where}: id {row_id!r} appears twice")
        values = {name.split("_", 1)[1]: (raw.get(name) or "").strip() for name in fields}
        if prefix == "adjudication" and not values["decision"]:
            continue  # left open by the adjudicator
        try:
            verdicts[row_id] = Annotation.model_validate({"id": row_id, **values})
        except ValidationError as err:
            first = err.errors()[0]
            raise EviScopeError(f"{where}: field {prefix}_{first['loc'][0]}: {first['msg']}") from err
    missing = known - verdicts.keys() if prefix == "annotation" else set()
    if missing:
        raise EviScopeError(
            f"{path}: no annotation for ids {', '.join(sorted(missing)[:5])}"
            + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        )
    return verdicts


def read_sheet(path: Path, candidates: Sequence[Row]) -> dict[str, Annotation]:
    """One annotator's filled sheet; every candidate needs a decision, and no other id may appear."""
    return _parse_sheet(path, "annotation", candidates)


def read_adjudication_sheet(path: Path, candidates: Sequence[Row]) -> dict[str, Annotation]:
    """The adjudicator's verdicts; rows left without ``adjudication_decision`` stay open."""
    verdicts = _parse_sheet(path, "adjudication", candidates)
    for verdict in verdicts.values():
        if verdict.decision == "needs_discussion":
            raise EviScopeError(
                f"{path}: id {verdict.id!r}: adjudication must accept or reject, not needs_discussion"
            )
    return verdicts


def cohen_kappa(a: Mapping[str, Annotation], b: Mapping[str, Annotation]) -> float:
    """Cohen's kappa of two annotators' row decisions over the ids both annotated."""
    from sklearn.metrics import cohen_kappa_score  # here, not at import: every CLI command loads this module

    ids = sorted(a.keys() & b.keys())
    if not ids:
        raise EviScopeError("the two sheets share no annotated row")
    return float(
        cohen_kappa_score([a[i].decision for i in ids], [b[i].decision for i in ids], labels=list(DECISIONS))
    )


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


def write_adjudication_sheet(
    candidates: Sequence[Row], a: Mapping[str, Annotation], b: Mapping[str, Annotation], path: Path
) -> int:
    """Write the disagreements with both verdicts and empty ``adjudication_*`` fields; returns their count."""
    reasons = disagreements(candidates, a, b)
    verdict_fields = [name.removeprefix("annotation_") for name in ANNOTATION_FIELDS]
    header = [
        *_SHEET_ROW_FIELDS,
        "reason",
        *(f"a_{name}" for name in verdict_fields),
        *(f"b_{name}" for name in verdict_fields),
        *_ADJUDICATION_FIELDS,
    ]
    with Path(path).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=header)
        writer.writeheader()
        for row in candidates:
            if row["id"] not in reasons:
                continue
            out = {name: row[name] for name in _SHEET_ROW_FIELDS}
            out["reason"] = reasons[row["id"]]
            for who, verdicts in (("a", a), ("b", b)):
                verdict = verdicts[row["id"]].model_dump()
                out.update({f"{who}_{name}": verdict[name] for name in verdict_fields})
            out.update(dict.fromkeys(_ADJUDICATION_FIELDS, ""))
            writer.writerow(out)
    return len(reasons)


@dataclass
class Settled:
    """The outcome of adjudication: accepted rows and the ids dropped, by why."""

    rows: list[dict[str, Any]]
    rejected: list[str] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)


def apply_adjudication(
    candidates: Sequence[Row],
    a: Mapping[str, Annotation],
    b: Mapping[str, Annotation],
    adjudication: Mapping[str, Annotation],
) -> Settled:
    """Settle every candidate (see the module docstring); accepted rows keep candidate order."""
    reasons = disagreements(candidates, a, b)
    settled = Settled(rows=[])
    for row in candidates:
        row_id = row["id"]
        if row_id in reasons:
            verdict = adjudication.get(row_id)
            if verdict is None:
                settled.unresolved.append(row_id)
            elif verdict.decision == "accept_force_gap":
                settled.rows.append({**verdict.resolve(row), "annotation_status": "adjudicated"})
            else:
                settled.rejected.append(row_id)
        elif a[row_id].decision == "accept_force_gap":
            settled.rows.append({**a[row_id].resolve(row), "annotation_status": "annotated"})
        else:
            settled.rejected.append(row_id)
    return settled


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


def construction_flow(
    candidates: int, accepted: int, retained: int, eval_before_filter: int, eval_after_filter: int
) -> list[tuple[str, int]]:
    """The construction-flow accounting of the paper's Table 4 (plus the capped pool)."""
    return [
        ("Candidate rows entering double annotation", candidates),
        ("Accepted after adjudication and quality control", accepted),
        ("Retained after capping overrepresented axes", retained),
        ("Headline evaluation set before final locality filter", eval_before_filter),
        ("Final headline evaluation set after locality filter", eval_after_filter),
    ]


def flow_table(flow: Sequence[tuple[str, int]]) -> str:
    """The construction flow as a Markdown table.

    >>> print(flow_table([("Candidate rows", 3)]))
    | Counted set | Rows |
    | --- | ---: |
    | Candidate rows | 3 |
    """
    return "\n".join(
        ["| Counted set | Rows |", "| --- | ---: |", *(f"| {label} | {n} |" for label, n in flow)]
    )


def status_counts(rows: Iterable[Row]) -> dict[str, int]:
    """How many rows carry each ``annotation_status``."""
    return dict(Counter(row["annotation_status"] for row in rows))
