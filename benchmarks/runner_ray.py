"""Ray throughput and overhead: ``eviscope run --ray`` against a local run on the same rows.

The tiny random-weight transformers model on CPU (what a Ray worker hosts), the same rows, decoding
and batch size on every side, each timed end to end (model load included on both sides: a local
run loads the model once, a Ray worker actor loads it in its own process). The local Ray cluster is
started once, before any timing, and its start time printed apart: a lab's cluster is up before a
run, and a run that starts its own (`--ray` with no address) pays it once per run. Prints:

- throughput of 2 workers ÷ 1 worker (1 CPU each) on this machine;
- the Ray overhead: Ray with 1 worker (given every CPU, as a local run has) ÷ local run (target ≤ 1.25),
  without and with the cluster start.

    python benchmarks/runner_ray.py [--dataset dataset] [--rows 160] [--max-tokens 16] [--repeats 2]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from eviscope.core.registry import DEFAULT_CONFIG
from eviscope.runner.backends import backend_settings
from eviscope.runner.backends.base import SamplingConfig
from eviscope.runner.execute import RunSettings
from eviscope.runner.ray_pool import RayOptions
from eviscope.runner.session import RunRequest, run
from eviscope.runner.tiny_model import build_tiny_model
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.policies import render


def timed(request: RunRequest) -> float:
    start = time.perf_counter()
    run(request)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=Path("dataset"))
    parser.add_argument("--rows", type=int, default=160)
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    import ray

    cpus = os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as tmp:
        rows = load_rows(DEFAULT_CONFIG, args.dataset)
        model = build_tiny_model(Path(tmp) / "model", [render("vanilla", row) for row in rows])
        start = time.perf_counter()
        ray.init(num_cpus=cpus, include_dashboard=False, logging_level="WARNING")
        cluster_start = time.perf_counter() - start

        def request(name: str, options: RayOptions | None) -> RunRequest:
            return RunRequest(
                config=DEFAULT_CONFIG, out=Path(tmp) / f"{name}-{time.perf_counter_ns()}",
                backend=backend_settings("transformers", {"model": str(model), "structured_output": False}),
                sampling=SamplingConfig(max_tokens=args.max_tokens), dataset=args.dataset, limit=args.rows,
                settings=RunSettings(max_retries=0, batch_size=args.batch_size), ray=options,
            )  # fmt: skip

        sides = {
            "local": None,
            "ray 1 worker, all CPUs": RayOptions(workers=1, cpus_per_worker=cpus),
            "ray 1 worker, 1 CPU": RayOptions(workers=1),
            "ray 2 workers, 1 CPU each": RayOptions(workers=2),
        }
        best = {name: min(timed(request(name, o)) for _ in range(args.repeats)) for name, o in sides.items()}
        ray.shutdown()
    print(f"{args.rows} rows of {DEFAULT_CONFIG}, tiny model, --max-tokens {args.max_tokens}, "
          f"--batch-size {args.batch_size}, best of {args.repeats}, {cpus} CPUs")  # fmt: skip
    for name, seconds in best.items():
        print(f"  {name:28} {seconds:7.2f} s")
    print(f"local Ray cluster start (once, outside the timings above): {cluster_start:.2f} s")
    one, two = best["ray 1 worker, 1 CPU"], best["ray 2 workers, 1 CPU each"]
    print(f"throughput 2 workers / 1 worker: {one / two:.2f}x")
    for name in ("ray 1 worker, 1 CPU", "ray 1 worker, all CPUs"):
        print(f"Ray overhead, {name} / local run: {best[name] / best['local']:.2f}x (target <= 1.25)")
    with_start = (best["ray 1 worker, all CPUs"] + cluster_start) / best["local"]
    print(f"  with the cluster start (--ray with no address): {with_start:.2f}x")


if __name__ == "__main__":
    main()
