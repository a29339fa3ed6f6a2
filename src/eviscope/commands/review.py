"""``eviscope review conflicts|agreement``: blind review sheets of conflict passages, and their agreement."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console

from eviscope.dataset import add_rows_arguments


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "review",
        help="write blind review sheets of conflict passages, or count filled ones",
        description="Blind human review of EviScope conflict passages (same type, believable, fluent).",
    )
    sub = parser.add_subparsers(dest="review_command", required=True)
    sheet = sub.add_parser(
        "conflicts",
        help="write a blind sheet (CSV and Markdown) of a config's conflict passages",
        description="Write question, original sentence and edited sentence of each conflicting row, "
        "shuffled and without gold labels, for a reviewer to mark same_type / believable / fluent.",
    )
    add_rows_arguments(sheet)
    sheet.add_argument(
        "--sample", type=int, default=None, help="review N rows drawn at random (default: all)"
    )
    sheet.add_argument("--seed", type=int, default=0, help="sampling and shuffling seed (default: 0)")
    sheet.add_argument(
        "--out",
        type=Path,
        default=None,
        help="sheet path without suffix (default: review/<config>-conflicts)",
    )
    sheet.set_defaults(func=run_conflicts)
    agree = sub.add_parser(
        "agreement",
        help="count filled sheets: passes per criterion, and Cohen's kappa between reviewers",
        description="Read filled review sheets (CSV) and print yes counts, passes and Cohen's kappa.",
    )
    agree.add_argument("sheets", nargs="+", type=Path, metavar="SHEET", help="filled sheet CSV files")
    agree.add_argument("--json", action="store_true", help="print the counts as JSON")
    agree.set_defaults(func=run_agreement)


def run_conflicts(args: argparse.Namespace) -> int:
    from eviscope.dataset import load_rows
    from eviscope.review import conflict_sheet, write_sheet

    items = conflict_sheet(load_rows(args.config, args.dataset), args.sample, args.seed)
    out = args.out or Path("review") / f"{args.config}-conflicts"
    csv_path, md_path = write_sheet(items, out)
    Console().print(f"{len(items)} items · fill {csv_path} (read {md_path})")
    return 0


def run_agreement(args: argparse.Namespace) -> int:
    from eviscope.review import CRITERIA, agreement, read_sheet

    report = agreement({str(path): read_sheet(path) for path in args.sheets})
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    console = Console()
    for name, counts in report["sheets"].items():
        marks = ", ".join(f"{c} {counts[c]}/{counts['items']}" for c in CRITERIA)
        console.print(f"{name}: pass {counts['pass']}/{counts['items']} ({marks})")
    for pair, counts in report.get("pairs", {}).items():
        kappas = ", ".join(f"{c} κ={counts[c]['kappa']}" for c in CRITERIA)
        console.print(f"{pair}: {counts['items']} shared items, {kappas}")
    return 0
