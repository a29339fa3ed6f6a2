"""``eviscope review conflicts|agreement``: blind review sheets of conflict passages, and their agreement."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from eviscope.commands import (
    add_config_argument,
    add_dataset_argument,
    add_group,
    add_json_argument,
    add_subcommand,
    console,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    sub = add_group(
        subparsers,
        "review",
        help="write blind review sheets of conflict passages, or count filled ones",
        description="Blind human review of EviScope conflict passages (same type, believable, fluent).",
    )
    sheet = add_subcommand(
        sub,
        "conflicts",
        help="write a blind sheet (CSV and Markdown) of a config's conflict passages",
        description="Write question, original sentence and edited sentence of each conflicting row,\n"
        "shuffled and without gold labels, with the edited passage, its article's other dated or\n"
        "numbered sentences and the whole articles, for a reviewer to mark same_type / believable / fluent.",
    )
    add_config_argument(sheet)
    add_dataset_argument(sheet)
    sheet.add_argument(
        "--sample", type=int, default=None, help="review N rows drawn at random (default: all)"
    )
    sheet.add_argument("--seed", type=int, default=0, help="sampling and shuffling seed (default: 0)")
    sheet.add_argument(
        "--squad",
        metavar="PATH",
        help="SQuAD v1.1 dev (JSON), for the whole article of each item; else $EVISCOPE_SQUAD; "
        "else the hub dataset rajpurkar/squad",
    )
    sheet.add_argument(
        "--out",
        type=Path,
        default=None,
        help="sheet path without suffix (default: review/<config>-conflicts)",
    )
    sheet.set_defaults(func=run_conflicts)
    agree = add_subcommand(
        sub,
        "agreement",
        help="count filled sheets: passes per criterion, and Cohen's kappa between reviewers",
        description="Read filled review sheets (CSV) and print yes counts, passes and Cohen's kappa.",
    )
    agree.add_argument("sheets", nargs="+", type=Path, metavar="SHEET", help="filled sheet CSV files")
    agree.add_argument(
        "--config",
        default=None,
        help="check that every marked item is a conflict passage of this config as built now",
    )
    add_dataset_argument(agree)
    add_json_argument(agree)
    agree.set_defaults(func=run_agreement)


def run_conflicts(args: argparse.Namespace) -> int:
    from eviscope.suites.eviscope.dataset import load_rows
    from eviscope.suites.eviscope.review import conflict_sheet, write_sheet
    from eviscope.suites.eviscope.row_context import source_articles

    rows = [row for row in load_rows(args.config, args.dataset) if row["variant"] == "conflicting"]
    articles = source_articles(rows, args.squad)
    items = conflict_sheet(rows, args.sample, args.seed, articles)
    out = args.out or Path("review") / f"{args.config}-conflicts"
    files = write_sheet(items, out, articles)
    console().print(f"{len(items)} items · fill {files.csv} (read {files.markdown} with {files.articles})")
    return 0


def run_agreement(args: argparse.Namespace) -> int:
    from eviscope.core.errors import EviScopeError
    from eviscope.suites.eviscope.review import CRITERIA, agreement, read_sheet, stale_marks

    if args.config is not None:
        from eviscope.suites.eviscope.dataset import load_rows

        rows = list(load_rows(args.config, args.dataset))
        for path in args.sheets:
            stale = stale_marks(path, rows)
            if stale:
                shown = ", ".join(stale[:8]) + (f" and {len(stale) - 8} more" if len(stale) > 8 else "")
                raise EviScopeError(
                    f"{path}: {len(stale)} marked item(s) are not conflict passages of {args.config} "
                    f"as built now (stale marks: {shown}); review them again"
                )
    report = agreement({str(path): read_sheet(path) for path in args.sheets})
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    screen = console()
    for name, counts in report["sheets"].items():
        marks = ", ".join(f"{c} {counts[c]}/{counts['items']}" for c in CRITERIA)
        screen.print(f"{name}: pass {counts['pass']}/{counts['items']} ({marks})")
    for pair, counts in report.get("pairs", {}).items():
        kappas = ", ".join(f"{c} κ={counts[c]['kappa']}" for c in CRITERIA)
        screen.print(f"{pair}: {counts['items']} shared items, {kappas}")
    return 0
