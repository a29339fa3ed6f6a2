"""Markdown tables for reports and cards, made by ``tabulate`` (GitHub's pipe format).

>>> print(markdown_table(["metric", "A"], [["joint_success", "0.519"]]))
| metric        | A     |
|---------------|-------|
| joint_success | 0.519 |
>>> format_value(0.51875), format_value(0.0042), format_value(None)
('0.519', '0.0042', '—')

Every figure the suite shows (reports, the command line, the Space's tables, the docs) is rounded by
:func:`round_value`: half up, on the number as written (``repr``), so 6 of 160 rows, 0.0375, shows
as 0.038 everywhere; plain ``f"{x:.3f}"`` rounds the nearest binary float (0.03749999…) to 0.037,
and numpy's ``round`` half to even, so the two disagreed.

>>> round_value(0.0375), format_value(0.0375), format_value(-0.0125, signed=True), format_value(0.025, signed=True)
(0.038, '0.038', '-0.013', '+0.025')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

DIGITS = 3
"""Decimals of every figure shown."""


def markdown_table(
    header: Sequence[str], rows: Sequence[Sequence[Any]], align: Sequence[str] | None = None
) -> str:
    """``rows`` under ``header`` as a Markdown table; cells are written as given (no number parsing);
    ``align`` gives each column's alignment (``"left"``, ``"right"``, ``"center"``)."""
    from tabulate import tabulate

    colalign = tuple(align) if align is not None else None
    return tabulate(rows, headers=list(header), tablefmt="github", disable_numparse=True, colalign=colalign)


def round_value(value: float, digits: int = DIGITS) -> float:
    """``value`` rounded to ``digits`` decimals, half up on its shortest decimal form (``repr``);
    NaN and infinities as they are."""
    if not math.isfinite(value):
        return value
    step = Decimal(1).scaleb(-digits)
    return float(Decimal(repr(float(value))).quantize(step, rounding=ROUND_HALF_UP))


def format_value(value: float | None, *, signed: bool = False) -> str:
    """Three decimals (:func:`round_value`), or four significant digits for small and large values;
    — for undefined; ``signed``: a difference, with its sign always written."""
    if value is None:
        return "—"
    sign = "+" if signed else ""
    if value == 0 or 0.01 <= abs(value) < 1000:
        return f"{round_value(value):{sign}.{DIGITS}f}"
    return f"{value:{sign}.4g}"
