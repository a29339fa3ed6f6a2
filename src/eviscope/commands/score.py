"""``eviscope score PREDICTIONS``: validate a predictions file, print its metrics, write its reports."""

from __future__ import annotations

import argparse
import contextlib
import json
from pathlib import Path
from typing import Any

from eviscope.commands import (
    add_config_argument,
    add_dataset_argument,
    add_json_argument,
    add_subcommand,
    console,
)
from eviscope.core.datafiles import allowing_modified_data
from eviscope.core.errors import EviScopeError, plain
from eviscope.core.layout import PREDICTIONS_FILE, report_dir
from eviscope.core.registry import for_config
from eviscope.runner.manifest import MANIFEST, read_manifest
from eviscope.runner.session import asks_other_rows


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
    parser.add_argument(
        "--subset",
        action="store_true",
        help="score only the rows the predictions name (an `eviscope run --limit N` run); without it "
        "a missing row is an error. The file is read once, a line at a time, as without it",
    )
    add_json_argument(parser)
    parser.set_defaults(func=run)


def _warn_other_rows(config: str, rows: list[dict[str, Any]], predictions: Path) -> None:
    """One line on stderr when the manifest beside a run folder's predictions records that its run
    asked other rows than those scored (a row redrawn under the same id, another build)."""
    if predictions.name != PREDICTIONS_FILE:
        return
    where = predictions.parent / MANIFEST
    try:
        manifest = read_manifest(predictions.parent)
        other = manifest is not None and asks_other_rows(config, rows, manifest, str(where))
    except EviScopeError as err:  # a broken manifest does not stop a score: it is named, in one line
        console(stderr=True).print(
            f"eviscope score: warning: {plain(str(err), None)}; the rows the run asked are not "
            "checked, and the report names the run by its folder",
            markup=False,
            soft_wrap=True,
        )
        return
    if other:
        console(stderr=True).print(
            f"eviscope score: warning: {predictions.parent / MANIFEST} records a run that asked other "
            f"rows than the {len(rows)} scored (their ids, prompts or schemas differ): the "
            "predictions answer another build's rows",
            markup=False,
            soft_wrap=True,
        )


def _default_report(predictions: Path) -> Path:
    """The report folder beside ``predictions`` (:func:`~eviscope.core.layout.report_dir`); one that
    is a symbolic link (planted in a run folder, it would send the reports elsewhere) is refused."""
    out = report_dir(predictions)
    if out.is_symlink():
        raise EviScopeError(
            f"{plain(str(out), None)} is a symbolic link, and eviscope score writes its default report "
            "folder only as a real folder: remove the link, or give --out"
        )
    return out


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
    total = len(rows)
    out = args.out or _default_report(args.predictions)
    scored = bench.score(
        args.config,
        rows,
        args.predictions,
        out,
        subset=args.subset,  # read once
        rows_of=lambda other: bench.load_rows(other, args.dataset),
    )
    rows = rows if scored.rows is None else scored.rows
    _warn_other_rows(args.config, rows, args.predictions)
    if args.json:
        print(json.dumps(scored.report, indent=2, ensure_ascii=False))
        return 0
    screen = console()
    of = f"{len(rows)} of {total} rows, --subset" if len(rows) < total else f"{len(rows)} rows"
    screen.print(f"{bench.title} {args.config}: {args.predictions} ({of})")
    for table in scored.tables:
        screen.print(table)
    screen.print("wrote " + ", ".join(str(p) for p in scored.written))
    return 0
