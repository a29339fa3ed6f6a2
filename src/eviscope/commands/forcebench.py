"""``eviscope forcebench …``: ForceBench baselines and the annotation workflow (contract §5–§6)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from eviscope.commands import add_group, add_json_argument, add_subcommand, console
from eviscope.core.errors import EviScopeError, os_errors
from eviscope.core.layout import DEFAULT_DATASET_DIR, PREDICTIONS_FILE, report_dir, run_dir, split_path
from eviscope.suites.forcebench.rows import AXES, read_rows


def register(subparsers: argparse._SubParsersAction) -> None:
    commands = add_group(
        subparsers,
        "forcebench",
        help="ForceBench: baselines and the annotation workflow",
        description=(
            "ForceBench: run the deterministic baselines and annotate candidate rows.\n"
            "Score predictions with `eviscope score PREDICTIONS --config forcebench`."
        ),
    )

    baselines = add_subcommand(
        commands,
        "baselines",
        help="run and score the deterministic baselines",
        description=(
            "Run the deterministic baselines (citation presence, token and entity overlap, rule and\n"
            "axis ForceCheck) over the ForceBench rows: predictions.jsonl in --out, and its report\n"
            "(results.json, mvr_fs.png, axis_heatmap.png) in --out/report/."
        ),
    )
    _add_rows(baselines)
    baselines.add_argument(
        "--out",
        type=Path,
        default=run_dir("forcebench-baselines"),
        metavar="DIR",
        help="run folder (default: %(default)s)",
    )
    add_json_argument(baselines)
    baselines.set_defaults(func=run_baselines)

    sheet = add_subcommand(
        commands,
        "sheet",
        help="export the candidate rows to an annotation sheet (CSV)",
        description="Export the candidate rows to a CSV annotation sheet; fill in its annotation_* columns.",
    )
    sheet.add_argument("out", type=Path, metavar="SHEET", help="the CSV sheet to write")
    _add_rows(sheet)
    sheet.set_defaults(func=run_sheet)

    agree = add_subcommand(
        commands,
        "agreement",
        help="Cohen's kappa of two filled sheets; write the adjudication sheet",
        description="Cohen's kappa of two annotators' filled sheets; write the sheet of rows to adjudicate.",
    )
    agree.add_argument("sheet_a", type=Path, metavar="SHEET_A", help="first annotator's filled sheet")
    agree.add_argument("sheet_b", type=Path, metavar="SHEET_B", help="second annotator's filled sheet")
    agree.add_argument(
        "--adjudication", type=Path, required=True, metavar="FILE", help="the adjudication sheet to write"
    )
    _add_rows(agree)
    add_json_argument(agree)
    agree.set_defaults(func=run_agreement)

    settle = add_subcommand(
        commands,
        "adjudicate",
        help="apply adjudication, cap axes, split and locality-filter; write the settled config",
        description=(
            "Apply the adjudication to two filled sheets, cap rows per axis, draw the evaluation split\n"
            "and drop non-local edits; write the settled ForceBench config into --out."
        ),
    )
    settle.add_argument("sheet_a", type=Path, metavar="SHEET_A", help="first annotator's filled sheet")
    settle.add_argument("sheet_b", type=Path, metavar="SHEET_B", help="second annotator's filled sheet")
    settle.add_argument(
        "adjudication", type=Path, metavar="ADJUDICATION", help="the filled adjudication sheet"
    )
    _add_rows(settle)
    settle.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="dataset folder for the settled config"
    )
    settle.add_argument(
        "--cap", type=int, default=51, help="most accepted rows per axis (default: %(default)s)"
    )
    settle.add_argument(
        "--eval-per-axis", type=int, default=40, help="evaluation rows per axis (default: %(default)s)"
    )
    settle.add_argument("--seed", type=int, default=0, help="stable-hash seed (default: %(default)s)")
    add_json_argument(settle)
    settle.set_defaults(func=run_adjudicate)


def _add_rows(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dataset",
        type=Path,
        default=Path(DEFAULT_DATASET_DIR),
        metavar="PATH",
        help="folder `eviscope build` wrote, or a ForceBench parquet file (default: %(default)s)",
    )


def _print_json(obj: Any) -> None:
    print(json.dumps(obj, indent=2, ensure_ascii=False))


def run_baselines(args: argparse.Namespace) -> int:
    from eviscope.suites.forcebench.baselines import baseline_predictions
    from eviscope.suites.forcebench.benchmark import results_table, write_results
    from eviscope.suites.forcebench.scoring import score_units, units_from_predictions

    rows = read_rows(args.dataset)
    predictions = baseline_predictions(rows)
    results = score_units(units_from_predictions(rows, predictions))
    path = args.out / PREDICTIONS_FILE
    with os_errors(path, hint="use another --out"):
        args.out.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8") as handle:
            for prediction in predictions:
                handle.write(json.dumps(prediction) + "\n")
    written = write_results(results, report_dir(path))
    if args.json:
        _print_json(results)
    else:
        screen = console()
        screen.print(results_table(f"ForceBench baselines, {len(rows)} pairs (MVR per axis)", results))
        screen.print(f"wrote {path}, " + ", ".join(str(p) for p in written))
    return 0


def run_sheet(args: argparse.Namespace) -> int:
    from eviscope.suites.forcebench.annotation import export_sheet

    rows = read_rows(args.dataset)
    export_sheet(rows, args.out)
    print(f"Wrote {len(rows)} candidate rows to {args.out}; fill in the annotation_* columns.")
    return 0


def run_agreement(args: argparse.Namespace) -> int:
    from eviscope.suites.forcebench.annotation import cohen_kappa, read_sheet, write_adjudication_sheet

    rows = read_rows(args.dataset)
    a, b = read_sheet(args.sheet_a, rows), read_sheet(args.sheet_b, rows)
    report = {
        "rows": len(rows),
        "cohen_kappa": cohen_kappa(a, b),
        "to_adjudicate": write_adjudication_sheet(rows, a, b, args.adjudication),
        "adjudication_sheet": str(args.adjudication),
    }
    if args.json:
        _print_json(report)
    else:
        print(
            f"Cohen's kappa on row decisions: {report['cohen_kappa']:.3f} over {len(rows)} rows; "
            f"{report['to_adjudicate']} rows to adjudicate in {args.adjudication}"
        )
    return 0


def run_adjudicate(args: argparse.Namespace) -> int:
    """A build step: writes the settled ForceBench config, so it alone imports a builder (here, not at
    module level: every other ``eviscope forcebench`` command is run time)."""
    from eviscope.builders.parquet_split import write_split
    from eviscope.suites.forcebench.annotation import (
        apply_adjudication,
        cap_axes,
        construction_flow,
        flow_table,
        locality_filter,
        read_adjudication_sheet,
        read_sheet,
        status_counts,
        stratified_split,
    )
    from eviscope.suites.forcebench.rows import CONFIG, FORCEBENCH_FEATURES

    if args.out.resolve() == Path(args.dataset).resolve():
        raise EviScopeError(f"--out {args.out} would overwrite the candidate rows; choose another folder")
    rows = read_rows(args.dataset)
    a, b = read_sheet(args.sheet_a, rows), read_sheet(args.sheet_b, rows)
    settled = apply_adjudication(rows, a, b, read_adjudication_sheet(args.adjudication, rows))
    retained = cap_axes(settled.rows, args.cap, args.seed)
    evaluation, _ = stratified_split(retained, args.eval_per_axis, args.seed)
    final, removed = locality_filter(evaluation)
    write_split(args.out, CONFIG, final, FORCEBENCH_FEATURES)
    flow = construction_flow(len(rows), len(settled.rows), len(retained), len(evaluation), len(final))
    report = {
        "path": str(split_path(args.out, CONFIG)),
        "flow": dict(flow),
        "annotation_status": status_counts(final),
        "axis": {axis: sum(r["axis"] == axis for r in final) for axis in AXES},
        "rejected": settled.rejected,
        "unresolved": settled.unresolved,
        "locality_removed": removed,
    }
    if args.json:
        _print_json(report)
    else:
        print(flow_table(flow))
        if settled.unresolved:
            print(f"{len(settled.unresolved)} disagreements left open on the adjudication sheet were dropped")
        print(f"Wrote {len(final)} rows to {report['path']}")
    return 0
