"""Latency of scoring a 160-row submission through the Space's API, after warm-up; with
``--memory N``, the Space's memory over N accepted near-limit submissions.

Starts ``spaces/eviscope/app.py`` on a free local port with a temporary results folder, then submits
the lexical reference system's predictions for ``eviscope-v1.1`` through ``gradio_client`` (the
``/submit`` endpoint: upload, validation, scoring, recording and the two report plots), each time
under a new system name. Prints the median and slowest round trip after the warm-up submissions
(target: under 1 s).

``--memory N`` instead submits N files of about 19 MiB each (the lexical predictions, each answer
padded to fill the file; each under a new system name, so each is recorded) and reads the Space
process's resident memory (``VmRSS``) after start, after each submission and after a leaderboard
view, then prints the growth per accepted submission (target: none, i.e. under 5 MiB, as the
store keeps a summary of each result, not its predictions). ``--baseline CHECKOUT`` measures the
app and library of another checkout (the main branch, say) the same way, side by side.

    python benchmarks/space.py [--dataset dataset] [--warmup 3] [--runs 10]
    python benchmarks/space.py --memory 10 [--baseline OTHER_CHECKOUT]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gradio_client import Client, handle_file

from eviscope.core.layout import DEFAULT_DATASET_DIR
from eviscope.core.registry import DEFAULT_CONFIG
from eviscope.release.processes import NotAnswering, free_port, wait_until_up
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.reference_systems import predict

APP = Path(__file__).resolve().parents[1] / "spaces" / "eviscope" / "app.py"
TARGET_S = 1.0
MEMORY_TARGET_MIB = 5


def start_space(
    dataset: str, results: Path, checkout: Path | None = None, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """``spaces/eviscope/app.py`` on a free local port, offline, once it answers: (process, URL).
    ``benchmarks/space_load.py`` starts its Space with this too. ``checkout``: run that checkout's
    app and library instead of this one's; ``env``: more environment variables."""
    port = free_port()
    env = {
        **os.environ,
        "GRADIO_ANALYTICS_ENABLED": "False",
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        **(env or {}),
    }
    app = APP
    if checkout is not None:
        app = checkout / "spaces" / "eviscope" / "app.py"
        env["PYTHONPATH"] = os.pathsep.join([str(checkout / "src"), env.get("PYTHONPATH", "")])
    args = [sys.executable, str(app), "--dataset", dataset, "--results", str(results), "--port", str(port)]
    process = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_until_up(url, lambda: process.poll() is None, 120, interval_s=0.2, request_s=2)
    except NotAnswering as err:
        process.terminate()
        reason = f"exited with {process.returncode}" if err.exited else str(err)
        raise SystemExit(f"the Space {reason}") from None
    return process, url


def rss_mib(pid: int) -> float:
    """The resident memory of process ``pid`` in MiB (Linux: ``VmRSS`` of ``/proc/PID/status``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise SystemExit(f"no VmRSS for process {pid}")


def padded_upload(rows: list[dict], path: Path, size: int) -> Path:
    """The lexical predictions, each answer padded so that the file is about ``size`` bytes."""
    predictions = predict("lexical", rows)
    pad = size // len(predictions)
    lines = [json.dumps({**p, "answer": (p.get("answer") or "") + " " + "x" * pad}) for p in predictions]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def measure_memory(dataset: str, rows: list[dict], n: int, checkout: Path | None, tmp: Path) -> list[float]:
    """RSS of a Space (this checkout's, or ``checkout``'s) after start, after each of ``n`` accepted
    19 MiB submissions, and after a leaderboard view."""
    upload = padded_upload(rows, tmp / "padded.jsonl", 19 * 2**20)
    limits = {
        "EVISCOPE_SPACE_SUBMISSIONS_PER_HOUR": str(n + 1),
        "EVISCOPE_SPACE_UPLOAD_MIB_PER_HOUR": "100000",
    }
    results = tmp / f"results-{'baseline' if checkout else 'this'}"
    process, url = start_space(dataset, results, checkout, env=limits)
    try:
        client = Client(url, verbose=False)
        figures = [rss_mib(process.pid)]
        for i in range(n):
            status = client.predict(DEFAULT_CONFIG, f"big-{i}", handle_file(upload), api_name="/submit")[0]
            if not status.startswith("Recorded"):
                raise SystemExit(f"submission {i} was not recorded: {status}")
            figures.append(rss_mib(process.pid))
        client.predict(DEFAULT_CONFIG, "", None, api_name="/leaderboard")
        figures.append(rss_mib(process.pid))
    finally:
        process.terminate()
        process.wait()
    return figures


def report_memory(args: argparse.Namespace, rows: list[dict]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        runs = {"this checkout": measure_memory(args.dataset, rows, args.memory, None, Path(tmp))}
        if args.baseline:
            runs[f"baseline {args.baseline}"] = measure_memory(
                args.dataset, rows, args.memory, Path(args.baseline), Path(tmp)
            )
    print(f"Space RSS (MiB) over {args.memory} accepted ~19 MiB submissions of {DEFAULT_CONFIG}:")
    print(
        "| Space | after start | after 1st | after last | after a leaderboard view | per submission after the 1st |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for name, figures in runs.items():
        start, first, last, board = figures[0], figures[1], figures[-2], figures[-1]
        per = (last - first) / max(args.memory - 1, 1)
        print(f"| {name} | {start:.0f} | {first:.0f} | {last:.0f} | {board:.0f} | {per:+.1f} |")
    for name, figures in runs.items():
        print(f"{name}, after start, each submission, the view: {' '.join(f'{f:.0f}' for f in figures)}")
    if len(runs) == 2:
        (mine, base) = ((f[-2] - f[1]) for f in runs.values())
        print(f"growth after the 1st submission: {mine:+.0f} MiB vs {base:+.0f} MiB in the baseline")
    print(f"target: under {MEMORY_TARGET_MIB} MiB per submission")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default=DEFAULT_DATASET_DIR, help="built dataset folder")
    parser.add_argument("--warmup", type=int, default=3, help="submissions before timing (default 3)")
    parser.add_argument("--runs", type=int, default=10, help="timed submissions (default 10)")
    parser.add_argument(
        "--memory", type=int, metavar="N", help="measure RSS over N ~19 MiB submissions instead"
    )
    parser.add_argument("--baseline", metavar="CHECKOUT", help="with --memory: also measure this checkout")
    args = parser.parse_args()
    if args.memory:
        report_memory(args, load_rows(DEFAULT_CONFIG, args.dataset))
        return

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
