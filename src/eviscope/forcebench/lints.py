"""Locality lints for ForceBench pairs (issue 4): each lint reads a row and answers pass or fail.

| lint | passes when |
| --- | --- |
| `distinct` | the raised claim differs from the calibrated claim after `norm` |
| `span_in_evidence` | `evidence_span` is non-empty and a verbatim substring of `evidence` |
| `warranted` | the calibrated claim is the wording of the span (`contains(evidence_span, calibrated_claim)`) |
| `single_edit` | the two claims differ in one contiguous run of words, at most 6 words changed in all |
| `same_entities_numbers` | the raised claim adds no entity or number, and removes only those inside the edit |
| `one_axis` | a rule of the row's axis, and of no other axis, rewrites the calibrated claim into the raised one |

Every drafted row passes all six (`DRAFT_LINTS`). Annotators may reword claims, so the locality
filter of the annotation workflow applies only the four that do not presume the drafting rules
(`LOCALITY_LINTS`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from eviscope.forcebench.patterns import raising_axes
from eviscope.normalize import contains, norm

__all__ = [
    "DRAFT_LINTS",
    "LINTS",
    "LOCALITY_LINTS",
    "edit_window",
    "entities_and_numbers",
    "failed_lints",
    "lint_counts",
]

Row = Mapping[str, Any]

MAX_CHANGED_WORDS = 6

_WORD = re.compile(r"\S+")
_EDGE_PUNCT = "\"'“”‘’()[]{},.;:!?"
_NUMBER = re.compile(r"^\$?\d[\d,]*(?:\.\d+)?%?$")
_CAPITALIZED = re.compile(r"^[A-Z][\w'’.&-]*$")
_FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "they",
        "their",
        "them",
        "he",
        "his",
        "she",
        "her",
        "we",
        "our",
        "you",
        "your",
        "i",
        "in",
        "on",
        "at",
        "of",
        "for",
        "to",
        "from",
        "by",
        "with",
        "as",
        "about",
        "around",
        "over",
        "under",
        "after",
        "before",
        "during",
        "since",
        "until",
        "and",
        "or",
        "but",
        "if",
        "when",
        "while",
        "because",
        "although",
        "though",
        "so",
        "than",
        "then",
        "there",
        "here",
        "currently",
        "today",
        "some",
        "many",
        "several",
        "most",
        "all",
        "each",
        "every",
        "any",
        "no",
        "none",
        "both",
        "few",
        "more",
        "less",
        "fewer",
        "majority",
        "may",
        "might",
        "could",
        "can",
        "will",
        "would",
        "should",
        "must",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
        "approximately",
        "roughly",
        "nearly",
        "almost",
        "estimated",
        "between",
        "up",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "where",
        "why",
        "how",
        "according",
        "however",
        "moreover",
        "also",
        "further",
        "furthermore",
        "overall",
        "generally",
        "typically",
        "usually",
        "often",
        "sometimes",
        "frequently",
        "commonly",
        "possibly",
        "potentially",
        "perhaps",
        "probably",
    ]
)


def _words(text: str) -> list[str]:
    return [w.strip(_EDGE_PUNCT) for w in _WORD.findall(text) if w.strip(_EDGE_PUNCT)]


def entities_and_numbers(text: str) -> set[str]:
    """Capitalized words that are not function words, and numbers (commas dropped), lower-cased.

    >>> sorted(entities_and_numbers("As of 2019, New Jersey had about 1,200 casinos."))
    ['1200', '2019', 'jersey', 'new']
    """
    found = set()
    for word in _words(text):
        if _NUMBER.match(word):
            found.add(word.replace(",", "").lstrip("$").rstrip("%"))
        elif _CAPITALIZED.match(word) and word.lower() not in _FUNCTION_WORDS:
            found.add(word.lower())
    return found


def _changed_runs(calibrated: str, raised: str) -> list[tuple[list[str], list[str]]]:
    """The (removed words, inserted words) of each run where the two claims differ."""
    a, b = _words(calibrated), _words(raised)
    matcher = difflib.SequenceMatcher(a=[w.lower() for w in a], b=[w.lower() for w in b], autojunk=False)
    return [(a[i1:i2], b[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def edit_window(calibrated: str, raised: str, context: int = 1) -> tuple[str, str]:
    """The changed words of each claim with ``context`` unchanged words on either side.

    >>> edit_window("Coffee may reduce fatigue in adults.", "Coffee will reduce fatigue in adults.")
    ('Coffee may reduce', 'Coffee will reduce')
    """
    a, b = _words(calibrated), _words(raised)
    matcher = difflib.SequenceMatcher(a=[w.lower() for w in a], b=[w.lower() for w in b], autojunk=False)
    changed = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    if not changed:
        return calibrated, raised
    i1, j1 = changed[0][1], changed[0][3]
    i2, j2 = changed[-1][2], changed[-1][4]
    before = min(context, i1, j1)
    after = min(context, len(a) - i2, len(b) - j2)
    return " ".join(a[i1 - before : i2 + after]), " ".join(b[j1 - before : j2 + after])


def _distinct(row: Row) -> bool:
    return norm(row["calibrated_claim"]) != norm(row["raised_claim"])


def _span_in_evidence(row: Row) -> bool:
    return bool(row["evidence_span"].strip()) and row["evidence_span"] in row["evidence"]


def _warranted(row: Row) -> bool:
    return contains(row["evidence_span"], row["calibrated_claim"])


def _single_edit(row: Row) -> bool:
    runs = _changed_runs(row["calibrated_claim"], row["raised_claim"])
    return len(runs) == 1 and sum(len(old) + len(new) for old, new in runs) <= MAX_CHANGED_WORDS


def _same_entities_numbers(row: Row) -> bool:
    calibrated = entities_and_numbers(row["calibrated_claim"])
    raised = entities_and_numbers(row["raised_claim"])
    removed_in_edit = set()
    for old, _new in _changed_runs(row["calibrated_claim"], row["raised_claim"]):
        removed_in_edit |= entities_and_numbers(" ".join(old))
    return raised <= calibrated and calibrated - raised <= removed_in_edit


def _one_axis(row: Row) -> bool:
    return raising_axes(row["calibrated_claim"], row["raised_claim"]) == {row["axis"]}


LINTS: dict[str, Callable[[Row], bool]] = {
    "distinct": _distinct,
    "span_in_evidence": _span_in_evidence,
    "warranted": _warranted,
    "single_edit": _single_edit,
    "same_entities_numbers": _same_entities_numbers,
    "one_axis": _one_axis,
}
"""Every lint by name, in reporting order."""

DRAFT_LINTS: tuple[str, ...] = tuple(LINTS)
LOCALITY_LINTS: tuple[str, ...] = ("distinct", "span_in_evidence", "single_edit", "same_entities_numbers")


def failed_lints(row: Row, names: Iterable[str] = DRAFT_LINTS) -> list[str]:
    """The names of the lints ``row`` fails, in reporting order."""
    return [name for name in names if not LINTS[name](row)]


def lint_counts(rows: Iterable[Row], names: Iterable[str] = DRAFT_LINTS) -> dict[str, int]:
    """How many of ``rows`` pass each lint."""
    names = tuple(names)
    counts = dict.fromkeys(names, 0)
    for row in rows:
        for name in names:
            counts[name] += LINTS[name](row)
    return counts
