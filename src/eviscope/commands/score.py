"""``eviscope score``: validate a predictions file, print its metrics, write reports and plots."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console
from rich.table import Table

from eviscope.dataset import add_rows_arguments, load_rows
from eviscope.error_export import failing_quartets, write_error_export
from eviscope.predictions import load_predictions
from eviscope.reports import format_value, report, write_reports
from eviscope.rows import VARIANTS
from eviscope.scoring import QUARTET_ABBREVIATIONS, QUARTET_METRICS, ROW_METRICS, score_predictions


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score a predictions file against an EviScope config",
        description=(
            "Validate a JSONL predictions file (SPEC §3), print every metric (SPEC §4), and write "
            "report.json, report.md, two PNG plots and the failing quartets into --out."
        ),
    )
    add_rows_arguments(parser)
    parser.add_argument("--predictions", type=Path, required=True, metavar="FILE", help="JSONL predictions")
    parser.add_argument("--json", action="store_true", help="print the JSON report instead of tables")
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="report folder (default: runs/<config>/<predictions file stem>)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    rows = load_rows(args.config, args.dataset)
    preds = load_predictions(args.predictions, rows)
    scores = score_predictions(rows, preds)
    out_dir = args.out or Path("runs") / args.config / args.predictions.stem
    meta = {"config": args.config, "predictions": str(args.predictions)}
    paths = write_reports(scores, out_dir, meta)
    errors_jsonl, errors_md = write_error_export(failing_quartets(rows, preds, scores), out_dir)
    if args.json:
        print(json.dumps(report(scores, meta), indent=2, ensure_ascii=False))
        return 0
    console = Console()
    console.print(f"EviScope {args.config}: {args.predictions} ({len(rows)} rows)")
    quartets = Table(title="quartet metrics", title_justify="left")
    for name in QUARTET_METRICS:
        quartets.add_column(QUARTET_ABBREVIATIONS[name], justify="right")
    quartets.add_row(*(f"{scores.overall[name]:.3f}" for name in QUARTET_METRICS))
    console.print(quartets)
    table = Table(title="row metrics (— not defined on the variant)", title_justify="left")
    table.add_column("metric", no_wrap=True)
    for column in ("overall", *VARIANTS):
        table.add_column(column, justify="right")
    for name in ROW_METRICS:
        cells = [scores.overall.get(name), *(scores.per_variant.get(v, {}).get(name) for v in VARIANTS)]
        table.add_row(name, *(format_value(c) for c in cells))
    console.print(table)
    written = [paths["json"], paths["markdown"], paths["quartet_transitions"], paths["action_confusion"]]
    console.print("wrote " + ", ".join(str(p) for p in [*written, errors_jsonl, errors_md]))
    return 0
