"""Latency of scoring a 160-row submission through the Space's API, after warm-up.

Starts ``spaces/eviscope/app.py`` on a free local port with a temporary results folder, then submits
the lexical reference system's predictions for ``eviscope-v1.1`` through ``gradio_client`` (the
``/submit`` endpoint: upload, validation, scoring, recording and the two report plots), each time
under a new system name. Prints the median and slowest round trip after the warm-up submissions
(target: under 1 s).

    python benchmarks/space.py [--dataset dataset] [--warmup 3] [--runs 10]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from gradio_client import Client, handle_file

from eviscope.core.layout import DEFAULT_DATASET_DIR
from eviscope.core.registry import DEFAULT_CONFIG
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.reference_systems import predict

APP = Path(__file__).resolve().parents[1] / "spaces" / "eviscope" / "app.py"
TARGET_S = 1.0


def start_space(dataset: str, results: Path) -> tuple[subprocess.Popen[bytes], str]:
    """``spaces/eviscope/app.py`` on a free local port, offline, once it answers: (process, URL).
    ``benchmarks/space_load.py`` starts its Space with this too."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {
        **os.environ,
        "GRADIO_ANALYTICS_ENABLED": "False",
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
    }
    args = [sys.executable, str(APP), "--dataset", dataset, "--results", str(results), "--port", str(port)]
    process = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return process, url
        except OSError:
            if process.poll() is not None:
                raise SystemExit(f"the Space exited with {process.returncode}") from None
            time.sleep(0.2)
    process.terminate()
    raise SystemExit("the Space did not start in 120 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default=DEFAULT_DATASET_DIR, help="built dataset folder")
    parser.add_argument("--warmup", type=int, default=3, help="submissions before timing (default 3)")
    parser.add_argument("--runs", type=int, default=10, help="timed submissions (default 10)")
    args = parser.parse_args()

    rows = load_rows(DEFAULT_CONFIG, args.dataset)
    with tempfile.TemporaryDirectory() as tmp:
        upload = Path(tmp) / "lexical.jsonl"
        upload.write_text("".join(json.dumps(p) + "\n" for p in predict("lexical", rows)), encoding="utf-8")
        process, url = start_space(args.dataset, Path(tmp) / "results")
        try:
            client = Client(url, verbose=False)
            times = []
            for i in range(args.warmup + args.runs):
                start = time.perf_counter()
                status = client.predict(
                    DEFAULT_CONFIG, f"bench-{i}", handle_file(upload), api_name="/submit"
                )[0]
                elapsed = time.perf_counter() - start
                if not status.startswith("Recorded"):
                    raise SystemExit(f"submission {i} was not recorded: {status}")
                if i >= args.warmup:
                    times.append(elapsed)
        finally:
            process.terminate()
            process.wait()
    median = statistics.median(times)
    print(
        f"{len(rows)}-row submission through the API, {args.runs} runs after {args.warmup} warm-up: "
        f"median {median:.3f} s, slowest {max(times):.3f} s "
        f"({median / TARGET_S:.2f}× of the {TARGET_S:.0f} s target)"
    )


if __name__ == "__main__":
    main()
