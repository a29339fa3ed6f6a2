"""inspect-ai metrics computed over a whole run by a benchmark's scoring (imports inspect-ai)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, metric

Items = Sequence[Mapping[str, Any]]


def corpus_metric(name: str, compute: Callable[[str, Items], float]) -> Metric:
    """The inspect-ai metric ``name``: ``compute(name, items)`` over every sample's ``item`` metadata."""

    @metric(name=name)
    def factory() -> Metric:
        def value(scores: list[SampleScore]) -> float:
            return compute(name, [s.score.metadata["item"] for s in scores])

        return value

    return factory()
