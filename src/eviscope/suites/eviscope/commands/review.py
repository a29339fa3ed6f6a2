"""``eviscope review conflicts|irrelevant-edits|agreement``: blind review sheets of conflict passages and
of question-irrelevant edits, and their agreement."""

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
    blind = add_subcommand(
        sub,
        "irrelevant-edits",
        help="write a blind sheet of question-irrelevant edits mixed with real conflicts",
        description="Write a blind sheet of the config's question-irrelevant edits (noisy and insufficient\n"
        "rows' edited copies) shuffled among conflict passages of other quartets, each under an opaque key,\n"
        "with the whole articles, for a reader to mark fluent / believable / stands_alone / changes_answer;\n"
        "`eviscope review agreement SHEET --config C` unblinds the marks against the build.",
    )
    add_config_argument(blind)
    add_dataset_argument(blind)
    blind.add_argument("--sample", type=int, default=40, help="irrelevant edits to draw (default: 40)")
    blind.add_argument(
        "--conflicts",
        type=int,
        default=20,
        help="conflict passages of other quartets to mix in blind (default: 20)",
    )
    blind.add_argument("--seed", type=int, default=0, help="sampling and shuffling seed (default: 0)")
    blind.add_argument(
        "--squad",
        metavar="PATH",
        help="SQuAD v1.1 dev (JSON), for the whole article of each item; else $EVISCOPE_SQUAD; "
        "else the hub dataset rajpurkar/squad (other question sources: their variables)",
    )
    blind.add_argument(
        "--out",
        type=Path,
        default=None,
        help="sheet path without suffix (default: review/<config>-irrelevant-edits)",
    )
    blind.set_defaults(func=run_irrelevant_edits)
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
        help="check that every marked item is an edit of this config as built now (a blind sheet of "
        "irrelevant edits needs it: only the build says which item is which)",
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


def run_irrelevant_edits(args: argparse.Namespace) -> int:
    from eviscope.suites.eviscope.blind_review import blind_sheet, draw_summary, write_blind_sheet
    from eviscope.suites.eviscope.dataset import load_rows
    from eviscope.suites.eviscope.row_context import source_articles

    rows = list(load_rows(args.config, args.dataset))
    articles = source_articles(rows, args.squad)
    items = blind_sheet(rows, args.sample, args.conflicts, args.seed, articles)
    out = args.out or Path("review") / f"{args.config}-irrelevant-edits"
    csv_path, markdown, whole = write_blind_sheet(items, out, articles)
    console().print(
        f"{len(items)} items ({draw_summary(items)}, shuffled; the sheet does not say which) · fill "
        f"{csv_path} (read {markdown} with {whole})"
    )
    return 0


def run_agreement(args: argparse.Namespace) -> int:
    from eviscope.core.errors import EviScopeError
    from eviscope.suites.eviscope.blind_review import is_blind_sheet
    from eviscope.suites.eviscope.review import CRITERIA, agreement, read_sheet, stale_marks

    blind = [is_blind_sheet(path) for path in args.sheets]
    if any(blind):
        if not all(blind):
            raise EviScopeError(
                "review agreement: give blind sheets of irrelevant edits and conflict sheets apart"
            )
        return _blind_agreement(args)
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


def _blind_agreement(args: argparse.Namespace) -> int:
    from eviscope.core.errors import EviScopeError
    from eviscope.suites.eviscope.blind_review import (
        BLIND_CRITERIA,
        blind_agreement,
        read_blind_sheet,
        sheet_keys,
    )
    from eviscope.suites.eviscope.dataset import load_rows

    if args.config is None:
        raise EviScopeError(
            f"{args.sheets[0]}: a blind sheet does not say which item is an irrelevant edit and which a "
            "conflict; give --config (the config it was drawn from, as built now) to unblind it"
        )
    keys = sheet_keys(load_rows(args.config, args.dataset))
    report = blind_agreement({str(path): read_blind_sheet(path) for path in args.sheets}, keys)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    screen = console()
    for name, kinds in report["sheets"].items():
        for kind, counts in kinds.items():
            marks = ", ".join(f"{c} {counts[c]}/{counts['items']}" for c in BLIND_CRITERIA)
            must = "no" if kind == "irrelevant_edit" else "yes"
            screen.print(
                f"{name} · {kind}: pass {counts['pass']}/{counts['items']} ({marks}; changes_answer must be {must})"
            )
            if counts["failed_ids"]:
                screen.print(f"  failed: {', '.join(counts['failed_ids'])}")
    for pair, counts in report.get("pairs", {}).items():
        kappas = ", ".join(f"{c} κ={counts[c]['kappa']}" for c in BLIND_CRITERIA)
        screen.print(f"{pair}: {counts['items']} shared items, {kappas}")
    return 0
