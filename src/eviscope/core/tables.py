"""Markdown tables for reports and cards, made by ``tabulate`` (GitHub's pipe format).

>>> print(markdown_table(["metric", "A"], [["joint_success", "0.519"]]))
| metric        | A     |
|---------------|-------|
| joint_success | 0.519 |
>>> format_value(0.51875), format_value(0.0042), format_value(None)
('0.519', '0.0042', '—')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def markdown_table(
    header: Sequence[str], rows: Sequence[Sequence[Any]], align: Sequence[str] | None = None
) -> str:
    """``rows`` under ``header`` as a Markdown table; cells are written as given (no number parsing);
    ``align`` gives each column's alignment (``"left"``, ``"right"``, ``"center"``)."""
    from tabulate import tabulate

    colalign = tuple(align) if align is not None else None
    return tabulate(rows, headers=list(header), tablefmt="github", disable_numparse=True, colalign=colalign)


def format_value(value: float | None) -> str:
    """Three decimals, or four significant digits for small and large values; — for undefined."""
    if value is None:
        return "—"
    return f"{value:.3f}" if value == 0 or 0.01 <= abs(value) < 1000 else f"{value:.4g}"
