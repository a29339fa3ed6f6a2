"""``eviscope score PREDICTIONS``: validate a predictions file, print its metrics, write its reports."""

from __future__ import annotations

import argparse
import contextlib
import json
from pathlib import Path

from eviscope.commands import (
    add_config_argument,
    add_dataset_argument,
    add_json_argument,
    add_subcommand,
    console,
)
from eviscope.core.datafiles import allowing_modified_data
from eviscope.core.layout import report_dir
from eviscope.core.registry import for_config


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_subcommand(
        subparsers,
        "score",
        help="score a predictions file against a config",
        description=(
            "Validate a JSONL predictions file against the config's rows, print every metric, and\n"
            "write the reports (EviScope: report.json, report.md, two PNG plots, the failing quartets;\n"
            "ForceBench: results.json and two PNG plots) beside it."
        ),
    )
    parser.add_argument("predictions", type=Path, metavar="PREDICTIONS", help="JSONL predictions")
    add_config_argument(parser)
    add_dataset_argument(parser)
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="report folder (default: report/ beside a run's predictions.jsonl, else <file stem>-report/)",
    )
    parser.add_argument(
        "--allow-modified-data",
        action="store_true",
        help=(
            "score against data whose sha256 differs from (or is missing in) the one the dataset card "
            "records, with a warning, instead of refusing it"
        ),
    )
    add_json_argument(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    bench = for_config(args.config)
    checks = contextlib.nullcontext()
    if args.allow_modified_data:
        warn = console(stderr=True)
        checks = allowing_modified_data(
            lambda problem: warn.print(f"eviscope score: warning: {problem}", markup=False)
        )
    with checks:
        rows = bench.load_rows(args.config, args.dataset)
    scored = bench.score(args.config, rows, args.predictions, args.out or report_dir(args.predictions))
    if args.json:
        print(json.dumps(scored.report, indent=2, ensure_ascii=False))
        return 0
    screen = console()
    screen.print(f"{bench.title} {args.config}: {args.predictions} ({len(rows)} rows)")
    for table in scored.tables:
        screen.print(table)
    screen.print("wrote " + ", ".join(str(p) for p in scored.written))
    return 0
