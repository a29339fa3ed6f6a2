"""``eviscope attribute --run runs/NAME``: counterfactual and naive attribution of a run (contract §7).

Rebuilds the run's backend from its ``manifest.json``, generates every counterfactual of every
answered row in one backend call, and writes ``attribution.jsonl`` (per row: clusters,
contributions, distribution, top evidence of both methods) and ``attribution.json`` (the
evaluation against ``supporting_doc_ids``, with McNemar) into the run folder.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from eviscope.commands import add_dataset_argument, add_json_argument, add_subcommand, console
from eviscope.core.ranges import AT_LEAST_ONE, FINITE_POSITIVE
from eviscope.core.tables import format_value
from eviscope.ragonite.attribution import DEFAULT_EPS, DEFAULT_MIN_SAMPLES, DEFAULT_TEMPERATURE
from eviscope.suites.eviscope.run_attribution import (
    EVALUATION_FILE,
    ROWS_FILE,
    SLICES,
    Parameters,
    attribute_run,
)

STEPS = 6
"""Steps the progress bar counts: rows, backend, evidences, counterfactuals, answers, evaluation."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_subcommand(
        subparsers,
        "attribute",
        help="counterfactual vs naive attribution of a run, scored against evidence-level gold",
        description=(
            "Attribute every answered row of an `eviscope run` folder to its evidence: DBSCAN clusters,\n"
            "one batched regeneration call for every counterfactual, masked softmax, the naive cosine\n"
            f"baseline; write {ROWS_FILE} and {EVALUATION_FILE} into the run folder."
        ),
    )
    parser.add_argument("run", type=Path, metavar="RUN", help="run folder, e.g. runs/qwen-gate/")
    add_dataset_argument(parser)
    parser.add_argument("--squad", metavar="PATH",
                        help="a contextualized run's SQuAD copy (default: the one its manifest names)")  # fmt: skip
    parser.add_argument("--eps", type=FINITE_POSITIVE, default=DEFAULT_EPS,
                        help=f"DBSCAN radius, cosine distance (default: {DEFAULT_EPS})")  # fmt: skip
    parser.add_argument("--min-samples", type=AT_LEAST_ONE, default=DEFAULT_MIN_SAMPLES,
                        help=f"DBSCAN core size (default: {DEFAULT_MIN_SAMPLES})")  # fmt: skip
    parser.add_argument("--temperature", type=FINITE_POSITIVE, default=DEFAULT_TEMPERATURE,
                        help=f"masked-softmax temperature (default: {DEFAULT_TEMPERATURE})")  # fmt: skip
    parser.add_argument("--repeats", type=AT_LEAST_ONE, default=1, metavar="M",
                        help="generations per counterfactual (default: 1; >1 only differs on sampling backends)")  # fmt: skip
    add_json_argument(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    screen = console(stderr=True)
    parameters = Parameters(args.eps, args.min_samples, args.temperature, args.repeats)
    progress = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=screen,
        transient=True,
    )
    with progress:
        bar = progress.add_task("attribution", total=STEPS)
        done = -1

        def step(description: str) -> None:
            nonlocal done
            done += 1
            progress.update(bar, description=description, completed=done)

        report = attribute_run(args.run, args.dataset, parameters, squad=args.squad, step=step)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        console().print(_table(report))
        screen.print(f"wrote {args.run / ROWS_FILE} and {args.run / EVALUATION_FILE}")
    return 0


def _table(report: dict[str, Any]) -> Table:
    evaluation = report["evaluation"]
    counterfactuals = report["counterfactuals"]
    slices = ("answerable", *SLICES)
    table = Table(
        title=(
            f"Attribution accuracy: {report['model']} ({report['backend']}, {report['policy']}) on "
            f"{report['config']}; {counterfactuals['requests']} counterfactuals in "
            f"{counterfactuals['backend_calls']} backend call(s), m = {report['parameters']['repeats']}"
        ),
        title_justify="left",
        caption=(
            "share of rows whose top evidence is gold (supporting_doc_ids); unanswered rows count as "
            "failures; McNemar b: counterfactual right, naive wrong; c: the reverse"
        ),
        caption_justify="left",
    )
    table.add_column("method")
    for name in slices:
        table.add_column(f"{name} ({evaluation[name]['rows']} rows)", justify="right")
    for method in ("counterfactual", "naive"):
        cells = [f"{format_value(evaluation[s][method])} ({evaluation[s][f'{method}_hits']})" for s in slices]
        table.add_row(method, *cells)
    mcnemar = [evaluation[s]["mcnemar"] for s in slices]
    table.add_row("McNemar b / c", *(f"{m['b']} / {m['c']}" for m in mcnemar), style="dim")
    table.add_row("McNemar p", *(f"{m['p_value']:.3g}" for m in mcnemar), style="dim")
    return table
