"""Draft the ForceBench candidate pool (config ``forcebench``) from AttributionBench (contract §5, issues 4, 14).

Drafting is deterministic and rule-based. As in the ForceBench paper, the unit is a cited claim and
its passage:

1. Read every row of the AttributionBench copy and keep the ``attributable`` ones: a cited-QA
   system wrote the ``claim`` and its cited passages (``references``) support it.
2. Split each claim into sentences (``forcebench_claims.claim_sentences``: citation markers dropped,
   first letter capitalised, final full stop added; the wording is the claim's) and keep the
   self-contained ones (``eligible_sentence``; an opening ``It``/``They``/``This``… is allowed, as the
   question in ``context`` resolves it).
3. Run the axis patterns (``eviscope.suites.forcebench.patterns``) on each claim sentence. A match is the
   claim's force marker: the sentence is the calibrated claim, its local rewrite the raised claim,
   and the pattern gives the axis, severity, rationale and repair. The decisive span is the
   sentence of the cited passages (or pair of sentences) holding most of the claim's content words.
4. Lint every draft (``eviscope.suites.forcebench.lints``): the span covers the claim, licenses its
   marker and does not license the raised form; the raise is local, on one axis, and changes no
   entity or number outside the marker's window. The build report counts, per axis, the drafts
   each lint removed.
5. Keep one draft per calibrated claim and axis (the smallest seeded hash), at most
   ``MAX_PER_AXIS`` per axis: ``claim_source: attribution_claim``.
6. Fallback: an axis with fewer than ``FLOOR_PER_AXIS`` such drafts is filled up to it with drafts
   whose calibrated claim is a sentence of the cited passage itself (the construction of issue 4,
   one per source row and axis, same lints): ``claim_source: evidence_sentence``.

The evidence of a row is the paragraph of the cited passage that holds the span, clipped to the span
and two sentences on either side when the paragraph is longer than
``forcebench_claims.MAX_EVIDENCE_CHARS``; it is
always a verbatim excerpt. Every row says ``annotation_status: drafted``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eviscope.builders.dataset_card import update_card
from eviscope.builders.forcebench.claims import (
    Span,
    best_span,
    claim_sentences,
    passage_spans,
)
from eviscope.builders.parquet_split import split_path, write_split
from eviscope.core.errors import EviScopeError
from eviscope.core.normalize import norm
from eviscope.core.sources import SourceRef, how_to_point
from eviscope.suites.forcebench.lints import DRAFT_LINTS, edit_window, failed_lints, lint_counts
from eviscope.suites.forcebench.patterns import Edit, find_edits
from eviscope.suites.forcebench.rows import AXES, CLAIM_SOURCES, CONFIG, FORCEBENCH_FEATURES

__all__ = [
    "FLOOR_PER_AXIS",
    "MAX_PER_AXIS",
    "build_forcebench",
    "draft_rows",
    "eligible_sentence",
    "read_attributionbench",
]

MAX_PER_AXIS = 100
"""The most drafts kept per axis (smallest seeded hash first)."""

FLOOR_PER_AXIS = 36
"""An axis with fewer cited-claim drafts than this is filled up to it from evidence sentences."""

HUB_CONFIG = "subset_balanced"
HUB_SPLITS = ("dev", "test", "test_ood")
"""The hub splits read when no local copy is given; ``train`` is left out, as in the CI copy."""

_REQUIRED = {
    "id": str,
    "question": str,
    "claim": str,
    "references": list,
    "attribution_label": str,
    "src_dataset": str,
}
_PRONOUN_START = frozenset(
    [
        "it",
        "its",
        "this",
        "these",
        "those",
        "they",
        "their",
        "them",
        "he",
        "his",
        "she",
        "her",
        "we",
        "our",
        "us",
        "you",
        "your",
        "i",
        "that",
        "such",
        "there's",
        "yes",
        "yeah",
        "no",
        "well",
        "sure",
        "okay",
        "ok",
    ]
)
ANSWER_PRONOUNS = frozenset(["it", "its", "they", "their", "this", "these", "he", "his", "she", "her"])
"""Opening pronouns allowed in a cited answer's sentence: the question (``context``) says what they
refer to, as it does for the reader of the answer."""
_LABEL_START = re.compile(r"^[A-Z][A-Za-z]*: ")
_NUMBERED_END = re.compile(r"\s\d{1,2}\.$")
_BAD_TEXT = re.compile(
    r"https?:|www\.|[\[\]{}|•…<>@#*_=]|\.\.\.|[a-z][.!?][A-Z]|\s{2,}|[^\x00-\u2fff]|\s[.,;:!?]|[.!?]\s+[a-z]"
)


def read_attributionbench(source: SourceRef) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """All AttributionBench rows of ``source`` and a description of what was read (files, sha256).

    A local copy is a folder of ``*.jsonl`` files read in name order; the hub copy is the
    ``subset_balanced`` config, splits ``dev``, ``test`` and ``test_ood``.
    """
    where = f"AttributionBench ({source.location}, from {source.via})"
    if source.is_hub:
        return _read_hub(source, where)
    folder = Path(source.location)
    if not folder.is_dir():
        raise EviScopeError(f"{where}: not a folder of JSONL files; {how_to_point('attributionbench')}")
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        raise EviScopeError(f"{where}: no *.jsonl files in the folder; {how_to_point('attributionbench')}")
    rows: list[dict[str, Any]] = []
    digests: dict[str, str] = {}
    combined = hashlib.sha256()
    for path in files:
        data = path.read_bytes()
        digests[path.name] = hashlib.sha256(data).hexdigest()
        combined.update(path.name.encode() + b"\0" + data)
        for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
            if line.strip():
                rows.append(_parse_line(line, f"{path}:{number}"))
    return rows, {
        "location": str(folder),
        "via": source.via,
        "files": digests,
        "sha256": combined.hexdigest(),
    }


def _read_hub(source: SourceRef, where: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    import datasets

    try:
        dataset = datasets.load_dataset(source.location, HUB_CONFIG)
    except Exception as err:  # any failure to fetch or read the hub copy is the user's to fix
        raise EviScopeError(
            f"{where}: cannot load ({type(err).__name__}); {how_to_point('attributionbench')}"
        ) from err
    rows: list[dict[str, Any]] = []
    combined = hashlib.sha256()
    for split in HUB_SPLITS:
        for number, row in enumerate(dataset[split], start=1):
            rows.append(_check_row(dict(row), f"{where} split {split} row {number}"))
            combined.update(json.dumps(row, sort_keys=True, ensure_ascii=False).encode() + b"\n")
    return rows, {
        "location": source.location,
        "via": source.via,
        "splits": list(HUB_SPLITS),
        "sha256": combined.hexdigest(),
    }


def _parse_line(line: str, where: str) -> dict[str, Any]:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as err:
        raise EviScopeError(
            f"AttributionBench {where}: not a JSON object ({err.msg}); {how_to_point('attributionbench')}"
        ) from err
    if not isinstance(row, dict):
        raise EviScopeError(
            f"AttributionBench {where}: not a JSON object; {how_to_point('attributionbench')}"
        )
    return _check_row(row, f"AttributionBench {where}")


def _check_row(row: dict[str, Any], where: str) -> dict[str, Any]:
    for name, kind in _REQUIRED.items():
        if not isinstance(row.get(name), kind):
            raise EviScopeError(
                f"{where}: field {name!r} missing or not a {kind.__name__}; {how_to_point('attributionbench')}"
            )
    if not all(isinstance(ref, str) for ref in row["references"]):
        raise EviScopeError(f"{where}: field 'references' must be a list of strings")
    return row


def eligible_sentence(text: str, answer_pronoun: bool = False) -> bool:
    """True for a self-contained declarative sentence a claim can be drafted from. With
    ``answer_pronoun``, a sentence of a cited answer may open with a pronoun that the question
    resolves (``It``, ``They``, ``This``, …; see ``ANSWER_PRONOUNS``).

    >>> eligible_sentence("Regular exercise may lower blood pressure in older adults.")
    True
    >>> eligible_sentence("It may lower blood pressure in older adults.")
    False
    >>> eligible_sentence("It may lower blood pressure in older adults.", answer_pronoun=True)
    True
    """
    words = text.split()
    first = words[0].lower() if words else ""
    return (
        7 <= len(words) <= 50
        and text[0].isupper()
        and text.endswith(".")
        and (first not in _PRONOUN_START or (answer_pronoun and first in ANSWER_PRONOUNS))
        and not _BAD_TEXT.search(text)
        and not _LABEL_START.match(text)
        and not _NUMBERED_END.search(text)
    )


def _hash(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()


def _draft(row: dict[str, Any], calibrated: str, span: Span, edit: Edit, claim_source: str) -> dict[str, Any]:
    old, new = edit.old.strip(" ,"), edit.new
    calibrated_window, raised_window = edit_window(calibrated, edit.raised)
    if new:
        rationale = (
            f'The claim says "{old}" and the cited span warrants no more: {edit.rule.boundary}. The raised '
            f'claim says "{new}", a stronger {edit.rule.axis} than the passage warrants.'
        )
    else:
        rationale = (
            f'The claim is limited by "{old}", as the cited span is: {edit.rule.boundary}. The raised claim '
            f"drops the limit, a stronger {edit.rule.axis} than the passage warrants."
        )
    return {
        "id": "fb-" + _hash(row["id"], edit.rule.axis, edit.rule.name, edit.start, calibrated)[:10],
        "axis": edit.rule.axis,
        "severity": edit.severity,
        "context": row["question"].strip() or row["claim"].strip(),
        "evidence": span.evidence,
        "evidence_span": span.text,
        "calibrated_claim": calibrated,
        "raised_claim": edit.raised,
        "repair": f'Write "{calibrated_window}" instead of "{raised_window}".',
        "rationale": rationale,
        "source": f"AttributionBench/{row['src_dataset']}:{row['id']}",
        "annotation_status": "drafted",
        "claim_source": claim_source,
    }


@dataclass
class _Pool:
    """The drafts of one ``claim_source``: how many were drafted and removed, and those that pass.
    ``one_per_row`` keeps one draft per source row and axis (evidence sentences, where a long passage
    would otherwise give many); a claim sentence gives at most one per axis anyway."""

    one_per_row: bool

    drafts: Counter[str] = field(default_factory=Counter)
    removed: dict[str, Counter[str]] = field(
        default_factory=lambda: {name: Counter() for name in DRAFT_LINTS}
    )
    passing: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def add(self, candidate: dict[str, Any], seed: int) -> None:
        axis = candidate["axis"]
        self.drafts[axis] += 1
        failed = failed_lints(candidate)
        for name in failed:
            self.removed[name][axis] += 1
        if not failed:
            self.passing.append((_hash(seed, candidate["id"]), candidate))

    def chosen(self) -> dict[str, list[dict[str, Any]]]:
        """One draft per (source row, axis) when ``one_per_row``, then one per (calibrated claim,
        axis), smallest hash first; per axis, in hash order."""
        by_row: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
        for rank, candidate in sorted(self.passing, key=lambda pair: pair[0]):
            key = candidate["source"] if self.one_per_row else candidate["id"]
            by_row.setdefault((key, candidate["axis"]), (rank, candidate))
        by_claim: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
        for rank, candidate in sorted(by_row.values(), key=lambda pair: pair[0]):
            by_claim.setdefault((norm(candidate["calibrated_claim"]), candidate["axis"]), (rank, candidate))
        per_axis: dict[str, list[dict[str, Any]]] = {axis: [] for axis in AXES}
        for _, candidate in sorted(by_claim.values(), key=lambda pair: pair[0]):
            per_axis[candidate["axis"]].append(candidate)
        return per_axis

    def stats(self, chosen: dict[str, list[dict[str, Any]]], kept: dict[str, int]) -> dict[str, Any]:
        return {
            "drafts": {axis: self.drafts[axis] for axis in AXES},
            "removed_by_lint": {
                name: {axis: self.removed[name][axis] for axis in AXES} for name in DRAFT_LINTS
            },
            "passing": {axis: sum(c["axis"] == axis for _, c in self.passing) for axis in AXES},
            "distinct": {axis: len(chosen[axis]) for axis in AXES},
            "kept": kept,
        }


def draft_rows(
    source_rows: list[dict[str, Any]], seed: int = 0
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Draft ForceBench rows from AttributionBench rows; returns the rows and drafting statistics.

    Cited claims come first (at most ``MAX_PER_AXIS`` per axis); an axis with fewer than
    ``FLOOR_PER_AXIS`` is filled up to it with evidence-sentence drafts.
    """
    claims, sentences = _Pool(one_per_row=False), _Pool(one_per_row=True)
    for row in source_rows:
        if row["attribution_label"] != "attributable":
            continue
        for sentence in claim_sentences(row["claim"]):
            if not eligible_sentence(sentence, answer_pronoun=True):
                continue
            edits = list(find_edits(sentence))
            span = best_span(sentence, row["references"]) if edits else None
            for edit in edits:
                claims.add(_draft(row, sentence, span or _NO_SPAN, edit, "attribution_claim"), seed)
        for span in (span for reference in row["references"] for span in passage_spans(reference)):
            if eligible_sentence(span.text):
                for edit in find_edits(span.text):
                    sentences.add(_draft(row, span.text, span, edit, "evidence_sentence"), seed)
    from_claims, from_sentences = claims.chosen(), sentences.chosen()
    rows: list[dict[str, Any]] = []
    kept_claims, kept_sentences = {}, {}
    for axis in AXES:
        mine = from_claims[axis][:MAX_PER_AXIS]
        used = {norm(c["calibrated_claim"]) for c in mine}
        fill = [c for c in from_sentences[axis] if norm(c["calibrated_claim"]) not in used]
        fill = fill[: max(0, FLOOR_PER_AXIS - len(mine))]
        kept_claims[axis], kept_sentences[axis] = len(mine), len(fill)
        rows.extend(sorted(mine + fill, key=lambda c: c["id"]))
    stats = {
        "attribution_claim": claims.stats(from_claims, kept_claims),
        "evidence_sentence": sentences.stats(from_sentences, kept_sentences),
    }
    return rows, stats


_NO_SPAN = Span("", "")
"""The span of a claim that shares no content word with its cited passages (fails the span lints)."""


def build_forcebench(source: SourceRef, out_dir: Path, seed: int = 0) -> dict[str, Any]:
    """Build ``out_dir/data/forcebench/test.parquet`` from AttributionBench; return the build report.

    Two builds from the same source and seed write byte-identical files.
    """
    source_rows, read = read_attributionbench(source)
    rows, stats = draft_rows(source_rows, seed)
    table = write_split(Path(out_dir), CONFIG, rows, FORCEBENCH_FEATURES)
    digest = update_card(Path(out_dir) / "README.md", CONFIG, FORCEBENCH_FEATURES, len(rows), table.nbytes)
    return {
        "config": CONFIG,
        "path": str(split_path(Path(out_dir), CONFIG)),
        "sha256": digest,
        "rows": len(rows),
        "seed": seed,
        "axis": {axis: sum(r["axis"] == axis for r in rows) for axis in AXES},
        "severity": {str(s): n for s, n in sorted(Counter(r["severity"] for r in rows).items())},
        "annotation_status": dict(Counter(r["annotation_status"] for r in rows)),
        "claim_source": {
            axis: {
                cs: sum(r["axis"] == axis and r["claim_source"] == cs for r in rows) for cs in CLAIM_SOURCES
            }
            for axis in AXES
        },
        "attribution_claim_share": round(
            sum(r["claim_source"] == "attribution_claim" for r in rows) / len(rows), 3
        )
        if rows
        else 0.0,
        "source_dataset": dict(sorted(Counter(r["source"].split(":", 1)[0] for r in rows).items())),
        "lints_passed": lint_counts(rows, DRAFT_LINTS),
        "drafting": stats,
        "source": {
            "name": "attributionbench",
            **read,
            "rows_read": len(source_rows),
            "attributable": sum(r["attribution_label"] == "attributable" for r in source_rows),
        },
    }
