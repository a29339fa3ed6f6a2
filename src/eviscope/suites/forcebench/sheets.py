"""Blind annotation sheets of ForceBench candidates, agreement and adjudication (contract §5, issue 24).

1. ``write_sheets``: one CSV sheet per annotation pass (``pass-A.csv``, ``pass-B.csv``), each holding
   every candidate, contrast pairs and controls alike, in its own seeded order, with the pair type
   hidden, and ``INSTRUCTIONS.md`` beside them. A sheet row is self-contained: the question, the
   evidence passage in full, the weaker claim (A) and the stronger one (B), the axis and what it means,
   and four yes/no questions (``QUESTIONS``).
2. Two annotators, who did not draft the rows and do not see each other's sheet, answer every
   question ``yes`` or ``no``. ``read_marks`` checks a filled sheet: every candidate once, every answer
   ``yes`` or ``no``.
3. A reader's marks give a verdict (``verdict``): ``contrast`` (A supported, B not, the change local
   and on its axis, both natural), ``licensed`` (the same, but B supported too) or ``reject``.
   ``agreement`` gives Cohen's kappa (:func:`eviscope.core.stats.cohen_kappa`) of the verdicts and of
   each question; ``write_adjudication`` lists the rows whose verdicts differ, both readers' marks
   beside empty ``adjudicated_*`` columns that the adjudicator answers with the same questions.
4. ``settle``: a row is kept when its final verdict (both readers', or the adjudicator's where they
   differ) is its drafted ``pair_type``. Kept rows are ``annotation_status: adjudicated``: they went
   through both passes, the agreement step and adjudication of any disagreement. The ``eval`` split
   is the paper's: kept contrast pairs capped per axis (``cap_axes``), ``eval_per_axis`` per axis drawn
   stratified by source (``stratified_split``), then the locality lints (``locality_filter``); plus every
   kept control that passes them. The other kept pairs are ``pool``; a row failing the locality lints
   is dropped, as are rejected rows and disagreements left open.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eviscope.core.errors import EviScopeError, id_text
from eviscope.core.sheets import checked_ids, read_sheet_lines
from eviscope.core.stats import cohen_kappa, stable_hash, text_fingerprint
from eviscope.suites.forcebench.annotation import cap_axes, locality_filter, stratified_split
from eviscope.suites.forcebench.rows import AXES, PAIR_TYPES

__all__ = [
    "ANSWERS",
    "AXIS_MEANINGS",
    "MARKS_COLUMNS",
    "PASSES",
    "QUESTIONS",
    "SHEET_COLUMNS",
    "Applied",
    "Marks",
    "Recorded",
    "Settled",
    "agreement",
    "apply_marks",
    "fingerprint",
    "read_adjudication",
    "read_marks",
    "read_marks_file",
    "settle",
    "split_counts",
    "verdict",
    "write_adjudication",
    "write_marks",
    "write_sheets",
]

PASSES: tuple[str, ...] = ("A", "B")
"""The two independent annotation passes; each sheet holds every candidate."""

ANSWERS: tuple[str, ...] = ("yes", "no")

QUESTIONS: dict[str, str] = {
    "a_supported": "Does the evidence passage support claim A, everything it says, as worded?",
    "b_supported": "Does the evidence passage support claim B, everything it says, as worded?",
    "local_on_axis": (
        "Do A and B differ only in one local wording change that makes B say more on the named axis "
        "(nothing else: no other entity, number, place, time or meaning changed)?"
    ),
    "natural": "Are both A and B English a person would write (not garbled, not odd)?",
}
"""The yes/no questions of a sheet, by column name (``q_<name>`` in the sheet)."""

AXIS_MEANINGS: dict[str, str] = {
    "relation": "association, correlation or contribution -> cause or determination",
    "modality": (
        "hedged, possible, forecast or advised -> certain, proven or obligatory (may -> will, is expected to -> "
        "will, should -> must)"
    ),
    "scope": "some, many, most, mainly -> all, only, in all cases (never by deleting a place or group)",
    "temporal": (
        "the time the claim holds moves: a dated or past state -> a present or undated one (as of 2019 -> "
        "currently, was -> is); a planned event -> one that has happened. A forecast made certain is "
        "modality, not temporal"
    ),
    "numeric": "a range, an approximation or a bound -> a point value (about 30% -> 30%)",
}
"""What a raise on each axis is, as the sheet states it (contract §5)."""

_SHOWN = ("item", "id", "axis", "axis_meaning", "question", "evidence", "claim_a", "claim_b")
_MARKS = tuple(f"q_{name}" for name in QUESTIONS)
SHEET_COLUMNS: tuple[str, ...] = (*_SHOWN, *_MARKS, "notes")
_ADJUDICATED = tuple(f"adjudicated_{name}" for name in _MARKS)

Row = Mapping[str, Any]
Marks = dict[str, bool]
"""One reader's answers on one row, by question name."""

INSTRUCTIONS = """\
# ForceBench annotation, pass {name}

You are one of two readers. Do not look at the other pass's sheet, and do not ask how the rows were
made. Fill in `pass-{name}.csv` (a spreadsheet opens it; keep it as CSV, UTF-8) and hand it back.

Each row is one pair of claims about one evidence passage. Read the question (what the claims answer),
the evidence passage in full, then claim A and claim B. B is A with one wording change that says more,
on the axis named in the row:

{axes}

Answer each of the four `q_` columns with `yes` or `no` (lower case, nothing else), judging only by
the evidence passage shown (not by what you know):

{questions}

`notes` is optional (say why, when a row is odd). Change no other column and keep every row; the
order does not matter. Rows number {rows}.
"""


def _ordered(rows: Sequence[Row], seed: int) -> list[Row]:
    return sorted(rows, key=lambda row: stable_hash(seed, row["id"]))


def _shown_cells(item: int, row: Row) -> dict[str, Any]:
    """The cells of a sheet line that show ``row`` (``_SHOWN``), the pair type hidden."""
    return {
        "item": item,
        "id": row["id"],
        "axis": row["axis"],
        "axis_meaning": AXIS_MEANINGS[row["axis"]],
        "question": row["context"],
        "evidence": row["evidence"],
        "claim_a": row["calibrated_claim"],
        "claim_b": row["raised_claim"],
    }


def write_sheets(rows: Sequence[Row], out_dir: Path, seed: int = 0) -> list[Path]:
    """Write ``pass-A.csv``, ``pass-B.csv`` (every row, each pass in its own seeded order, the pair
    type hidden) and their ``INSTRUCTIONS-A.md`` / ``INSTRUCTIONS-B.md`` into ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for offset, name in enumerate(PASSES):
        path = out_dir / f"pass-{name}.csv"
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=SHEET_COLUMNS)
            writer.writeheader()
            for item, row in enumerate(_ordered(rows, seed * len(PASSES) + offset), start=1):
                writer.writerow({**_shown_cells(item, row), **dict.fromkeys((*_MARKS, "notes"), "")})
        guide = out_dir / f"INSTRUCTIONS-{name}.md"
        guide.write_text(
            INSTRUCTIONS.format(
                name=name,
                rows=len(rows),
                axes="\n".join(f"- **{axis}**: {meaning}" for axis, meaning in AXIS_MEANINGS.items()),
                questions="\n".join(f"- `q_{key}`: {text}" for key, text in QUESTIONS.items()),
            ),
            encoding="utf-8",
        )
        written += [path, guide]
    return written


def _answer(value: str | None, where: str, column: str) -> bool:
    answer = (value or "").strip().lower()
    if answer not in ANSWERS:
        raise EviScopeError(f"{where}: column {column}: {value!r} is not yes or no")
    return answer == "yes"


def _candidate_lines(
    path: Path, rows: Sequence[Row], columns: Sequence[str]
) -> Iterator[tuple[str, str, Mapping[str, str]]]:
    """(``path:line``, id, cells) of each line of a sheet; an id that is no candidate, or met twice,
    is an error naming the line (:func:`eviscope.core.sheets.checked_ids`)."""
    path = Path(path)
    lines = read_sheet_lines(path, columns, "ForceBench")
    return checked_ids(lines, {row["id"] for row in rows}, lambda number: f"{path}:{number}")


def read_marks(path: Path, rows: Sequence[Row]) -> dict[str, Marks]:
    """One reader's filled sheet: every candidate once, every question answered ``yes`` or ``no``."""
    marks = {
        row_id: {name: _answer(raw.get(f"q_{name}"), where, f"q_{name}") for name in QUESTIONS}
        for where, row_id, raw in _candidate_lines(path, rows, _MARKS)
    }
    missing = sorted({row["id"] for row in rows} - marks.keys())
    if missing:
        raise EviScopeError(
            f"{path}: no marks for ids {', '.join(missing[:5])}"
            + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        )
    return marks


def verdict(marks: Marks) -> str:
    """``contrast``, ``licensed`` or ``reject`` from one reader's marks on a row.

    >>> verdict({"a_supported": True, "b_supported": False, "local_on_axis": True, "natural": True})
    'contrast'
    >>> verdict({"a_supported": True, "b_supported": True, "local_on_axis": True, "natural": False})
    'reject'
    """
    if not (marks["a_supported"] and marks["local_on_axis"] and marks["natural"]):
        return "reject"
    return "licensed" if marks["b_supported"] else "contrast"


def agreement(a: Mapping[str, Marks], b: Mapping[str, Marks]) -> dict[str, Any]:
    """Cohen's kappa of the two readers' verdicts and of each question, with the raw agreement and
    the number of rows whose verdicts differ."""
    ids = sorted(a)
    if sorted(b) != ids:
        raise EviScopeError("the two sheets mark different rows; give both every candidate")
    verdicts_a, verdicts_b = [verdict(a[i]) for i in ids], [verdict(b[i]) for i in ids]

    def kappa(x: list[Any], y: list[Any]) -> float | None:
        return cohen_kappa(x, y, when_constant=None)  # one label only: undefined

    return {
        "rows": len(ids),
        "kappa_verdict": kappa(verdicts_a, verdicts_b),
        "agreement_verdict": sum(x == y for x, y in zip(verdicts_a, verdicts_b, strict=True)) / len(ids),
        "kappa_per_question": {
            name: kappa([a[i][name] for i in ids], [b[i][name] for i in ids]) for name in QUESTIONS
        },
        "disagreements": sum(x != y for x, y in zip(verdicts_a, verdicts_b, strict=True)),
    }


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def write_adjudication(
    rows: Sequence[Row], a: Mapping[str, Marks], b: Mapping[str, Marks], path: Path
) -> int:
    """Write the rows whose verdicts differ, both readers' marks and empty ``adjudicated_q_*`` columns;
    returns how many. The pair type stays hidden."""
    header = [*_SHOWN, *(f"{who}_{m}" for who in ("a", "b") for m in _MARKS), *_ADJUDICATED, "notes"]
    listed = 0
    with Path(path).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=header)
        writer.writeheader()
        for row in _ordered(rows, 0):
            if verdict(a[row["id"]]) == verdict(b[row["id"]]):
                continue
            listed += 1
            out = _shown_cells(listed, row)
            for who, marks in (("a", a), ("b", b)):
                out.update({f"{who}_q_{name}": _yes(marks[row["id"]][name]) for name in QUESTIONS})
            writer.writerow({**out, **dict.fromkeys((*_ADJUDICATED, "notes"), "")})
    return listed


def read_adjudication(path: Path, rows: Sequence[Row]) -> dict[str, Marks]:
    """The adjudicator's marks; a row whose ``adjudicated_q_*`` columns are all empty stays open."""
    marks: dict[str, Marks] = {}
    for where, row_id, raw in _candidate_lines(path, rows, _ADJUDICATED):
        if not any((raw.get(column) or "").strip() for column in _ADJUDICATED):
            continue
        marks[row_id] = {
            name: _answer(raw.get(f"adjudicated_q_{name}"), where, f"adjudicated_q_{name}")
            for name in QUESTIONS
        }
    return marks


@dataclass
class Settled:
    """The settled config (``rows``, each with its ``split``) and what was dropped, by why."""

    rows: list[dict[str, Any]]
    flow: list[tuple[str, int]]
    rejected: list[str] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    locality_removed: dict[str, list[str]] = field(default_factory=dict)


def settle(
    rows: Sequence[Row],
    a: Mapping[str, Marks],
    b: Mapping[str, Marks],
    adjudicated: Mapping[str, Marks],
    cap: int = 51,
    eval_per_axis: int = 40,
    seed: int = 0,
) -> Settled:
    """Keep the rows whose final verdict is their drafted ``pair_type`` and split them (module docstring)."""
    kept: list[dict[str, Any]] = []
    rejected, unresolved = [], []
    for row in rows:
        mine, theirs = verdict(a[row["id"]]), verdict(b[row["id"]])
        if mine != theirs:
            if row["id"] not in adjudicated:
                unresolved.append(row["id"])
                continue
            mine = verdict(adjudicated[row["id"]])
        if mine == row["pair_type"]:
            kept.append({**row, "annotation_status": "adjudicated"})
        else:
            rejected.append(row["id"])
    contrast = [r for r in kept if r["pair_type"] == "contrast"]
    controls = [r for r in kept if r["pair_type"] == "licensed"]
    capped = cap_axes(contrast, cap, seed)
    chosen, _ = stratified_split(capped, eval_per_axis, seed)
    evaluation, removed = locality_filter([*chosen, *controls])
    in_eval = {r["id"] for r in evaluation}
    settled = [
        {**r, "split": "eval" if r["id"] in in_eval else "pool"}
        for r in sorted(kept, key=lambda r: r["id"])
        if r["id"] not in removed
    ]
    contrast_eval = sum(r["split"] == "eval" and r["pair_type"] == "contrast" for r in settled)
    flow = [
        ("Candidate rows entering double annotation", len(rows)),
        ("Accepted after adjudication (contrast pairs)", len(contrast)),
        ("Accepted after adjudication (controls)", len(controls)),
        ("Contrast pairs retained after capping overrepresented axes", len(capped)),
        ("Headline contrast pairs before the locality filter", len(chosen)),
        ("Final headline contrast pairs after the locality filter", contrast_eval),
        ("Controls in the evaluation split", len(evaluation) - contrast_eval),
    ]
    return Settled(settled, flow, rejected, unresolved, removed)


def split_counts(rows: Sequence[Row]) -> dict[str, dict[str, dict[str, int]]]:
    """Rows per split, axis and pair type."""
    return {
        split: {
            axis: {
                kind: sum(r["split"] == split and r["axis"] == axis and r["pair_type"] == kind for r in rows)
                for kind in PAIR_TYPES
            }
            for axis in AXES
        }
        for split in ("eval", "pool")
    }


# --- The committed marks file (issue 24) ----------------------------------------------------------
#
# The filled sheets hold the source text (AttributionBench evidence and claims), so they are never
# committed. What the build needs of them is the marks: per row its id, the fingerprint of the text
# the readers were shown, both readers' answers, the adjudicator's where there was one, and who read.
# ``eviscope forcebench marks`` writes that file from the sheets; ``eviscope build forcebench`` reads
# it (``apply_marks``) and settles every row whose id and fingerprint match, as ``adjudicate`` does.

MARKS_COLUMNS: tuple[str, ...] = (
    "id",
    "fingerprint",
    "reader_a",
    "reader_b",
    "adjudicator",
    *(f"{who}_{m}" for who in ("a", "b") for m in _MARKS),
    *_ADJUDICATED,
)
"""The columns of a marks file: ids, fingerprints, yes/no answers and reader labels; no text of a row."""


def fingerprint(row: Row) -> str:
    """The fingerprint of what the readers of a row were shown: its axis, question, evidence and both
    claims (:func:`eviscope.core.stats.text_fingerprint`); a rebuild that changes any of them changes it."""
    return text_fingerprint(
        row["axis"], row["context"], row["evidence"], row["calibrated_claim"], row["raised_claim"]
    )


def _shown_fingerprint(raw: Mapping[str, str]) -> str:
    """:func:`fingerprint` of a sheet line, from the text the sheet showed."""
    return text_fingerprint(
        *(raw.get(name) or "" for name in ("axis", "question", "evidence", "claim_a", "claim_b"))
    )


@dataclass(frozen=True)
class Recorded:
    """One row of a marks file: the fingerprint the marks hold for, both readers' marks, the
    adjudicator's (None: the readers agreed, or the disagreement was left open) and who they were."""

    fingerprint: str
    a: Marks
    b: Marks
    adjudicated: Marks | None
    readers: tuple[str, str, str]


def write_marks(
    rows: Sequence[Row],
    sheet_a: Path,
    sheet_b: Path,
    adjudication: Path,
    readers: tuple[str, str, str],
    out: Path,
    earlier: Path | None = None,
) -> int:
    """Write the marks file of two filled sheets and the filled adjudication sheet into ``out``: one
    line per candidate, sorted by id, fingerprinted from the text the sheets showed (both sheets must
    show the same text for a row); returns how many lines. With ``earlier`` (an earlier round's marks
    file, checked as the build checks it), its lines are kept for the candidates these sheets do not
    show, and a candidate read again gets this round's line in place of its earlier one."""
    a, b = read_marks(sheet_a, rows), read_marks(sheet_b, rows)
    adjudicated = read_adjudication(adjudication, rows)
    shown: dict[str, str] = {}
    for path in (sheet_a, sheet_b):
        for where, row_id, raw in _candidate_lines(path, rows, _MARKS):
            mine = _shown_fingerprint(raw)
            if shown.setdefault(row_id, mine) != mine:
                raise EviScopeError(f"{where}: id '{id_text(row_id)}' shows other text than in {sheet_a}")
    reader_a, reader_b, adjudicator = readers
    recorded = read_marks_file(earlier) if earlier is not None else {}
    for row_id, fingerprint in shown.items():
        who = (reader_a, reader_b, adjudicator if row_id in adjudicated else "")
        recorded[row_id] = Recorded(fingerprint, a[row_id], b[row_id], adjudicated.get(row_id), who)
    lines = [_marks_line(row_id, recorded[row_id]) for row_id in sorted(recorded)]
    with Path(out).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=MARKS_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(lines)
    return len(lines)


def _marks_line(row_id: str, recorded: Recorded) -> dict[str, str]:
    """One line of the marks file (:data:`MARKS_COLUMNS`)."""
    line = {"id": row_id, "fingerprint": recorded.fingerprint}
    line.update(zip(("reader_a", "reader_b", "adjudicator"), recorded.readers, strict=True))
    for who, marks in (("a", recorded.a), ("b", recorded.b), ("adjudicated", recorded.adjudicated)):
        line.update({f"{who}_q_{name}": "" if marks is None else _yes(marks[name]) for name in QUESTIONS})
    return line


def read_marks_file(path: Path) -> dict[str, Recorded]:
    """The marks file at ``path`` by id; a missing column, a repeated id, an answer that is not yes or
    no, or a partly answered adjudication is an error naming the line and column."""
    recorded: dict[str, Recorded] = {}
    lines = read_sheet_lines(Path(path), MARKS_COLUMNS[1:], "ForceBench marks")
    for where, row_id, raw in checked_ids(lines, None, lambda number: f"{path}:{number}"):
        if not row_id:
            raise EviScopeError(f"{where}: empty id")
        marks = {}
        for who in ("a", "b", "adjudicated"):
            columns = [f"{who}_q_{name}" for name in QUESTIONS]
            if who == "adjudicated" and not any((raw.get(c) or "").strip() for c in columns):
                marks[who] = None
                continue
            marks[who] = {
                name: _answer(raw.get(c), where, c) for name, c in zip(QUESTIONS, columns, strict=True)
            }
        readers = (raw["reader_a"] or "", raw["reader_b"] or "", raw["adjudicator"] or "")
        recorded[row_id] = Recorded(
            raw["fingerprint"].strip(), marks["a"], marks["b"], marks["adjudicated"], readers
        )
    return recorded


@dataclass
class Applied:
    """The rows of a build after its marks: the settled ones and the ones still ``drafted``, and why."""

    rows: list[dict[str, Any]]
    report: dict[str, Any]


def apply_marks(rows: Sequence[Row], recorded: Mapping[str, Recorded], seed: int = 0) -> Applied:
    """Settle (:func:`settle`) the drafted rows whose id and fingerprint the marks file records; every
    other row stays ``drafted`` in ``pool``: a row whose text changed since it was read (``stale``) and
    a row nobody read (``unread``). Rows the annotation rejected, or dropped as not local, leave the
    config; the report counts each group, and the marks whose row the build no longer drafts (``gone``)."""
    current = [r for r in rows if r["id"] in recorded and recorded[r["id"]].fingerprint == fingerprint(r)]
    read = {r["id"] for r in current}
    stale = sorted(r["id"] for r in rows if r["id"] in recorded and r["id"] not in read)
    unread = sorted(r["id"] for r in rows if r["id"] not in recorded)
    gone = sorted(recorded.keys() - {r["id"] for r in rows})
    settled = settle(
        current,
        {i: recorded[i].a for i in read},
        {i: recorded[i].b for i in read},
        {i: recorded[i].adjudicated for i in read if recorded[i].adjudicated is not None},
        seed=seed,
    )
    drafted = [dict(r) for r in rows if r["id"] not in read]
    out = sorted([*settled.rows, *drafted], key=lambda r: r["id"])
    roles = {
        role: sorted({m.readers[n] for m in recorded.values()} - {""})
        for n, role in enumerate(("pass_a", "pass_b", "adjudicator"))
    }
    marked = sorted(recorded)
    report = {
        "annotators": roles,
        "agreement": agreement({i: recorded[i].a for i in marked}, {i: recorded[i].b for i in marked})
        if marked
        else None,
        "marked": len(recorded),
        "settled_from_marks": len(current),
        "flow": dict(settled.flow),
        "rejected": len(settled.rejected),
        "unresolved": len(settled.unresolved),
        "locality_removed": len(settled.locality_removed),
        "stale": stale,
        "unread": len(unread),
        "gone": gone,
        "split": split_counts(out),
    }
    return Applied(out, report)
