"""The toy's config, its source and rows: ``id``, ``a``, ``b``; the right answer is ``a + b``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eviscope.core.sources import Source

CONFIG = "toy-v1"
A_VALUES: tuple[str, ...] = tuple(str(i) for i in range(6))
"""The values of ``a`` the Space's Browse filter offers."""

PAIRS = Source("toy_pairs", "Toy pairs (JSON list of [a, b])", "--toy-pairs", "EVISCOPE_TOY_PAIRS", None)
"""The toy's own source, the user's own copy: ``eviscope build`` offers ``--toy-pairs`` for it."""


def make_rows(pairs: Sequence[tuple[int, int]]) -> list[dict[str, Any]]:
    """The rows the builder writes, one per pair of the source."""
    return [{"id": f"t{i}", "a": a, "b": b} for i, (a, b) in enumerate(pairs)]
