"""``eviscope score``: validate a predictions file, print its metrics, write reports and plots."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from eviscope.dataset import add_rows_arguments, load_rows
from eviscope.error_export import failing_quartets, write_error_export
from eviscope.errors import os_error, plain
from eviscope.predictions import Prediction, load_predictions
from eviscope.reports import format_value, report, write_reports
from eviscope.rows import VARIANTS
from eviscope.scoring import QUARTET_ABBREVIATIONS, QUARTET_METRICS, ROW_METRICS, Scores, score_predictions


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
    written = _write_outputs(out_dir, scores, meta, rows, preds)
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
    console.print("wrote " + ", ".join(str(p) for p in written))
    return 0


def _write_outputs(
    out_dir: Path,
    scores: Scores,
    meta: dict[str, Any],
    rows: Sequence[Mapping[str, Any]],
    preds: Sequence[Prediction],
) -> list[Path]:
    """Write the reports, plots and failing quartets into a staging folder beside ``out_dir``, then
    move them in: a run that fails (a full disk, a folder it may not write) leaves ``out_dir`` as it
    was and says so in one line."""
    staging = None
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.partial-", dir=out_dir.parent))
        paths = write_reports(scores, staging, meta)
        errors = write_error_export(failing_quartets(rows, preds, scores), staging)
        staged = [paths["json"], paths["markdown"], paths["quartet_transitions"], paths["action_confusion"]]
        out_dir.mkdir(exist_ok=True)
        written = []
        for path in [*staged, *errors]:
            os.replace(path, out_dir / path.name)
            written.append(out_dir / path.name)
        return written
    except OSError as err:
        raise os_error(out_dir, err, hint=f"nothing was written into {plain(str(out_dir), None)}") from None
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
