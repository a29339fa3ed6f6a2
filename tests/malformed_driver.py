"""Malformed predictions through the CLI, the ``evaluate`` modules and the Space's submit path.

Runs every case of ``tests/malformed_inputs.py`` (truncated and non-JSON files, wrong and missing
fields, unknown, duplicate and missing ids, the other benchmark's predictions, Unicode edge cases,
binary and 100 MB files, …) through the three entry points and prints, per entry point, how many
inputs were tried, how many got a clear error, how many crashed, and how many left output behind:

- ``cli``: ``eviscope score`` (``--config forcebench`` for ForceBench), called in-process (``eviscope.cli.main``)
  with stdout and stderr captured. Clear: exit status 2 and one stderr line that names the problem.
  Partial output: anything on stdout, or a ``--out`` folder.
- ``metric``: ``evaluate.load("metrics/eviscope_metric" | "metrics/forcebench").compute(...)``. Clear: a
  ``ValueError`` (the library's ``EviScopeError``) whose one-line message names the problem.
- ``space``: the Space's ``/submit`` callback, built by ``eviscope.space.ui.build_demo`` over a local
  results folder. Clear: a ``gradio.Error`` with the one-line message. Partial output: a new
  leaderboard entry, or any new file in the results folder.

A crash is any other exception (a traceback); "unclear" is a clean refusal whose message lacks the
expected words, spans lines, is not printable or is over 1,000 characters; "accepted" is no error at
all. Finally, the big files (100 MB, 21 MB) go through the ``eviscope`` console script's entry point
in a fresh process, whose peak resident memory is reported.

    python tests/malformed_driver.py [--dataset dataset] [--config eviscope-v1.1] [--verbose]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
MAX_MESSAGE = 1000
"""The longest message that still counts as clear."""
STATUSES = ("clear", "unclear", "accepted", "crash")


def load_corpus() -> ModuleType:
    """The corpus, ``tests/malformed_inputs.py`` (this driver's neighbour)."""
    import malformed_inputs

    return malformed_inputs


@dataclass(frozen=True)
class Outcome:
    """What one entry point did with one case."""

    case: str
    entry: str
    status: str
    """``clear``, ``unclear``, ``accepted`` or ``crash``."""
    message: str
    """The error line (or, for a crash, the exception and where it was raised)."""
    partial: bool
    """Output files, stdout or a leaderboard entry left behind."""
    seconds: float


def _judge(message: str, expected: str) -> str:
    clean = "\n" not in message and "\r" not in message and message.isprintable()
    return "clear" if clean and expected in message and len(message) <= MAX_MESSAGE else "unclear"


def _crash(err: BaseException) -> str:
    frames = traceback.extract_tb(err.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    first = str(err).splitlines()[0][:200] if str(err) else ""
    return f"{type(err).__name__}{where}: {first}"


@dataclass
class Context:
    """What the entry points run against; built once per run."""

    dataset: Path
    config: str
    work: Path
    inputs: Any
    metrics: dict[str, Any]
    submit: Callable[..., Any]
    results: Path
    store: Any


def make_context(dataset: Path, config: str, work: Path) -> Context:
    import evaluate
    import gradio  # noqa: F401  (imported here so that its import time is not charged to a case)

    from eviscope.space.annotation import AnnotationStore
    from eviscope.space.data import RowSource
    from eviscope.space.leaderboard import LocalResultStore
    from eviscope.space.limits import Limits
    from eviscope.space.ui import build_demo
    from eviscope.suites.eviscope.dataset import load_rows
    from eviscope.suites.forcebench.rows import read_rows

    corpus = load_corpus()
    inputs = corpus.Inputs(load_rows(config, dataset), read_rows(dataset))
    metrics = {
        "eviscope": evaluate.load(str(REPO / "metrics" / "eviscope_metric")),
        "forcebench": evaluate.load(str(REPO / "metrics" / "forcebench")),
    }
    results = work / "results"
    store = LocalResultStore(results)
    # every case is one more upload by the one local user: the per-user limits are not what is probed
    unlimited = Limits(submissions=10**9, upload_bytes=2**62)
    demo = build_demo(RowSource(dataset), store, AnnotationStore(results / "annotations"), limits=unlimited)
    submit = next(fn.fn for fn in demo.fns.values() if fn.api_name == "submit")
    return Context(dataset, config, work, inputs, metrics, submit, results, store)


def run_cli(case: Any, path: Path, ctx: Context) -> Outcome:
    from eviscope.cli import main

    out = ctx.work / f"out-{case.name}"
    if case.benchmark == "eviscope":
        argv = ["score", str(path), "--dataset", str(ctx.dataset), "--config", ctx.config]
        argv += ["--out", str(out), *case.cli_args]
    else:
        argv = [
            "score",
            str(path),
            "--config",
            "forcebench",
            "--dataset",
            str(ctx.dataset),
            "--out",
            str(out),
        ]
    stdout, stderr = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = main(argv)
    except SystemExit as exit_:  # argparse
        code = exit_.code
    except Exception as err:
        seconds = time.perf_counter() - start
        return Outcome(case.name, "cli", "crash", _crash(err), out.exists(), seconds)
    seconds = time.perf_counter() - start
    partial = out.exists() or bool(stdout.getvalue())
    shutil.rmtree(out, ignore_errors=True)
    if code == 0:
        return Outcome(case.name, "cli", "accepted", "", partial, seconds)
    err_text = stderr.getvalue()
    line = err_text.removesuffix("\n")
    prefix = f"eviscope {argv[0]}: error: "
    status = _judge(line, case.expected("cli")) if code == 2 and line.startswith(prefix) else "unclear"
    if "Traceback (most recent call last)" in err_text:
        status = "crash"
    return Outcome(case.name, "cli", status, line.removeprefix(prefix), partial, seconds)


def run_metric(case: Any, ctx: Context) -> Outcome | None:
    applies, predictions = case.metric_predictions(ctx.inputs)
    if not applies:
        return None
    references = case.metric_references(ctx.inputs, predictions)
    module = ctx.metrics[case.benchmark]
    start = time.perf_counter()
    try:
        module.compute(predictions=predictions, references=references)
    except ValueError as err:
        seconds = time.perf_counter() - start
        return Outcome(
            case.name, "metric", _judge(str(err), case.expected("metric")), str(err), False, seconds
        )
    except Exception as err:
        return Outcome(case.name, "metric", "crash", _crash(err), False, time.perf_counter() - start)
    return Outcome(case.name, "metric", "accepted", "", False, time.perf_counter() - start)


def _results_files(ctx: Context) -> set[str]:
    return {
        str(p.relative_to(ctx.results)) for p in ctx.results.rglob("*") if p.is_file() and p.name != ".lock"
    }


def run_space(case: Any, path: Path, ctx: Context) -> Outcome:
    import gradio as gr

    from eviscope.suites.forcebench.rows import CONFIG as FORCEBENCH

    config = FORCEBENCH if case.benchmark == "forcebench" else ctx.config
    system = f"probe {case.name}"[:64]
    files = _results_files(ctx)
    entries = len(ctx.store.records(config))
    start = time.perf_counter()
    try:
        ctx.submit(config, system, str(path))
    except gr.Error as err:
        status, message = _judge(str(err.message), case.expected("space")), str(err.message)
    except Exception as err:
        status, message = "crash", _crash(err)
    else:
        status, message = "accepted", ""
    seconds = time.perf_counter() - start
    partial = _results_files(ctx) != files or len(ctx.store.records(config)) != entries
    return Outcome(case.name, "space", status, message, partial, seconds)


def run_corpus(
    dataset: Path,
    config: str,
    work: Path,
    cases: Iterable[Any] | None = None,
    entries: Sequence[str] = ("cli", "metric", "space"),
    progress: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Every case of the corpus (or ``cases``) through ``entries``; one file on disk at a time."""
    ctx = make_context(dataset, config, work)
    outcomes = []
    for case in load_corpus().CORPUS if cases is None else cases:
        path = case.write(ctx.inputs, work / f"{case.name}.jsonl")
        try:
            for entry in entries:
                if entry not in case.entries or (path is None and entry != "metric"):
                    continue
                if entry == "cli":
                    outcome = run_cli(case, path, ctx)
                elif entry == "space":
                    outcome = run_space(case, path, ctx)
                else:
                    outcome = run_metric(case, ctx)
                if outcome is not None:
                    outcomes.append(outcome)
                    if progress:
                        progress(outcome)
        finally:
            if path is not None:
                path.unlink()
    return outcomes


def console_script() -> list[str]:
    """The installed ``eviscope`` script next to this Python, else ``python -m eviscope.cli``."""
    script = Path(sys.executable).parent / "eviscope"
    return [str(script)] if script.exists() else [sys.executable, "-m", "eviscope.cli"]


_MEASURED = """
import atexit, sys
from importlib.metadata import entry_points
def report(path=sys.argv.pop(1)):
    with open("/proc/self/status") as status, open(path, "w") as out:
        out.write(next(line for line in status if line.startswith("VmHWM")).split()[1])
atexit.register(report)
[script] = entry_points(group="console_scripts", name="eviscope")
sys.argv[0] = "eviscope"
sys.exit(script.load()())
"""
"""The ``eviscope`` console script's entry point, reporting its peak resident memory (``VmHWM``) at
exit into a file. (A parent's ``wait4`` cannot tell: a forked child's peak includes the parent's.)"""


def run_console_script(
    args: Sequence[str], timeout_s: float = 300, measure_memory: bool = False
) -> tuple[int, str, str, float | None]:
    """(exit status, stdout, stderr, peak resident memory in MB or None) of one ``eviscope`` process:
    the installed console script, or with ``measure_memory`` its entry point under a memory probe."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "MPLBACKEND": "Agg"}
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "vmhwm"
        command = [sys.executable, "-c", _MEASURED, str(report)] if measure_memory else console_script()
        done = subprocess.run([*command, *args], capture_output=True, env=env, timeout=timeout_s, check=False)
        peak = int(report.read_text()) / 1024 if measure_memory and report.exists() else None
    return (
        done.returncode,
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
        peak,
    )


def script_args(case: Any, path: Path, dataset: Path, config: str, out: Path) -> list[str]:
    if case.benchmark == "eviscope":
        return ["score", str(path), "--dataset", str(dataset), "--config", config, "--out", str(out)]
    return ["score", str(path), "--config", "forcebench", "--dataset", str(dataset), "--out", str(out)]


def table(outcomes: Sequence[Outcome]) -> str:
    """The summary: one line per entry point, and the total."""
    header = f"{'entry point':<12}{'inputs':>8}{'clear errors':>14}{'unclear':>9}{'accepted':>10}{'crashes':>9}{'partial outputs':>17}"
    lines = [header, "-" * len(header)]
    groups = [(entry, [o for o in outcomes if o.entry == entry]) for entry in ("cli", "metric", "space")]
    for name, group in [*groups, ("all", list(outcomes))]:
        count = {status: sum(o.status == status for o in group) for status in STATUSES}
        lines.append(
            f"{name:<12}{len(group):>8}{count['clear']:>14}{count['unclear']:>9}{count['accepted']:>10}"
            f"{count['crash']:>9}{sum(o.partial for o in group):>17}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=Path("dataset"), help="built dataset folder")
    parser.add_argument("--config", default="eviscope-v1.1", help="EviScope config (default: eviscope-v1.1)")
    parser.add_argument("--verbose", action="store_true", help="print every outcome")
    args = parser.parse_args(argv)
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    os.environ.setdefault("MPLBACKEND", "Agg")
    start = time.perf_counter()
    corpus = load_corpus()
    with tempfile.TemporaryDirectory(prefix="eviscope-malformed-") as tmp:
        work = Path(tmp)
        show = (
            (lambda o: print(f"{o.entry:<7}{o.status:<9}{o.case:<34}{o.message[:110]}"))
            if args.verbose
            else None
        )
        outcomes = run_corpus(args.dataset, args.config, work, progress=show)
        rss = []
        for case in (c for c in corpus.CORPUS if c.big and "cli" in c.entries):
            path = case.write(load_context_inputs(args.dataset, args.config), work / f"{case.name}.jsonl")
            out = work / f"out-{case.name}"
            code, _, stderr, peak = run_console_script(
                script_args(case, path, args.dataset, args.config, out), measure_memory=True
            )
            path.unlink()
            clean = code == 2 and stderr.count("\n") == 1 and "Traceback" not in stderr and not out.exists()
            rss.append(
                f"{case.name}: exit {code}, {'one-line error' if clean else 'NOT CLEAN'}, peak RSS {peak or 0:,.0f} MB"
            )
    seconds = time.perf_counter() - start
    cases = len(corpus.CORPUS)
    print(
        f"{cases} malformed inputs ({sum(c.benchmark == 'eviscope' for c in corpus.CORPUS)} EviScope, "
        f"{sum(c.benchmark == 'forcebench' for c in corpus.CORPUS)} ForceBench), {len(outcomes)} runs"
    )
    print(table(outcomes))
    bad = [o for o in outcomes if o.status != "clear" or o.partial]
    for o in bad:
        print(f"  {o.entry} {o.case}: {o.status}{' +partial' if o.partial else ''}: {o.message[:160]}")
    print("the console script on the big files: " + "; ".join(rss))
    print(f"{seconds:.0f} s in all")
    return 1 if any(o.status == "crash" or o.partial for o in outcomes) else 0


def load_context_inputs(dataset: Path, config: str) -> Any:
    from eviscope.suites.eviscope.dataset import load_rows
    from eviscope.suites.forcebench.rows import read_rows

    return load_corpus().Inputs(load_rows(config, dataset), read_rows(dataset))


if __name__ == "__main__":
    sys.exit(main())
