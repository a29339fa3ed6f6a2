"""Synthetic predictions at any size: rows of a config replicated into new quartets, each answered
by a reference system (or unparsable) with random usage. ``benchmarks/score.py`` scores a million.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from eviscope.suites.eviscope.reference_systems import SYSTEMS
from eviscope.suites.eviscope.rows import SCORED_FIELDS

PER_ROW_SYSTEMS = ("oracle", "lexical", "always-answer")
"""The reference systems that answer each row on its own (the evidence-blind ones fit on quartets)."""


def _copies(rows: Sequence[Mapping[str, Any]], n: int) -> Iterator[tuple[Mapping[str, Any], str]]:
    """The base row and the new quartet id of each of ``n`` replicated rows, in order: copy ``k`` of
    a row belongs to quartet ``<quartet_id>.<k>`` (whole quartets when ``n`` is a multiple of 4)."""
    for i in range(n):
        k, j = divmod(i, len(rows))
        yield rows[j], f"{rows[j]['quartet_id']}.{k}"


def replicate(rows: Sequence[Mapping[str, Any]], n: int) -> list[dict[str, Any]]:
    """``n`` rows copied from ``rows`` with new ids, holding only :data:`SCORED_FIELDS`."""
    keep = [field for field in SCORED_FIELDS if field not in ("id", "quartet_id")]
    return [
        {"id": f"{quartet}-{row['variant']}", "quartet_id": quartet, **{f: row[f] for f in keep}}
        for row, quartet in _copies(rows, n)
    ]


def synthetic_predictions(
    rows: Sequence[Mapping[str, Any]], n: int, seed: int
) -> Iterator[tuple[Mapping[str, Any], str, dict[str, Any]]]:
    """For each of the ``n`` rows of :func:`replicate`, in order: (the base row, the reference
    system that answered it or ``"null"``, and the contract §3 prediction object)."""
    rng = random.Random(seed)
    outputs = {name: {p["id"]: p for p in SYSTEMS[name](rows)} for name in PER_ROW_SYSTEMS}
    choices = [*outputs, "null"]
    for row, quartet in _copies(rows, n):
        system = rng.choice(choices)
        pred = {"action": None} if system == "null" else dict(outputs[system][row["id"]])
        pred["id"] = f"{quartet}-{row['variant']}"
        if rng.random() < 0.8:
            pred["usage"] = {
                "prompt_tokens": rng.randint(300, 900),
                "completion_tokens": rng.randint(5, 80),
                "calls": rng.choice((1, 1, 1, 2)),
                "latency_s": round(rng.uniform(0.2, 4.0), 3),
                "cost_usd": round(rng.uniform(0, 0.002), 6),
            }
        yield row, system, pred


def write_predictions(path: Path, rows: Sequence[Mapping[str, Any]], n: int, seed: int) -> int:
    """Write the predictions of :func:`synthetic_predictions` to ``path``, streamed; returns its size."""
    with path.open("w", encoding="utf-8") as f:
        for _, _, pred in synthetic_predictions(rows, n, seed):
            f.write(json.dumps(pred, ensure_ascii=False))
            f.write("\n")
    return path.stat().st_size
