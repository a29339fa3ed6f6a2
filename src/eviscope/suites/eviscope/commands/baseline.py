"""``eviscope baseline``: write the predictions of a reference system that needs no GPU."""

from __future__ import annotations

import argparse
from pathlib import Path

from eviscope.commands import add_config_argument, add_dataset_argument, add_subcommand, console
from eviscope.core.errors import os_errors
from eviscope.core.io import write_atomic
from eviscope.core.layout import PREDICTIONS_FILE, run_dir
from eviscope.core.untrusted_json import dumps
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.reference_systems import SYSTEMS, predict


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_subcommand(
        subparsers,
        "baseline",
        help=(
            "write a reference system's predictions (lexical, oracle, always-answer, evidence-blind, "
            "string-matching)"
        ),
        description=(
            "Write an EviScope reference system's predictions into a run folder.\n"
            "lexical: extractive overlap baseline that abstains and flags conflicts; oracle: the gold\n"
            "labels (joint success 1.0); always-answer: the gold answer on every row.\n"
            "doc-count, title-count, length-gaps, layout: evidence-blind; the action the row's document\n"
            "count, title count, length gaps or whole layout predicts (a tree fitted on the other half\n"
            "of the quartets),\n"
            "the lexical prediction where that action is answer.\n"
            "near-duplicate, diff: string-matching, never reading the question; flag a conflict when two\n"
            "documents share at least 90% of their words (diff: and differ in a year or number), else lexical."
        ),
    )
    parser.add_argument("--system", choices=list(SYSTEMS), default="lexical", help="reference system")
    add_config_argument(parser)
    add_dataset_argument(parser)
    parser.add_argument(
        "--out", type=Path, metavar="DIR", help="run folder (default: runs/<system>-<config>/)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    rows = load_rows(args.config, args.dataset)
    out = (args.out or run_dir(f"{args.system}-{args.config}")) / PREDICTIONS_FILE
    preds = predict(args.system, rows)
    with os_errors(out, hint="use another --out"):  # through a fresh temporary file: never a planted link
        write_atomic(out, "".join(dumps(p) + "\n" for p in preds))
    console(stderr=True).print(
        f"{args.system}: {len(preds)} predictions for {args.config} → {out}; "
        f"score them with `eviscope score {out} --config {args.config}`"
    )
    return 0
