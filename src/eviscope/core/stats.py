"""Paired statistics any benchmark uses: the exact McNemar test and a paired bootstrap interval.

>>> round(mcnemar_p(1, 15), 5), round(mcnemar_p(2, 13), 4), mcnemar_p(1, 0)
(0.00052, 0.0074, 1.0)
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from eviscope.core.errors import EviScopeError

__all__ = [
    "CONFIDENCE",
    "DEFAULT_DRAWS",
    "DEFAULT_SEED",
    "bootstrap_ci",
    "cohen_kappa",
    "mcnemar_p",
    "stable_hash",
    "text_fingerprint",
]

DEFAULT_DRAWS = 10_000
DEFAULT_SEED = 0
CONFIDENCE = 0.95


def mcnemar_p(b: int, c: int) -> float:
    """Exact two-sided McNemar p-value: ``min(1, 2 * BinomCDF(min(b, c); b + c, 0.5))``, 1 if b+c=0."""
    from scipy.stats import binom  # imported here: scipy.stats adds ~1 s to every `eviscope` start

    if b + c == 0:
        return 1.0
    return float(min(1.0, 2.0 * binom.cdf(min(b, c), b + c, 0.5)))


def bootstrap_ci(
    a: np.ndarray,
    b: np.ndarray,
    draws: int = DEFAULT_DRAWS,
    seed: int = DEFAULT_SEED,
    confidence: float = CONFIDENCE,
) -> tuple[float, float]:
    """Percentile interval of ``mean(a) - mean(b)`` over quartets resampled with replacement.

    ``a`` and ``b`` are paired per-quartet values; each draw resamples quartets, so the pairing is
    kept. The same seed gives the same interval.
    """
    diff = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    if diff.size == 0:
        raise EviScopeError("bootstrap needs at least one quartet")
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, diff.size, size=(draws, diff.size))].mean(axis=1)
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(means, [tail, 100.0 - tail])
    return float(low), float(high)


def stable_hash(seed: int, row_id: str) -> str:
    """The tie-breaking key of a row: independent of input order, fixed for a seed."""
    return hashlib.sha256(f"{seed}\x1f{row_id}".encode()).hexdigest()


def text_fingerprint(*parts: str) -> str:
    """The 16-hex sha256 of the texts a reader was shown, joined by newlines: a mark made on them holds
    for this text only (a rebuild that changes any of it leaves the mark stale).

    >>> text_fingerprint("5733be", "When?", "Built in 1901.", "Built in 1905.")
    '792f65374d910742'
    """
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:16]


def cohen_kappa(
    a: Sequence[Any],
    b: Sequence[Any],
    labels: Sequence[Any] | None = None,
    *,
    when_constant: float | None = 1.0,
) -> float | None:
    """Cohen's kappa of two raters' labels of the same items (scikit-learn's ``cohen_kappa_score``):
    the one wrapper for every agreement the suite reports. None when there is no item; where both
    raters gave one and the same label to every item kappa is 0/0, and ``when_constant`` is returned
    (1.0: they agree perfectly; None: undefined).

    >>> round(cohen_kappa(["yes", "no", "yes"], ["yes", "no", "no"]), 3), cohen_kappa(["no"], ["no"]), cohen_kappa([], [])
    (0.4, 1.0, None)
    """
    from sklearn.metrics import cohen_kappa_score  # here, not at import: every CLI command loads stats

    if not a:
        return None
    if len(set(a) | set(b)) == 1:
        return when_constant
    value = float(cohen_kappa_score(list(a), list(b), labels=list(labels) if labels is not None else None))
    return None if value != value else value  # NaN: sklearn's own 0/0
