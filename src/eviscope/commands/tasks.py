"""``eviscope tasks``: where the harness tasks are, and harness logs -> prediction files."""

from __future__ import annotations

import argparse
from pathlib import Path

from eviscope.commands import add_group, add_subcommand
from eviscope.core.registry import benchmark
from eviscope.harness import HARNESSES, inspect_task_files, lm_eval_tasks
from eviscope.harness.samples import convert


def register(subparsers: argparse._SubParsersAction) -> None:
    commands = add_group(
        subparsers,
        "tasks",
        help="every benchmark as lm-evaluation-harness / inspect-ai tasks",
        description="Locate the harness tasks shipped with eviscope, and turn harness logs into predictions.",
    )
    path = add_subcommand(
        commands,
        "path",
        help="print the lm-eval task folder (for --include_path) or each benchmark's inspect-ai task file",
        description="Print the lm-eval task folder of every benchmark (for --include_path), or each\n"
        "benchmark's inspect-ai task file, one per line.",
    )
    path.add_argument("--harness", choices=HARNESSES, default="lm-eval", help="harness")
    path.set_defaults(func=run_path)
    predictions = add_subcommand(
        commands,
        "predictions",
        help="turn an lm-eval --log_samples file or an inspect-ai log into predictions for `eviscope score`",
        description="Turn an lm-eval --log_samples file or an inspect-ai log into a predictions file\n"
        "for `eviscope score`.",
    )
    predictions.add_argument(
        "log", type=Path, help="lm-eval samples_<task>_<time>.jsonl, or an inspect-ai .eval log"
    )
    predictions.add_argument("--out", type=Path, required=True, help="predictions JSONL to write")
    predictions.add_argument(
        "--evaluator", help="ForceBench evaluator name (default: the judge prompt's name)"
    )
    predictions.set_defaults(func=run_predictions)


def run_path(args: argparse.Namespace) -> int:
    for path in [lm_eval_tasks()] if args.harness == "lm-eval" else inspect_task_files():
        print(path)
    return 0


def run_predictions(args: argparse.Namespace) -> int:
    kind, count = convert(args.log, args.out, args.evaluator)
    bench = benchmark(kind)
    config = bench.configs[0].name if len(bench.configs) == 1 else "CONFIG"
    print(
        f"wrote {count} {kind} predictions to {args.out}; score them with `{bench.score_command(config, args.out)}`"
    )
    return 0
