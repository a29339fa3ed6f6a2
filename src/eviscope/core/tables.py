"""Markdown tables for reports and cards, made by ``tabulate`` (GitHub's pipe format).

>>> print(markdown_table(["metric", "A"], [["joint_success", "0.519"]]))
| metric        | A     |
|---------------|-------|
| joint_success | 0.519 |
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """``rows`` under ``header`` as a Markdown table; cells are written as given (no number parsing)."""
    from tabulate import tabulate

    return tabulate(rows, headers=list(header), tablefmt="github", disable_numparse=True)
