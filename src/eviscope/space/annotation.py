"""Blinded double annotation in the Space, for both benchmarks; each annotator's sheet stored apart.

- **ForceBench**: accept or reject each drafted pair, with corrected fields, axis and severity.
  Verdicts are :class:`eviscope.forcebench.annotation.Annotation`; each annotator's sheet is a CSV in
  the format of ``eviscope forcebench sheet`` (only the rows annotated so far), read back with
  ``read_sheet``; agreement and the adjudication queue are ``cohen_kappa`` and ``disagreements``.
- **EviScope validation**: for each row, shown without its variant, document ids or any label, the
  annotator says which action the evidence warrants, which document supports the answer, and the
  answer. Agreement is Cohen's kappa on the actions; the adjudication queue holds rows where the
  annotators' actions differ, or agree with each other but not with the gold ``expected_action``.

Annotators see only their own sheet. Sheets live in ``<folder>/<benchmark>/<annotator>.csv`` and are
rewritten atomically, under a lock, on every verdict.
"""

from __future__ import annotations

import csv
import html
import io
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from filelock import FileLock
from pydantic import BaseModel, ConfigDict, ValidationError
from sklearn.metrics import cohen_kappa_score

from eviscope.errors import EviScopeError
from eviscope.forcebench.annotation import (
    ANNOTATION_FIELDS,
    Annotation,
    cohen_kappa,
    disagreements,
    read_sheet,
    stable_hash,
)
from eviscope.forcebench.rows import FIELDS
from eviscope.rows import ACTIONS

__all__ = ["BENCHMARKS", "AnnotationStore", "EviScopeVerdict", "agreement", "blinded_html", "queue_order"]

BENCHMARKS = ("forcebench", "eviscope")
ANNOTATOR_NAME = re.compile(r"[A-Za-z0-9_-]{1,32}")
FORCEBENCH_SHEET = (*(name for name in FIELDS if name != "annotation_status"), *ANNOTATION_FIELDS)
EVISCOPE_SHEET = (
    "id",
    "question",
    "annotation_action",
    "annotation_supporting_doc_id",
    "annotation_answer",
    "annotation_notes",
)

Row = Mapping[str, Any]


class EviScopeVerdict(BaseModel):
    """One annotator's reading of one EviScope row, made without seeing its labels."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    action: Literal["answer", "abstain", "flag_conflict"]
    supporting_doc_id: str = ""
    answer: str = ""
    notes: str = ""


def _check_annotator(name: str | None) -> str:
    name = (name or "").strip()
    if not ANNOTATOR_NAME.fullmatch(name):
        raise EviScopeError(f"annotator name {name[:40]!r}: use 1–32 letters, digits, _ or -")
    return name


def queue_order(rows: Sequence[Row], seed: int = 0) -> list[Row]:
    """Candidates in a fixed shuffled order (``stable_hash``), so a quartet's rows are not adjacent."""
    return sorted(rows, key=lambda row: stable_hash(seed, row["id"]))


def blinded_html(benchmark: str, row: Row) -> str:
    """What an annotator sees of a row: for EviScope the question and numbered documents, with no
    ids, variant or labels; for ForceBench the drafted pair to accept, reject or correct."""
    if benchmark == "eviscope":
        docs = "".join(
            f'<div class="doc"><div class="doc-head">document {i} · {html.escape(d["title"])}</div>'
            f"{html.escape(d['text'])}</div>"
            for i, d in enumerate(row["documents"], start=1)
        )
        return f"<h3>{html.escape(row['question'])}</h3>{docs}"
    fields = (
        "context",
        "evidence",
        "evidence_span",
        "calibrated_claim",
        "raised_claim",
        "repair",
        "axis",
        "severity",
    )
    return "".join(f"<p><b>{name}</b>: {html.escape(str(row[name]))}</p>" for name in fields)


class AnnotationStore:
    """Each annotator's sheet, per benchmark, as a CSV file of the rows annotated so far."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._lock = FileLock(self.folder / ".lock")

    def _path(self, benchmark: str, annotator: str) -> Path:
        if benchmark not in BENCHMARKS:
            raise EviScopeError(
                f"no annotation flow for {benchmark!r}; choose one of {', '.join(BENCHMARKS)}"
            )
        return self.folder / benchmark / f"{_check_annotator(annotator)}.csv"

    def annotators(self, benchmark: str) -> list[str]:
        """Everyone with a sheet for ``benchmark``."""
        return sorted(p.stem for p in (self.folder / benchmark).glob("*.csv"))

    def sheet(self, benchmark: str, annotator: str, rows: Sequence[Row]) -> dict[str, Any]:
        """One annotator's verdicts by row id: ForceBench sheets are read by the library's ``read_sheet``."""
        path = self._path(benchmark, annotator)
        if not path.is_file():
            return {}
        with path.open(newline="", encoding="utf-8") as handle:
            lines = list(csv.DictReader(handle))
        if benchmark == "forcebench":
            ids = {line["id"] for line in lines}
            return read_sheet(path, [row for row in rows if row["id"] in ids])
        return {line["id"]: _eviscope_verdict(line) for line in lines}

    def save(
        self, benchmark: str, annotator: str, row: Row, fields: Mapping[str, Any], rows: Sequence[Row]
    ) -> None:
        """Validate one verdict on ``row`` and write it into the annotator's sheet (replacing an earlier one)."""
        path = self._path(benchmark, annotator)
        values = {name: "" if value is None else str(value).strip() for name, value in fields.items()}
        try:
            if benchmark == "forcebench":
                verdict: BaseModel = Annotation.model_validate({"id": row["id"], **values})
            else:
                verdict = EviScopeVerdict.model_validate({"id": row["id"], **values})
        except ValidationError as err:
            first = err.errors()[0]
            raise EviScopeError(f"row {row['id']}: field {first['loc'][0]}: {first['msg']}") from None
        by_id = {r["id"]: r for r in rows}
        with self._lock:
            verdicts = self.sheet(benchmark, annotator, rows)
            verdicts[row["id"]] = verdict
            header = FORCEBENCH_SHEET if benchmark == "forcebench" else EVISCOPE_SHEET
            out = io.StringIO()
            writer = csv.DictWriter(out, fieldnames=header, extrasaction="ignore")
            writer.writeheader()
            for row_id, v in verdicts.items():
                answered = {f"annotation_{k}": val for k, val in v.model_dump().items() if k != "id"}
                writer.writerow({**by_id[row_id], **answered, "id": row_id})
            _write_atomically(path, out.getvalue())


def _eviscope_verdict(line: Mapping[str, str]) -> EviScopeVerdict:
    return EviScopeVerdict.model_validate(
        {
            "id": line["id"],
            **{k.removeprefix("annotation_"): v for k, v in line.items() if k.startswith("annotation_")},
        }
    )


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def agreement(
    benchmark: str, a: Mapping[str, Any], b: Mapping[str, Any], rows: Sequence[Row]
) -> tuple[float, list[list[str]]]:
    """Cohen's kappa over the rows both annotated, and the adjudication queue as (id, reason) lines."""
    shared = [row for row in rows if row["id"] in a and row["id"] in b]
    if not shared:
        raise EviScopeError("the two annotators share no annotated row yet")
    if benchmark == "forcebench":
        return cohen_kappa(a, b), [[i, why] for i, why in disagreements(shared, a, b).items()]
    ids = [row["id"] for row in shared]
    kappa = float(
        cohen_kappa_score([a[i].action for i in ids], [b[i].action for i in ids], labels=list(ACTIONS))
    )
    queue = []
    for row in shared:
        x, y = a[row["id"]].action, b[row["id"]].action
        if x != y:
            queue.append([row["id"], f"actions differ: {x} / {y}"])
        elif x != row["expected_action"]:
            queue.append([row["id"], f"both say {x}; the gold expected_action is {row['expected_action']}"])
    return kappa, queue
