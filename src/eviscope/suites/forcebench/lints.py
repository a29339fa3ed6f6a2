"""Lints for ForceBench pairs (issues 4 and 14): each lint reads a row and answers pass or fail.

| lint | passes when |
| --- | --- |
| `distinct` | the raised claim differs from the calibrated claim after `norm` |
| `span_in_evidence` | `evidence_span` is non-empty and a verbatim substring of `evidence` |
| `span_covers_claim` | at least 70% of the calibrated claim's content words (contract §1 tokens less stop words, compared on their first five letters) stand in `evidence_span` |
| `span_licenses_marker` | the span holds the calibrated claim's force marker, or an equally strong one, unnegated (`patterns.licenses`) |
| `marker_window` | a drafting rule rewrites only the marker's window of the calibrated claim, and that gives the raised claim |
| `raised_not_licensed` | the span does not warrant the raised form: no raised marker (`will`, `causes`, `all`, the bare number, …) and not the raised claim word for word (`patterns.licenses_raised`) |
| `single_edit` | the two claims differ in one contiguous run of words, at most 6 words changed in all |
| `same_entities_numbers` | the raised claim adds no entity or number, and removes only those inside the edit |
| `one_axis` | a rule of the row's axis, and of no other axis, rewrites the calibrated claim into the raised one |

Every drafted row passes all nine (`DRAFT_LINTS`). Annotators may reword claims, so the locality
filter of the annotation workflow applies only the four that do not presume the drafting rules
(`LOCALITY_LINTS`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from eviscope.core.normalize import english_stop_words, norm, tokens
from eviscope.suites.forcebench.patterns import (
    Edit,
    find_edits,
    licenses,
    licenses_raised,
    raising_axes,
)

__all__ = [
    "COPY_SHARE",
    "DRAFT_LINTS",
    "LINTS",
    "LOCALITY_LINTS",
    "MIN_COVERAGE",
    "changed_runs",
    "copies_evidence",
    "copy_share",
    "coverage",
    "edit_window",
    "entities_and_numbers",
    "failed_lints",
    "lint_counts",
]

Row = Mapping[str, Any]

MAX_CHANGED_WORDS = 6
MIN_COVERAGE = 0.7
"""The least share of the calibrated claim's content words that the span must hold."""

_WORD = re.compile(r"\S+")
_EDGE_PUNCT = "\"'“”‘’()[]{},.;:!?"
_NUMBER = re.compile(r"^\$?\d[\d,]*(?:\.\d+)?%?$")
_NUMBER_RANGE = re.compile(r"^\$?\d[\d,]*(?:\.\d+)?(?:[-–]\$?\d[\d,]*(?:\.\d+)?)+%?$")
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
"""Words that, capitalized, name no entity: pronouns, prepositions, conjunctions, quantifiers and the
force markers (``Currently``, ``Approximately``); not ``us`` (``the US`` is one). Kept apart from
:func:`~eviscope.core.normalize.english_stop_words`, which holds 105 of them: that list with these 21
added in their place replaces 1 of the 370 drafted pairs by another."""


def _words(text: str) -> list[str]:
    return [w.strip(_EDGE_PUNCT) for w in _WORD.findall(text) if w.strip(_EDGE_PUNCT)]


def entities_and_numbers(text: str) -> set[str]:
    """Capitalized words that are not function words, and numbers (commas dropped), lower-cased; a
    range written as one word (``15-25``, ``2.6–6.5``) gives both its numbers.

    >>> sorted(entities_and_numbers("As of 2019, New Jersey had about 1,200 casinos."))
    ['1200', '2019', 'jersey', 'new']
    >>> sorted(entities_and_numbers("Geese live 15-25 years."))
    ['15', '25', 'geese']
    """
    found = set()
    for token in _words(text):
        for word in re.split(r"[-–]", token) if _NUMBER_RANGE.match(token) else [token]:
            if _NUMBER.match(word):
                found.add(word.replace(",", "").lstrip("$").rstrip("%"))
            elif _CAPITALIZED.match(word) and word.lower() not in _FUNCTION_WORDS:
                found.add(word.lower())
    return found


def changed_runs(calibrated: str, raised: str) -> list[tuple[list[str], list[str]]]:
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


COPY_SHARE = 0.9
"""A claim with this share of its words or more in one contiguous run of the evidence copies it."""


def copy_share(claim: str, evidence: str) -> float:
    """The share of ``claim``'s words (contract §1 tokens) in the longest run of them that stands,
    contiguous and in order, in ``evidence``; 0 for a claim without words.

    >>> copy_share("Coffee may reduce fatigue.", "Studies say coffee may reduce fatigue in adults.")
    1.0
    >>> copy_share("Coffee is linked to less fatigue.", "Coffee may reduce fatigue in adults.")
    0.16666666666666666
    """
    a, b = tokens(claim), tokens(evidence)
    if not a:
        return 0.0
    match = difflib.SequenceMatcher(a=a, b=b, autojunk=False).find_longest_match(0, len(a), 0, len(b))
    return match.size / len(a)


def copies_evidence(row: Row) -> bool:
    """Either claim of ``row`` copies its evidence: ``COPY_SHARE`` or more of its words in one run of
    it (contract §5: then whichever claim copies the evidence would look the warranted one)."""
    return any(
        copy_share(row[name], row["evidence"]) >= COPY_SHARE for name in ("calibrated_claim", "raised_claim")
    )


def _distinct(row: Row) -> bool:
    return norm(row["calibrated_claim"]) != norm(row["raised_claim"])


def _span_in_evidence(row: Row) -> bool:
    return bool(row["evidence_span"].strip()) and row["evidence_span"] in row["evidence"]


def _content_stems(text: str) -> set[str]:
    stop = english_stop_words()
    return {word[:5] for word in tokens(text) if word not in stop}


def coverage(span: str, claim: str) -> float:
    """The share of ``claim``'s content words (contract §1 tokens less English stop words, each cut to
    its first five letters) that also stand in ``span``; 0 for a claim without content words.

    >>> coverage("Coffee might reduce fatigue in adults.", "Coffee may reduce fatigue.")
    1.0
    >>> coverage("Tea is popular.", "Coffee may reduce fatigue.")
    0.0
    """
    claim_stems = _content_stems(claim)
    return len(claim_stems & _content_stems(span)) / len(claim_stems) if claim_stems else 0.0


def _span_covers_claim(row: Row) -> bool:
    return coverage(row["evidence_span"], row["calibrated_claim"]) >= MIN_COVERAGE


def _row_edits(row: Row) -> list[Edit]:
    """The rule edits of the row's axis that turn the calibrated claim into the raised one."""
    target = norm(row["raised_claim"])
    return [e for e in find_edits(row["calibrated_claim"], row["axis"]) if norm(e.raised) == target]


def _span_licenses_marker(row: Row) -> bool:
    return any(licenses(row["evidence_span"], edit) for edit in _row_edits(row))


def _marker_window(row: Row) -> bool:
    target = norm(row["raised_claim"])
    return any(norm(edit.raised) == target for edit in find_edits(row["calibrated_claim"]))


def _raised_not_licensed(row: Row) -> bool:
    edits = _row_edits(row)
    return bool(edits) and not any(licenses_raised(row["evidence_span"], edit) for edit in edits)


def _single_edit(row: Row) -> bool:
    runs = changed_runs(row["calibrated_claim"], row["raised_claim"])
    return len(runs) == 1 and sum(len(old) + len(new) for old, new in runs) <= MAX_CHANGED_WORDS


def _same_entities_numbers(row: Row) -> bool:
    calibrated = entities_and_numbers(row["calibrated_claim"])
    raised = entities_and_numbers(row["raised_claim"])
    removed_in_edit = set()
    for old, _new in changed_runs(row["calibrated_claim"], row["raised_claim"]):
        removed_in_edit |= entities_and_numbers(" ".join(old))
    return raised <= calibrated and calibrated - raised <= removed_in_edit


def _one_axis(row: Row) -> bool:
    return raising_axes(row["calibrated_claim"], row["raised_claim"]) == {row["axis"]}


LINTS: dict[str, Callable[[Row], bool]] = {
    "distinct": _distinct,
    "span_in_evidence": _span_in_evidence,
    "span_covers_claim": _span_covers_claim,
    "span_licenses_marker": _span_licenses_marker,
    "marker_window": _marker_window,
    "raised_not_licensed": _raised_not_licensed,
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
