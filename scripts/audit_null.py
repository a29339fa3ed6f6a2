"""How far above the majority rate the per-source audits reach by chance alone.

    python scripts/audit_null.py [DATASET_DIR] [SHUFFLES] [SOURCE ...]   # default: dataset 40, every source

For each source of ``eviscope-xl``'s rows, runs the evidence-blind and the surface audit
(:func:`eviscope.suites.eviscope.shortcuts.audit`, :func:`eviscope.suites.eviscope.surface.surface_audit`)
on the rows as built and on ``SHUFFLES`` copies whose multi-document rows have their actions shuffled
within each quartet (so no feature can tell them), and prints the observed largest margin beside the
median and 95th percentile of the shuffled ones: a margin the shuffles reach as often is chance.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np

from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.shortcuts import audit
from eviscope.suites.eviscope.surface import surface_audit


def _shuffled(rows: list[dict], seed: int) -> list[dict]:
    rng = random.Random(seed)
    by_quartet: dict[str, list[dict]] = {}
    for row in rows:
        if len(row["documents"]) > 1:
            by_quartet.setdefault(row["quartet_id"], []).append(row)
    out = [row for row in rows if len(row["documents"]) == 1]
    for quartet in by_quartet.values():
        actions = [row["expected_action"] for row in quartet]
        rng.shuffle(actions)
        out += [{**row, "expected_action": action} for row, action in zip(quartet, actions, strict=True)]
    return out


def _margins(rows: list[dict]) -> tuple[float, float]:
    return audit(rows)["max_gain_multi_document"], surface_audit(rows)["max_gain_multi_document"]


def main(argv: list[str]) -> None:
    dataset = Path(argv[0] if argv else "dataset")
    shuffles = int(argv[1]) if len(argv) > 1 else 40
    rows = [dict(row) for row in load_rows("eviscope-xl", dataset)]
    for source in argv[2:] or sorted({row["source"] for row in rows}):
        own = [row for row in rows if row["source"] == source]
        observed = _margins(own)
        null = np.array([_margins(_shuffled(own, seed)) for seed in range(shuffles)])
        print(
            f"{source}: observed evidence-blind {observed[0]:+.1f}, surface {observed[1]:+.1f}; shuffled "
            f"median / 95th percentile: evidence-blind {np.median(null[:, 0]):+.1f} / "
            f"{np.percentile(null[:, 0], 95):+.1f}, surface {np.median(null[:, 1]):+.1f} / "
            f"{np.percentile(null[:, 1], 95):+.1f}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
