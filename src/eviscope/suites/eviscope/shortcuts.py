"""Evidence-blind shortcuts: what a row's layout alone tells of its ``expected_action`` (contract §2).

A row's *layout* is what a system sees without reading a passage: how many documents it shows, how
many carry the question's article title, and each document's position and length. If the layout
predicts the expected action, a system can pass the benchmark by counting. The build audits every
config with :func:`audit` (``build_report.json``, the build table, the card) and the evidence-blind
reference systems (:mod:`eviscope.suites.eviscope.reference_systems`: ``doc-count``,
``title-count``, ``length-gaps``, ``layout``) act on the same :data:`FEATURE_SETS`, fitted the same way.

Each feature set is fitted with a depth-limited scikit-learn decision tree on one half of the
quartets (:func:`split`: by quartet, seeded) and scored on the other half, and the other way round
(two-fold cross-fitting: every row is predicted once, by a tree that never saw its quartet, which
halves the variance a single held-out half has), against the *majority rate*: the rate, over the
same rows, of the action most common in the half each row was not in. Both are measured on all
rows and on the rows that show more than one document (a single document is always a sufficient
row, so that part of the layout is the paper's design, not a leak). :func:`audit` takes any table
of features: the surface audit (:mod:`eviscope.suites.eviscope.surface`) fits the documents' string
features the same way; where rows name their ``source``, both are also reported per source.

>>> rows = [{"id": f"q{i}-{v}", "quartet_id": f"q{i}", "title": "T", "expected_action": a,
...          "documents": [{"title": "T", "text": "x" * n} for n in lens]}
...         for i in range(20) for v, a, lens in (("sufficient", "answer", [5]), ("noisy", "answer", [5, 9, 7]),
...                                            ("insufficient", "abstain", [8, 9, 7]),
...                                            ("conflicting", "flag_conflict", [5, 5]))]
>>> result = audit(rows)
>>> result["majority"]["multi_document_rows"], result["features"]["doc-count"]["multi_document_rows"]
(0.3333, 0.6667)
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from itertools import pairwise
from typing import Any

import numpy as np

__all__ = [
    "FEATURE_SETS",
    "MAX_DEPTH",
    "FeatureTable",
    "audit",
    "cross_fit_actions",
    "layout_features",
    "split",
]

Row = Mapping[str, Any]

ACTION_CODES = ("answer", "abstain", "flag_conflict")
"""Actions in code order: a tie in a tree's leaf goes to the lowest code, ``answer``, so an
evidence-blind system unsure of the layout defers to the system it wraps."""
MAX_DEPTH = 4
"""Depth of every audit tree: enough for any rule on counts and a few length thresholds."""
SPLIT_SALT = "shortcut-audit"


def _lengths(row: Row) -> list[int]:
    return [len(str(document["text"])) for document in row["documents"]]


def _same_title(row: Row) -> list[bool]:
    return [document["title"] == row["title"] for document in row["documents"]]


def _closest_gap(lengths: Sequence[int]) -> float:
    """The smallest relative length difference between two of ``lengths`` (1.0 with fewer than two)."""
    ordered = sorted(lengths)
    gaps = [(b - a) / b for a, b in pairwise(ordered) if b]
    return min(gaps, default=1.0)


def _positions(row: Row, width: int) -> list[float]:
    flags = [1.0 if same else 0.0 for same in _same_title(row)]
    return (flags + [-1.0] * width)[:width]


def _position_lengths(row: Row, width: int) -> list[float]:
    return ([float(n) for n in _lengths(row)] + [0.0] * width)[:width]


def _length_gaps(row: Row, width: int) -> list[float]:
    lengths, same = _lengths(row), _same_title(row)
    return [_closest_gap(lengths), _closest_gap([n for n, s in zip(lengths, same, strict=True) if s])]


FeatureTable = Mapping[str, Callable[[Row, int], list[float]]]
"""Features of a row by name: each gives a row's values, knowing the most documents a row shows."""

FEATURE_SETS: dict[str, Callable[[Row, int], list[float]]] = {
    "doc-count": lambda row, width: [float(len(row["documents"]))],
    "title-count": lambda row, width: [float(sum(_same_title(row)))],
    "title-positions": _positions,
    "lengths": _position_lengths,
    "length-gaps": _length_gaps,
}
"""Evidence-blind features of a row, by name; ``width`` is the most documents a row of the config shows.

- ``doc-count``: the number of documents;
- ``title-count``: how many carry the question's article title;
- ``title-positions``: at each position, whether its document carries the title (-1: no document);
- ``lengths``: each position's document length in characters (0: no document);
- ``length-gaps``: the smallest relative length difference between two documents, and between two
  documents that carry the title (an edited copy of a passage is about as long as the passage).

``layout`` (in :func:`audit` and the ``layout`` reference system) is all of them together."""
ALL_FEATURES = "layout"


def layout_features(
    rows: Sequence[Row], feature_set: str, table: FeatureTable = FEATURE_SETS, combined: str = ALL_FEATURES
) -> np.ndarray:
    """The ``rows`` × features matrix of ``feature_set``: a key of ``table`` (by default
    :data:`FEATURE_SETS`), or ``combined`` for all of them together."""
    width = max((len(row["documents"]) for row in rows), default=1)
    names = list(table) if feature_set == combined else [feature_set]
    return np.array(
        [[x for name in names for x in table[name](row, width)] for row in rows], dtype=float
    ).reshape(len(rows), -1)


def split(rows: Sequence[Row]) -> tuple[list[int], list[int]]:
    """Row indices of the fitted and the held-out half: quartets ordered by
    ``sha256("shortcut-audit:<quartet_id>")``, the first half (rounded up) fitted."""
    quartets = sorted(
        {str(row["quartet_id"]) for row in rows},
        key=lambda q: hashlib.sha256(f"{SPLIT_SALT}:{q}".encode()).hexdigest(),
    )
    fitted = set(quartets[: (len(quartets) + 1) // 2])
    first = [i for i, row in enumerate(rows) if row["quartet_id"] in fitted]
    second = [i for i, row in enumerate(rows) if row["quartet_id"] not in fitted]
    return first, second


def _codes(rows: Sequence[Row]) -> np.ndarray:
    return np.array([ACTION_CODES.index(row["expected_action"]) for row in rows])


def _fit_predict(x: np.ndarray, y: np.ndarray, fit: list[int], held_out: list[int]) -> np.ndarray:
    from sklearn.tree import DecisionTreeClassifier

    tree = DecisionTreeClassifier(max_depth=MAX_DEPTH, random_state=0)
    tree.fit(x[fit], y[fit])
    return tree.predict(x[held_out])


def _majority(y: np.ndarray, fit: list[int], held_out: list[int]) -> np.ndarray:
    counts = np.bincount(y[fit], minlength=len(ACTION_CODES))
    return np.full(len(held_out), int(np.argmax(counts)))


def _cross_fitted(
    predict: Callable[[list[int], list[int]], np.ndarray], y: np.ndarray, halves: tuple[list[int], list[int]]
) -> float:
    """Accuracy over every row, each predicted by ``predict`` fitted on the other half (two-fold)."""
    predicted = np.empty(len(y), dtype=int)
    for fit, held_out in (halves, halves[::-1]):
        predicted[held_out] = predict(fit, held_out)
    return float(np.mean(predicted == y))


def audit(
    rows: Sequence[Row], table: FeatureTable = FEATURE_SETS, combined: str = ALL_FEATURES
) -> dict[str, Any]:
    """Held-out accuracy of each feature set of ``table`` (by default the layout's :data:`FEATURE_SETS`),
    of all of them together (``combined``) and of the majority action, on all rows and on the rows
    with more than one document; ``max_gain_multi_document`` is the largest margin (in points) by
    which a feature set beats the majority rate on the latter. Where rows name their ``source``,
    ``per_source`` holds the same audit of each source's rows."""
    result = _audit(rows, table, combined)
    sources = sorted({str(row["source"]) for row in rows if row.get("source")})
    if sources:
        result["per_source"] = {
            source: _audit([row for row in rows if row.get("source") == source], table, combined)
            for source in sources
        }
    return result


def _audit(rows: Sequence[Row], table: FeatureTable, combined: str) -> dict[str, Any]:
    parts = {
        "all_rows": list(rows),
        "multi_document_rows": [row for row in rows if len(row["documents"]) > 1],
    }
    result: dict[str, Any] = {
        "majority": {},
        "features": {name: {} for name in [*table, combined]},
    }
    for part, chosen in parts.items():
        halves = split(chosen)
        y = _codes(chosen)
        if not halves[1]:
            result["majority"][part] = None
            for name in result["features"]:
                result["features"][name][part] = None
            continue
        result["majority"][part] = round(_cross_fitted(partial(_majority, y), y, halves), 4)
        for name in result["features"]:
            x = layout_features(chosen, name, table, combined)
            accuracy = _cross_fitted(partial(_fit_predict, x, y), y, halves)
            result["features"][name][part] = round(accuracy, 4)
    majority = result["majority"]["multi_document_rows"]
    gains = [
        f["multi_document_rows"] - majority
        for f in result["features"].values()
        if majority is not None and f["multi_document_rows"] is not None
    ]
    result["max_gain_multi_document"] = round(100 * max(gains, default=0.0), 1)
    result["fitted_quartets"] = len({rows[i]["quartet_id"] for i in split(rows)[0]})
    result["held_out_quartets"] = len({rows[i]["quartet_id"] for i in split(rows)[1]})
    return result


def cross_fit_actions(rows: Sequence[Row], feature_set: str) -> list[str]:
    """The action each row's layout predicts, from a tree fitted on the other half of the quartets
    (:func:`split`, both ways round): every row is predicted by a tree that never saw its quartet."""
    if not rows:
        return []
    x, y = layout_features(rows, feature_set), _codes(rows)
    first, second = split(rows)
    predicted = np.zeros(len(rows), dtype=int)
    for fit, held_out in ((first, second), (second, first)):
        if not held_out:
            continue
        if fit:
            predicted[held_out] = _fit_predict(x, y, fit, held_out)
    return [ACTION_CODES[code] for code in predicted]
