"""Paired comparison of two EviScope systems on the same quartets (contract §4): exact McNemar and
bootstrap (:mod:`eviscope.core.stats`) for every per-quartet metric."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from eviscope.core.errors import EviScopeError
from eviscope.core.stats import DEFAULT_DRAWS, DEFAULT_SEED, bootstrap_ci, mcnemar_p
from eviscope.suites.eviscope.scoring import QUARTET_METRICS, Scores

__all__ = ["DEFAULT_DRAWS", "DEFAULT_SEED", "PairedResult", "compare"]


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
