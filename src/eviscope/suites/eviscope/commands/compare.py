"""``eviscope compare A B``: paired McNemar and bootstrap of every quartet metric (contract §4)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.table import Table

from eviscope.commands import (
    add_config_argument,
    add_dataset_argument,
    add_json_argument,
    add_subcommand,
    console,
)
from eviscope.core.ranges import AT_LEAST_ONE, SEED
from eviscope.core.tables import format_value
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.paired import DEFAULT_DRAWS, DEFAULT_SEED, compare
from eviscope.suites.eviscope.scoring import QUARTET_ABBREVIATIONS, score


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_subcommand(
        subparsers,
        "compare",
        help="compare two prediction files on the same config, quartet by quartet",
        description=(
            "Exact McNemar p-value and bootstrap 95% interval of A − B for ERS, NR, CS and QCS.\n"
            "b counts quartets where A holds and B does not, c the reverse."
        ),
    )
    parser.add_argument("a", type=Path, metavar="A.jsonl", help="predictions of system A")
    parser.add_argument("b", type=Path, metavar="B.jsonl", help="predictions of system B")
    add_config_argument(parser)
    add_dataset_argument(parser)
    parser.add_argument("--draws", type=AT_LEAST_ONE, default=DEFAULT_DRAWS, help="bootstrap draws")
    parser.add_argument("--seed", type=SEED, default=DEFAULT_SEED, help="bootstrap seed")
    add_json_argument(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    rows = load_rows(args.config, args.dataset)
    results = compare(score(rows, args.a), score(rows, args.b), draws=args.draws, seed=args.seed)
    if args.json:
        payload = {
            "config": args.config,
            "A": str(args.a),
            "B": str(args.b),
            "draws": args.draws,
            "seed": args.seed,
            "metrics": {r.metric: r.to_dict() for r in results},
        }
        print(json.dumps(payload, indent=2))
        return 0
    table = Table(
        title=f"EviScope {args.config}: A = {args.a}, B = {args.b}",
        title_justify="left",
        caption=", ".join(f"{abbr} {name}" for name, abbr in QUARTET_ABBREVIATIONS.items()),
    )
    for column in ("metric", "A", "B", "A − B", "b", "c", "McNemar p", "95% CI of A − B"):
        table.add_column(column, justify="left" if column == "metric" else "right", no_wrap=True)
    for r in results:
        table.add_row(
            QUARTET_ABBREVIATIONS[r.metric],
            format_value(r.a),
            format_value(r.b_value),
            format_value(r.difference, signed=True),
            str(r.b),
            str(r.c),
            f"{r.p_value:.2g}",
            f"[{format_value(r.ci_low, signed=True)}, {format_value(r.ci_high, signed=True)}]",
        )
    console().print(table)
    return 0
