"""``eviscope baseline``: write the predictions of a reference system that needs no GPU."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console

from eviscope.dataset import add_rows_arguments, load_rows
from eviscope.reference_systems import SYSTEMS, predict


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "baseline",
        help="write a reference system's predictions (lexical, oracle, always-answer)",
        description=(
            "lexical: extractive overlap baseline that abstains and flags conflicts; oracle: the gold "
            "labels (joint success 1.0); always-answer: the gold answer on every row."
        ),
    )
    parser.add_argument("--system", choices=list(SYSTEMS), default="lexical", help="reference system")
    add_rows_arguments(parser)
    parser.add_argument(
        "--out", type=Path, metavar="FILE", help="predictions JSONL (default: runs/<config>/<system>.jsonl)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    rows = load_rows(args.config, args.dataset)
    out = args.out or Path("runs") / args.config / f"{args.system}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    preds = predict(args.system, rows)
    out.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in preds), encoding="utf-8")
    Console(stderr=True).print(f"{args.system}: {len(preds)} predictions for {args.config} → {out}")
    return 0
