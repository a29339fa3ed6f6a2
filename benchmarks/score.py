"""Scoring throughput on 1M synthetic predictions, side by side with plain JSON parsing.

Rows of a built config are replicated into as many quartets as needed (each copy gets new ids);
each prediction is a reference system's output for its row (oracle, lexical, always-answer, or
an unparsable ``null``), with random usage. The file is then (1) parsed with ``json.loads`` line by
line, the floor any scorer pays, and (2) validated, joined and scored by the library. Prints
predictions per second, the time ratios (target: scoring ≤ 3× plain parsing), and memory peaks.

    python benchmarks/score.py [--n 1000000] [--config eviscope-v1.1] [--dataset dataset]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import resource
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from eviscope.dataset import DEFAULT_CONFIG, DEFAULT_DATASET_DIR, load_rows
from eviscope.predictions import load_predictions
from eviscope.reference_systems import SYSTEMS
from eviscope.scoring import score_predictions


def synthetic(rows: list[dict], n: int, seed: int) -> tuple[list[dict], list[str]]:
    """``n`` rows (whole quartets) replicated from ``rows`` and one JSON line of prediction per row."""
    rng = random.Random(seed)
    outputs = {name: {p["id"]: p for p in system(rows)} for name, system in SYSTEMS.items()}
    copies = -(-n // len(rows))
    big_rows, lines = [], []
    for k in range(copies):
        for row in rows:
            if len(big_rows) == n:
                break
            new_id = f"{row['quartet_id']}.{k}-{row['variant']}"
            big_rows.append({**row, "id": new_id, "quartet_id": f"{row['quartet_id']}.{k}"})
            system = rng.choice([*outputs, "null"])
            pred = {"action": None} if system == "null" else dict(outputs[system][row["id"]])
            pred["id"] = new_id
            if rng.random() < 0.8:
                pred["usage"] = {
                    "prompt_tokens": rng.randint(300, 900),
                    "completion_tokens": rng.randint(5, 80),
                    "calls": rng.choice((1, 1, 1, 2)),
                    "latency_s": round(rng.uniform(0.2, 4.0), 3),
                    "cost_usd": round(rng.uniform(0, 0.002), 6),
                }
            lines.append(json.dumps(pred, ensure_ascii=False))
    return big_rows, lines


def plain_parse(path: Path) -> list:
    with path.open("rb") as f:
        return [json.loads(line) for line in f if line.strip()]


def timed(fn, *args):
    gc.collect()
    start = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - start


def traced_peak(fn, *args) -> int:
    gc.collect()
    tracemalloc.start()
    fn(*args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="predictions (rounded up to whole quartets)")
    parser.add_argument("--config", default=DEFAULT_CONFIG)
    parser.add_argument("--dataset", type=Path, default=Path(DEFAULT_DATASET_DIR))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each side; the best counts")
    parser.add_argument("--no-memory", action="store_true", help="skip the (slow) traced memory peaks")
    args = parser.parse_args(argv)

    base = load_rows(args.config, args.dataset)
    n = -(-args.n // 4) * 4
    rows, lines = synthetic(base, n, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "predictions.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        del lines
        size_mb = path.stat().st_size / 1e6

        def load(p: Path) -> list:
            return load_predictions(p, rows)

        def load_and_score(p: Path):
            return score_predictions(rows, load(p))

        # Interleave the sides so that load from other processes hits both alike; best run counts.
        best: dict[str, float] = {}
        for _ in range(args.repeat):
            preds, load_s = timed(load, path)
            scores, score_s = timed(score_predictions, rows, preds)
            del preds
            for side, fn in (("parse", plain_parse), ("total", load_and_score)):
                best[side] = min(best.get(side, float("inf")), timed(fn, path)[1])
            best["load"] = min(best.get("load", float("inf")), load_s)
            best["score"] = min(best.get("score", float("inf")), score_s)
        if not args.no_memory:
            parse_peak = traced_peak(plain_parse, path)
            score_peak = traced_peak(load_and_score, path)

    print(f"{n:,} predictions ({size_mb:.0f} MB JSONL) on {len(rows):,} rows from {args.config}")
    print(
        f"joint_success {scores.overall['joint_success']:.4f}, QCS {scores.overall['quartet_consistency']:.4f}"
    )
    print(f"{'side':<38}{'seconds':>9}{'pred/s':>12}{'× parse':>9}")
    parse_s, total_s = best["parse"], best["total"]
    for label, seconds in (
        ("plain json.loads, line by line", parse_s),
        ("validate + join (load_predictions)", best["load"]),
        ("score (score_predictions)", best["score"]),
        ("validate + join + score (end to end)", total_s),
    ):
        print(f"{label:<38}{seconds:>9.2f}{n / seconds:>12,.0f}{seconds / parse_s:>9.2f}")
    ratio = total_s / parse_s
    print(
        f"end-to-end scoring ÷ plain parsing: {ratio:.2f}× (target ≤ 3×: {'met' if ratio <= 3 else 'NOT met'})"
    )
    if not args.no_memory:
        print(
            f"traced memory peak: plain parsing {parse_peak / 1e6:,.0f} MB, scoring {score_peak / 1e6:,.0f} MB"
        )
    print(
        f"process peak RSS (rows and file included): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3:,.0f} MB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
