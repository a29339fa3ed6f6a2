"""The toy's one metric: the share of rows whose predicted ``sum`` is ``a + b``."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from eviscope.core.errors import EviScopeError


def accuracy(rows: Sequence[Mapping[str, Any]], predictions: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``n`` and ``accuracy`` of ``predictions`` (``id``, ``sum``) on ``rows``; a row without a
    prediction is wrong, a prediction of an unknown id is an error naming it."""
    by_id = {p["id"]: p for p in predictions}
    unknown = sorted(set(by_id) - {row["id"] for row in rows})
    if unknown:
        raise EviScopeError(f"unknown ids {', '.join(unknown)}")
    right = [by_id.get(row["id"], {}).get("sum") == row["a"] + row["b"] for row in rows]
    return {"n": len(rows), "accuracy": sum(right) / len(rows)}


def read(path: Path) -> list[dict[str, Any]]:
    """A predictions file: one JSON object per line."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
