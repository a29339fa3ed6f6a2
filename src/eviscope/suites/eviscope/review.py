"""Blind review sheets of conflict passages, and the agreement of filled sheets (contract §2, constraint 2).

A sheet lists, in shuffled order, each conflicting row's question, the answer-bearing sentence of
the support passage and the same sentence in the conflict passage, with no gold labels. A reviewer
marks each item ``yes`` or ``no`` on three questions:

- ``same_type``: the edited sentence answers the question with an answer of the same kind (a person
  for a person, a city for a city, a year for a year, ...);
- ``believable``: a reader of the article could believe the edited sentence;
- ``fluent``: the edited sentence reads right (articles, acronyms, appositives, agreement).

An item *passes* when all three are ``yes``.

Each item carries a ``fingerprint`` of what the reviewer read (source question, question, original
and edited sentence), so that a mark stays tied to that text: a rebuild that renumbers quartets or
changes a conflict passage leaves the old mark *stale*, and ``eviscope review agreement --config``
refuses stale marks instead of counting them for rows nobody read.
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from eviscope.core.errors import EviScopeError
from eviscope.core.normalize import contains
from eviscope.core.sentences import sentence_spans

CRITERIA: tuple[str, ...] = ("same_type", "believable", "fluent")
SHEET_FIELDS: tuple[str, ...] = (
    "item",
    "id",
    "fingerprint",
    "question",
    "original",
    "edited",
    *CRITERIA,
    "note",
)


def fingerprint(source_id: str, question: str, original: str, edited: str) -> str:
    """The 16-hex sha256 of what a reviewer reads for one item (its mark holds for this text only).

    >>> fingerprint("5733be", "When?", "Built in 1901.", "Built in 1905.")
    '792f65374d910742'
    """
    text = "\n".join((source_id, question, original, edited))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _edited_sentence(text: str, original: str, answer: str) -> str:
    """The sentence of the conflict passage that stands where ``original`` stands in the support."""
    from difflib import SequenceMatcher

    best, score = text, -1.0
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        ratio = SequenceMatcher(None, sentence, original).ratio() + contains(sentence, answer)
        if ratio > score:
            best, score = sentence, ratio
    return best


def conflict_sheet(rows: Iterable[dict[str, Any]], sample: int | None = None, seed: int = 0) -> list[dict]:
    """The blind sheet of the conflicting rows of ``rows``: ``sample`` of them (all by default), shuffled.

    Rows are ordered by ``sha256(f"{seed}:{source_id}")`` and the first ``sample`` taken, so a sample
    depends on each base question alone, not on which other rows a rebuild keeps.
    """
    items: list[dict] = []
    keys: dict[str, str] = {}
    for row in rows:
        if row["variant"] != "conflicting":
            continue
        texts = {doc["doc_id"]: doc["text"] for doc in row["documents"]}
        original = row["support_spans"][0]["text"]
        conflict = texts[row["conflicting_doc_ids"][0]]
        edited = _edited_sentence(conflict, original, row["conflict_answer"])
        items.append(
            {
                "id": row["id"],
                "fingerprint": fingerprint(row["source_id"], row["question"], original, edited),
                "question": row["question"],
                "original": original,
                "edited": edited,
            }
        )
        keys[row["id"]] = hashlib.sha256(f"{seed}:{row['source_id']}".encode()).hexdigest()
    if sample is not None and sample > len(items):
        raise EviScopeError(f"--sample {sample} is more than the {len(items)} conflicting rows")
    items = sorted(items, key=lambda item: keys[item["id"]])[:sample]
    return [{"item": n, **item, **dict.fromkeys(CRITERIA, ""), "note": ""} for n, item in enumerate(items, 1)]


def write_sheet(items: list[dict], out: Path) -> tuple[Path, Path]:
    """Write the sheet as ``out.csv`` (to fill) and ``out.md`` (to read), appended to the whole name
    (``review/eviscope-v1.1-conflicts`` gives ``review/eviscope-v1.1-conflicts.csv``)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    csv_path, md_path = out.with_name(out.name + ".csv"), out.with_name(out.name + ".md")
    with csv_path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=SHEET_FIELDS)
        writer.writeheader()
        writer.writerows(items)
    lines = [
        "# Conflict passages: blind review sheet",
        "",
        "Mark each item in the CSV `yes` or `no` for " + ", ".join(f"`{c}`" for c in CRITERIA) + ".",
        "",
    ]
    for item in items:
        lines += [
            f"## {item['item']}. `{item['id']}`",
            "",
            f"**Question:** {item['question']}",
            "",
            f"**Original:** {item['original']}",
            "",
            f"**Edited:** {item['edited']}",
            "",
        ]
    md_path.write_text("\n".join(lines), encoding="utf-8")
    return csv_path, md_path


def read_sheet(path: Path) -> dict[str, dict[str, bool]]:
    """A filled sheet: row id to ``{criterion: yes?}``; an unfilled or odd mark names its item."""
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except OSError as err:
        raise EviScopeError(f"cannot read sheet {path}: {err.strerror}") from None
    marks: dict[str, dict[str, bool]] = {}
    for row in rows:
        missing = [c for c in ("id", *CRITERIA) if c not in row]
        if missing:
            raise EviScopeError(f"{path}: not a review sheet, it lacks the column(s) {', '.join(missing)}")
        values = {}
        for criterion in CRITERIA:
            mark = (row[criterion] or "").strip().lower()
            if mark not in {"yes", "no", "y", "n"}:
                raise EviScopeError(
                    f"{path}: item {row.get('item')} ({row['id']}): {criterion} is {mark!r}, not yes/no"
                )
            values[criterion] = mark.startswith("y")
        marks[row["id"]] = values
    return marks


def stale_marks(path: Path, rows: Iterable[dict[str, Any]]) -> list[str]:
    """The ids of the items of sheet ``path`` whose text no conflicting row of ``rows`` shows now.

    An item is current when its ``fingerprint`` is that of some conflicting row of the build (the
    same text under a renumbered id still counts); a sheet without fingerprints cannot be checked.
    """
    current = {item["fingerprint"] for item in conflict_sheet(rows)}
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            items = list(csv.DictReader(handle))
    except OSError as err:
        raise EviScopeError(f"cannot read sheet {path}: {err.strerror}") from None
    if items and "fingerprint" not in items[0]:
        raise EviScopeError(
            f"{path}: the sheet has no fingerprint column, so its marks cannot be checked against a "
            "build; write a new sheet with `eviscope review conflicts`"
        )
    return [item["id"] for item in items if item["fingerprint"] not in current]


def agreement(sheets: dict[str, dict[str, dict[str, bool]]]) -> dict:
    """Per sheet, yes counts per criterion and passes; for two or more sheets, Cohen's kappa on shared items."""
    from itertools import combinations

    from sklearn.metrics import cohen_kappa_score

    report: dict = {"sheets": {}}
    for name, marks in sheets.items():
        report["sheets"][name] = {
            "items": len(marks),
            **{c: sum(m[c] for m in marks.values()) for c in CRITERIA},
            "pass": sum(all(m.values()) for m in marks.values()),
            "failed_ids": sorted(i for i, m in marks.items() if not all(m.values())),
        }
    pairs = {}
    for (a, ma), (b, mb) in combinations(sheets.items(), 2):
        shared = sorted(set(ma) & set(mb))
        if not shared:
            continue
        pairs[f"{a} vs {b}"] = {
            "items": len(shared),
            **{
                c: {
                    "agreement": round(sum(ma[i][c] == mb[i][c] for i in shared) / len(shared), 4)
                    if shared
                    else None,
                    "kappa": _kappa(
                        cohen_kappa_score, [ma[i][c] for i in shared], [mb[i][c] for i in shared]
                    ),
                }
                for c in CRITERIA
            },
        }
    if pairs:
        report["pairs"] = pairs
    return report


def _kappa(score, a: list[bool], b: list[bool]) -> float | None:
    """Cohen's kappa; 1.0 where both raters gave one and the same mark to every item (kappa is 0/0)."""
    if not a:
        return None
    if len(set(a) | set(b)) == 1:
        return 1.0
    return round(float(score(a, b)), 4)
