"""Paired comparison of two systems on the same quartets (SPEC §4): exact McNemar and bootstrap.

>>> round(mcnemar_p(1, 15), 5), round(mcnemar_p(2, 13), 4), mcnemar_p(1, 0)
(0.00052, 0.0074, 1.0)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from eviscope.errors import EviScopeError
from eviscope.scoring import QUARTET_METRICS, Scores

__all__ = ["DEFAULT_DRAWS", "DEFAULT_SEED", "PairedResult", "bootstrap_ci", "compare", "mcnemar_p"]

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


@dataclass(frozen=True)
class PairedResult:
    """One per-quartet metric of systems A and B, with the discordant counts and the tests."""

    metric: str
    a: float
    b_value: float
    difference: float
    b: int
    """Quartets where A holds and B does not."""
    c: int
    """Quartets where B holds and A does not."""
    p_value: float
    ci_low: float
    ci_high: float

    def to_dict(self) -> dict[str, float | int | str]:
        out = asdict(self)
        out["B"] = out.pop("b_value")
        out["A"] = out.pop("a")
        return {
            k: out[k] for k in ("metric", "A", "B", "difference", "b", "c", "p_value", "ci_low", "ci_high")
        }


def compare(
    scores_a: Scores, scores_b: Scores, draws: int = DEFAULT_DRAWS, seed: int = DEFAULT_SEED
) -> list[PairedResult]:
    """McNemar and bootstrap for every per-quartet metric; A and B must be scored on the same rows."""
    qa, qb = scores_a.quartets, scores_b.quartets
    if qa.quartet_ids != qb.quartet_ids:
        raise EviScopeError("the two prediction sets were scored on different quartets")
    results = []
    for metric in QUARTET_METRICS:
        holds_a, holds_b = qa.holds(metric), qb.holds(metric)
        b = int((holds_a & ~holds_b).sum())
        c = int((~holds_a & holds_b).sum())
        low, high = bootstrap_ci(holds_a, holds_b, draws=draws, seed=seed)
        mean_a, mean_b = float(holds_a.mean()), float(holds_b.mean())
        results.append(
            PairedResult(metric, mean_a, mean_b, mean_a - mean_b, b, c, mcnemar_p(b, c), low, high)
        )
    return results
