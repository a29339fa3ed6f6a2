"""The toy's config and rows: ``id``, ``a``, ``b``; the right answer is ``a + b``."""

from __future__ import annotations

from typing import Any

CONFIG = "toy-v1"
N_ROWS = 6
A_VALUES: tuple[str, ...] = tuple(str(i) for i in range(N_ROWS))
"""Every value of ``a`` (the Space's Browse filter)."""


def make_rows() -> list[dict[str, Any]]:
    """The rows the builder writes."""
    return [{"id": f"t{i}", "a": i, "b": 2 * i} for i in range(N_ROWS)]
