"""Draft the ForceBench candidate pool (config ``forcebench``) from AttributionBench (SPEC §5, issue 4).

Drafting is deterministic and rule-based:

1. Read every row of the AttributionBench copy and keep the ``attributable`` ones: their cited
   passages are real, recoverable evidence for the answer.
2. Split each cited passage into sentences and keep the self-contained ones (see
   ``eligible_sentence``): a capitalised declarative sentence of 7–50 words that ends in a full stop,
   does not open with a pronoun or a ``Label:``, and holds no link, bracket, list bar, list number or
   glued sentences.
3. Run the axis patterns (``eviscope.forcebench.patterns``) on each kept sentence. A match is a
   visible local boundary: the sentence is the calibrated claim (verbatim, so the span warrants it),
   its rewrite is the raised claim, and the pattern gives the axis, severity, rationale and repair.
4. Keep only drafts that pass every locality lint (``eviscope.forcebench.lints``).
5. Keep at most one draft per source row and axis and one per calibrated claim and axis (the one
   with the smallest seeded hash), then cap each axis at ``MAX_PER_AXIS`` drafts by the same hash.

The evidence of a row is the paragraph of the cited passage that holds the span, clipped to the span
and two sentences on either side when the paragraph is longer than ``MAX_EVIDENCE_CHARS``; it is
always a verbatim excerpt. Every row says ``annotation_status: drafted``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eviscope.builders.dataset_card import update_card
from eviscope.builders.parquet_split import split_path, write_split
from eviscope.errors import EviScopeError
from eviscope.forcebench.lints import DRAFT_LINTS, edit_window, failed_lints, lint_counts
from eviscope.forcebench.patterns import Edit, find_edits
from eviscope.forcebench.rows import AXES, CONFIG, FORCEBENCH_FEATURES
from eviscope.sentences import sentence_spans
from eviscope.sources import SourceRef, how_to_point

__all__ = ["MAX_PER_AXIS", "build_forcebench", "draft_rows", "eligible_sentence", "read_attributionbench"]

MAX_PER_AXIS = 100
"""The most drafts kept per axis (smallest seeded hash first)."""

MAX_EVIDENCE_CHARS = 1200
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
    ]
)
_LABEL_START = re.compile(r"^[A-Z][A-Za-z]*: ")
_NUMBERED_END = re.compile(r"\s\d{1,2}\.$")
_BAD_TEXT = re.compile(r"https?:|www\.|[\[\]{}|•…<>@#*_=]|\.\.\.|[a-z][.!?][A-Z]|\s{2,}|[^\x00-\u2fff]")


@dataclass(frozen=True)
class _Sentence:
    text: str
    evidence: str


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
    for field, kind in _REQUIRED.items():
        if not isinstance(row.get(field), kind):
            raise EviScopeError(
                f"{where}: field {field!r} missing or not a {kind.__name__}; {how_to_point('attributionbench')}"
            )
    if not all(isinstance(ref, str) for ref in row["references"]):
        raise EviScopeError(f"{where}: field 'references' must be a list of strings")
    return row


def eligible_sentence(text: str) -> bool:
    """True for a self-contained declarative sentence a claim can be drafted from.

    >>> eligible_sentence("Regular exercise may lower blood pressure in older adults.")
    True
    >>> eligible_sentence("It may lower blood pressure in older adults.")
    False
    """
    words = text.split()
    return (
        7 <= len(words) <= 50
        and text[0].isupper()
        and text.endswith(".")
        and words[0].lower() not in _PRONOUN_START
        and not _BAD_TEXT.search(text)
        and not _LABEL_START.match(text)
        and not _NUMBERED_END.search(text)
    )


def _sentences(reference: str) -> Iterator[_Sentence]:
    """The eligible sentences of one cited passage, each with its verbatim evidence excerpt."""
    for paragraph in re.finditer(r"[^\n]+", reference):
        para = paragraph.group(0)
        bounds = sentence_spans(para)
        for i, (s, e) in enumerate(bounds):
            text = para[s:e]
            if not text or not eligible_sentence(text):
                continue
            if len(para) <= MAX_EVIDENCE_CHARS:
                evidence = para.strip()
            else:
                lo, hi = bounds[max(0, i - 2)][0], bounds[min(len(bounds) - 1, i + 2)][1]
                evidence = para[lo:hi]
            yield _Sentence(text, evidence)


def _hash(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()


def _draft(row: dict[str, Any], sentence: _Sentence, edit: Edit) -> dict[str, Any]:
    old, new = edit.old.strip(" ,"), edit.new
    calibrated_window, raised_window = edit_window(sentence.text, edit.raised)
    if new:
        rationale = (
            f'The evidence says "{old}": {edit.rule.boundary}. The raised claim says "{new}", '
            f"a stronger {edit.rule.axis} than the passage warrants."
        )
    else:
        rationale = (
            f'The evidence limits the claim with "{old}": {edit.rule.boundary}. The raised claim drops '
            f"the limit, a stronger {edit.rule.axis} than the passage warrants."
        )
    return {
        "id": "fb-" + _hash(row["id"], edit.rule.axis, edit.rule.name, edit.start, sentence.text)[:10],
        "axis": edit.rule.axis,
        "severity": edit.severity,
        "context": row["question"].strip() or row["claim"].strip(),
        "evidence": sentence.evidence,
        "evidence_span": sentence.text,
        "calibrated_claim": sentence.text,
        "raised_claim": edit.raised,
        "repair": f'Write "{calibrated_window}" instead of "{raised_window}".',
        "rationale": rationale,
        "source": f"AttributionBench/{row['src_dataset']}:{row['id']}",
        "annotation_status": "drafted",
    }


def draft_rows(
    source_rows: list[dict[str, Any]], seed: int = 0
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Draft ForceBench rows from AttributionBench rows; returns the rows and drafting statistics."""
    drafted = 0
    failures: Counter[str] = Counter()
    best: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
    for row in source_rows:
        if row["attribution_label"] != "attributable":
            continue
        for reference in row["references"]:
            for sentence in _sentences(reference):
                for edit in find_edits(sentence.text):
                    candidate = _draft(row, sentence, edit)
                    drafted += 1
                    failed = failed_lints(candidate)
                    failures.update(failed)
                    key = (row["id"], edit.rule.axis)
                    rank = _hash(seed, candidate["id"])
                    if not failed and (key not in best or rank < best[key][0]):
                        best[key] = (rank, candidate)
    by_claim: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
    for rank, candidate in best.values():
        key = (candidate["calibrated_claim"], candidate["axis"])
        if key not in by_claim or rank < by_claim[key][0]:
            by_claim[key] = (rank, candidate)
    per_axis: dict[str, list[tuple[str, dict[str, Any]]]] = {axis: [] for axis in AXES}
    for rank, candidate in by_claim.values():
        per_axis[candidate["axis"]].append((rank, candidate))
    rows = []
    for axis in AXES:
        kept = sorted(per_axis[axis], key=lambda pair: pair[0])[:MAX_PER_AXIS]
        rows.extend(sorted((c for _, c in kept), key=lambda c: c["id"]))
    stats = {
        "drafts": drafted,
        "drafts_failing": dict(sorted(failures.items())),
        "passing_before_cap": {axis: len(per_axis[axis]) for axis in AXES},
    }
    return rows, stats


def build_forcebench(source: SourceRef, out_dir: Path, seed: int = 0) -> dict[str, Any]:
    """Build ``out_dir/data/forcebench/test.parquet`` from AttributionBench; return the build report.

    Two builds from the same source and seed write byte-identical files.
    """
    source_rows, read = read_attributionbench(source)
    rows, stats = draft_rows(source_rows, seed)
    table = write_split(Path(out_dir), CONFIG, rows, FORCEBENCH_FEATURES)
    update_card(Path(out_dir) / "README.md", CONFIG, FORCEBENCH_FEATURES, len(rows), table.nbytes)
    return {
        "config": CONFIG,
        "path": str(split_path(Path(out_dir), CONFIG)),
        "rows": len(rows),
        "seed": seed,
        "axis": {axis: sum(r["axis"] == axis for r in rows) for axis in AXES},
        "severity": {str(s): n for s, n in sorted(Counter(r["severity"] for r in rows).items())},
        "annotation_status": dict(Counter(r["annotation_status"] for r in rows)),
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
