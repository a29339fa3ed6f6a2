"""String-matching shortcuts: what the documents of a row, compared only as strings, tell of its
``expected_action`` (contract §2, "No string-matching shortcut either").

A system that never reads the question can still compare the documents with each other: a conflict
passage made by editing a copy of the support is a *near-duplicate* of it that differs in one value.
This module measures that on the documents' words (contract §1 :func:`~eviscope.core.normalize.tokens`):

- :func:`closest_pair`: the two documents of a row with the largest word containment (the share of
  one document's distinct words found in the other), and the tokens in which they differ;
- :data:`SURFACE_FEATURES`: the features of that pair that the surface audit fits, declared as a
  table like the evidence-blind :data:`~eviscope.suites.eviscope.shortcuts.FEATURE_SETS` (the row's
  layout among them);
- :func:`surface_audit`: the same held-out audit as :func:`~eviscope.suites.eviscope.shortcuts.audit`
  (a depth-4 tree per feature and all together, fitted on one half of the quartets, scored on the other,
  against the majority rate) over these features.

The ``near-duplicate`` and ``diff`` reference systems
(:mod:`eviscope.suites.eviscope.reference_systems`) act on the same pair.

>>> support = "The band was founded in 1995 in Paris by two brothers."
>>> row = {"documents": [{"text": support}, {"text": "Rivers flow east."},
...                      {"text": support.replace("1995", "1993")}]}
>>> pair = closest_pair(row)
>>> round(pair.containment, 2), pair.differing, differing_kinds(pair.differing)
(0.89, ('1993', '1995'), {'year': 2, 'number': 0, 'other': 0})
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache
from itertools import permutations
from typing import Any

from eviscope.core.normalize import tokens
from eviscope.suites.eviscope.leaks import NUMBER_WORDS
from eviscope.suites.eviscope.shortcuts import FEATURE_SETS, audit

__all__ = [
    "NEAR_DUPLICATE",
    "SURFACE_FEATURES",
    "TOKEN_KINDS",
    "Pair",
    "closest_pair",
    "differing_kinds",
    "surface_audit",
]

Row = Mapping[str, Any]

NEAR_DUPLICATE = 0.8
"""Least word containment at which the surface audit calls two documents near-duplicates."""

_YEAR = re.compile(r"1\d{3}s?|20\d{2}s?")
_NUMBER_WORDS = frozenset(NUMBER_WORDS)

TOKEN_KINDS: dict[str, Callable[[str], bool]] = {
    "year": lambda token: bool(_YEAR.fullmatch(token)),
    "number": lambda token: any(ch.isdigit() for ch in token) or token in _NUMBER_WORDS,
    "other": lambda token: True,
}
"""The kind of a differing token, the first that matches in this order: a ``year`` (1000–2099, or its
decade ``1990s``), another ``number`` (any token with a digit, or a number word from two to twenty),
``other``."""


@dataclass(frozen=True)
class Pair:
    """The two documents of a row whose words overlap most."""

    inner: int
    """Position of the document whose words are measured (the copy, when one is an edited copy)."""
    outer: int
    """Position of the document they are found in."""
    containment: float
    """Share of the inner document's distinct tokens that the outer document holds."""
    differing: tuple[str, ...]
    """Tokens in which the two differ where they are aligned (:func:`differing_tokens`), sorted."""


def containment(inner: Sequence[str], outer: Sequence[str]) -> float:
    """Share of the distinct tokens of ``inner`` found in ``outer`` (0 when ``inner`` has none)."""
    words = set(inner)
    return len(words & set(outer)) / len(words) if words else 0.0


def differing_tokens(inner: Sequence[str], outer: Sequence[str]) -> list[str]:
    """Tokens of an alignment of ``inner`` against ``outer`` (difflib, no junk heuristic) that do not
    match: every unmatched token of ``inner``, and the unmatched tokens of ``outer`` between its first
    and last matched token (what ``outer`` holds beyond a window of it is no difference)."""
    matcher = SequenceMatcher(None, inner, outer, autojunk=False)
    blocks = [block for block in matcher.get_matching_blocks() if block.size]
    if not blocks:
        return list(inner)
    start, end = blocks[0].b, blocks[-1].b + blocks[-1].size
    out: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        out += inner[i1:i2]
        out += [token for j, token in enumerate(outer[j1:j2], j1) if start <= j < end]
    return out


@lru_cache(maxsize=8192)
def _closest(texts: tuple[str, ...]) -> Pair | None:
    words = [tokens(text) for text in texts]
    best: tuple[float, int, int] | None = None
    for i, j in permutations(range(len(texts)), 2):
        share = containment(words[i], words[j])
        if best is None or share > best[0]:
            best = (share, i, j)
    if best is None:
        return None
    share, i, j = best
    return Pair(i, j, share, tuple(sorted(differing_tokens(words[i], words[j]))))


def closest_pair(row: Row) -> Pair | None:
    """The ordered pair of the row's documents with the largest containment (the first such pair in
    position order on a tie); None for a row of fewer than two documents."""
    return _closest(tuple(str(document["text"]) for document in row["documents"]))


def differing_kinds(differing: Sequence[str]) -> dict[str, int]:
    """How many of ``differing`` are of each of :data:`TOKEN_KINDS`."""
    counts = dict.fromkeys(TOKEN_KINDS, 0)
    for token in differing:
        counts[next(kind for kind, test in TOKEN_KINDS.items() if test(token))] += 1
    return counts


def _near_duplicate(row: Row) -> Pair | None:
    pair = closest_pair(row)
    return pair if pair is not None and pair.containment >= NEAR_DUPLICATE else None


def _differs(row: Row, width: int) -> list[float]:
    pair = _near_duplicate(row)
    return [-1.0 if pair is None else float(bool(pair.differing))]


def _differing_count(row: Row, width: int) -> list[float]:
    pair = _near_duplicate(row)
    return [-1.0 if pair is None else float(len(pair.differing))]


def _differing_kinds(row: Row, width: int) -> list[float]:
    pair = _near_duplicate(row)
    if pair is None:
        return [-1.0] * len(TOKEN_KINDS)
    return [float(n) for n in differing_kinds(pair.differing).values()]


def _layout(row: Row, width: int) -> list[float]:
    return [x for feature in FEATURE_SETS.values() for x in feature(row, width)]


SURFACE_FEATURES: dict[str, Callable[[Row, int], list[float]]] = {
    "max-containment": lambda row, width: [getattr(closest_pair(row), "containment", 0.0)],
    "near-duplicate-differs": _differs,
    "differing-tokens": _differing_count,
    "differing-kinds": _differing_kinds,
    "layout": _layout,
}
"""Features of a row that read its documents only as strings, never the question, by name:

- ``max-containment``: the largest word containment between two of its documents (0 with one);
- ``near-duplicate-differs``: whether its closest pair, when a near-duplicate (containment at least
  :data:`NEAR_DUPLICATE`), differs at all (1) or not (0); -1 without a near-duplicate;
- ``differing-tokens``: how many tokens that pair differs in (-1 without a near-duplicate);
- ``differing-kinds``: how many of them are years, other numbers and other words (:data:`TOKEN_KINDS`);
- ``layout``: every evidence-blind layout feature (:data:`~eviscope.suites.eviscope.shortcuts.FEATURE_SETS`).

``surface`` (in :func:`surface_audit`) is all of them together."""
ALL_SURFACE = "surface"


def surface_audit(rows: Sequence[Row]) -> dict[str, Any]:
    """The audit of :func:`eviscope.suites.eviscope.shortcuts.audit` on :data:`SURFACE_FEATURES` (and
    ``surface``, all of them), with ``near_duplicate_threshold``: held-out accuracy of each feature and
    of the majority action, on all rows and on the rows with more than one document (per ``source``
    too, where rows name one)."""
    return {
        **audit(rows, SURFACE_FEATURES, ALL_SURFACE),
        "near_duplicate_threshold": NEAR_DUPLICATE,
    }
