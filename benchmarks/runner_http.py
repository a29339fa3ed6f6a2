"""The runner against a slow OpenAI-compatible server: concurrency turns latency into throughput.

A local stub server (``tests/stub_server.py``, in a process of its own, as a real server is) answers
each request after a fixed delay (200 ms) and serves at most C requests at once, as a busy inference
server does. ``eviscope run``'s library (:func:`eviscope.runner.session.run`, backend ``openai`` with
``concurrency`` C) runs 160 rows of a config against it for C = 1, 8 and 32. Measured: the rows,
from the first request to the last row journaled (the span the run's progress bar tracks), and,
beside it, the whole run (reading the config's rows, the manifest, the predictions file). The ideal
is ⌈160 / C⌉ × delay; the target is the rows' time at most 1.15× the ideal, printed as a ratio,
the best of ``--runs`` runs (a shared machine's other work only ever slows a run down).

    python benchmarks/runner_http.py [--dataset dataset] [--config eviscope-v1.1] [--delay 0.2] [--runs 3]
"""

from __future__ import annotations

import argparse
import contextlib
import math
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from eviscope.core.layout import DEFAULT_DATASET_DIR
from eviscope.core.registry import DEFAULT_CONFIG
from eviscope.runner.backends import backend_settings
from eviscope.runner.execute import RunSettings
from eviscope.runner.session import RunRequest, run

ROWS = 160
TARGET = 1.15
STUB = Path(__file__).resolve().parents[1] / "tests" / "stub_server.py"
"""The one stub server (run as a script: this file imports nothing from tests/)."""


def measure(dataset: Path, config: str, delay_s: float, concurrency: int, work: Path) -> tuple[float, float]:
    """Seconds for the :data:`ROWS` rows and for the whole run at ``concurrency``, against a fresh server."""
    command = [sys.executable, str(STUB), "--delay", str(delay_s), "--max-concurrent", str(concurrency)]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        options = {"model": "stub", "base_url": url, "concurrency": concurrency, "api_key_env": "NONE"}
        request = RunRequest(
            config=config,
            out=work / f"c{concurrency}",
            backend=backend_settings("openai", options),
            dataset=dataset,
            limit=ROWS,
            settings=RunSettings(max_retries=0),
        )
        rows_s = []

        @contextlib.contextmanager
        def track(total: int) -> Iterator[Callable[[int], None]]:
            began = time.perf_counter()
            yield lambda n: None
            rows_s.append(time.perf_counter() - began)

        start = time.perf_counter()
        result = run(request, track=track)
        seconds = time.perf_counter() - start
    finally:
        server.kill()
        server.wait()
    if result.manifest["usage"]["calls"] != ROWS:
        raise SystemExit(f"expected {ROWS} requests, the run made {result.manifest['usage']['calls']}")
    return rows_s[0], seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=Path(DEFAULT_DATASET_DIR))
    parser.add_argument("--config", default=DEFAULT_CONFIG)
    parser.add_argument("--delay", type=float, default=0.2, help="seconds per reply (default: 0.2)")
    parser.add_argument("--runs", type=int, default=3, help="runs per C, the best kept (default: 3)")
    args = parser.parse_args()
    print(
        f"{ROWS} rows of {args.config}, server delay {args.delay * 1000:.0f} ms, at most C requests at once, "
        f"best of {args.runs} runs"
    )
    print(f"{'C':>4} {'rows s':>7} {'ideal s':>8} {'ratio':>6}  target ≤ {TARGET}  {'whole run s':>11}")
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for concurrency in (1, 8, 32):
            runs = [
                measure(args.dataset, args.config, args.delay, concurrency, Path(tmp) / str(n))
                for n in range(args.runs)
            ]
            rows_s, run_s = min(runs)
            ideal = math.ceil(ROWS / concurrency) * args.delay
            ratio = rows_s / ideal
            failed |= ratio > TARGET
            verdict = "PASS" if ratio <= TARGET else "FAIL"
            print(
                f"{concurrency:>4} {rows_s:>7.2f} {ideal:>8.2f} {ratio:>6.3f}  {verdict:<14} {run_s:>11.2f}"
            )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
