"""``eviscope tasks``: where the harness tasks are, and harness logs -> prediction files."""

from __future__ import annotations

import argparse
from pathlib import Path

from eviscope.harness import HARNESSES, tasks_path
from eviscope.harness.samples import convert


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tasks",
        help="EviScope and ForceBench as lm-evaluation-harness / inspect-ai tasks",
        description="Locate the harness tasks shipped with eviscope, and turn harness logs into predictions.",
    )
    commands = parser.add_subparsers(dest="tasks_command", required=True)
    path = commands.add_parser(
        "path", help="print the lm-eval task folder (for --include_path) or the inspect-ai task file"
    )
    path.add_argument("--harness", choices=HARNESSES, default="lm-eval", help="default: lm-eval")
    path.set_defaults(func=run_path)
    predictions = commands.add_parser(
        "predictions",
        help="turn an lm-eval --log_samples file or an inspect-ai log into predictions for `eviscope score`",
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
    print(tasks_path(args.harness))
    return 0


def run_predictions(args: argparse.Namespace) -> int:
    kind, count = convert(args.log, args.out, args.evaluator)
    scorer = (
        "eviscope score --config CONFIG --predictions" if kind == "eviscope" else "eviscope forcebench score"
    )
    print(f"wrote {count} {kind} predictions to {args.out}; score them with `{scorer} {args.out}`")
    return 0
