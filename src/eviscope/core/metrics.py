"""A benchmark's metric table: one declaration per metric (name, level, direction, whether it is a
usage figure and whether the harnesses report it), from which scoring orders its output, the
harness tasks list and aggregate their metrics, the Space sorts its leaderboard and the tests check
the lm-eval task files.

>>> table = (Metric("accuracy", "row", higher_is_better=True), Metric("cost", "row", False, usage=True))
>>> names(table), names(table, usage=False), lower_is_better(table)
(('accuracy', 'cost'), ('accuracy',), frozenset({'cost'}))
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Level = Literal["row", "quartet", "pair"]


@dataclass(frozen=True)
class Metric:
    """One metric of a benchmark's table."""

    name: str
    level: Level
    """What one value is computed over: all rows, quartets, or ForceBench pairs."""
    higher_is_better: bool
    usage: bool = False
    """A usage figure (tokens, calls, latency, cost): ``n/a`` when no prediction carries usage."""
    harness: bool = True
    """Reported by the harness tasks (lm-eval, inspect); they see no usage of a request."""
    abbreviation: str | None = None
    """The short name of tables that must fit 80 columns (``ERS``)."""


def names(
    table: Iterable[Metric],
    *,
    level: Level | None = None,
    usage: bool | None = None,
    harness: bool | None = None,
) -> tuple[str, ...]:
    """The names of ``table``'s metrics, in its order, that match every filter given."""
    return tuple(
        m.name
        for m in table
        if (level is None or m.level == level)
        and (usage is None or m.usage == usage)
        and (harness is None or m.harness == harness)
    )


def lower_is_better(table: Iterable[Metric]) -> frozenset[str]:
    """The metrics of ``table`` where a lower value is better."""
    return frozenset(m.name for m in table if not m.higher_is_better)
