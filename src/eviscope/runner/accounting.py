"""Per-row usage (contract §3 ``usage``) and run totals; cost comes from the price table in the manifest.

>>> prices = PriceTable(usd_per_1m_prompt_tokens=0.3, usd_per_1m_completion_tokens=2.5)
>>> row_usage([Completion("{}", prompt_tokens=600, completion_tokens=40, latency_s=0.5)], prices)
{'prompt_tokens': 600, 'completion_tokens': 40, 'calls': 1, 'latency_s': 0.5, 'cost_usd': 0.00028}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from eviscope.runner.backends.base import Completion

USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "calls", "latency_s", "cost_usd")


@dataclass(frozen=True)
class PriceTable:
    """US dollars per million prompt and completion tokens (0 for a local model)."""

    usd_per_1m_prompt_tokens: float = 0.0
    usd_per_1m_completion_tokens: float = 0.0

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (
            prompt_tokens * self.usd_per_1m_prompt_tokens
            + completion_tokens * self.usd_per_1m_completion_tokens
        ) / 1e6

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


def row_usage(completions: Sequence[Completion], prices: PriceTable) -> dict[str, Any]:
    """The usage of one row: every completion made for it (all parts, all attempts) summed."""
    prompt = sum(c.prompt_tokens for c in completions)
    completion = sum(c.completion_tokens for c in completions)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "calls": sum(c.calls for c in completions),
        "latency_s": round(sum(c.latency_s for c in completions), 6),
        "cost_usd": round(prices.cost(prompt, completion), 8),
    }


def totals(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Run totals of the ``usage`` of every record."""
    sums: dict[str, Any] = dict.fromkeys(USAGE_FIELDS, 0)
    for record in records:
        for name in USAGE_FIELDS:
            sums[name] += record["usage"][name]
    sums["latency_s"] = round(sums["latency_s"], 6)
    sums["cost_usd"] = round(sums["cost_usd"], 8)
    return sums
