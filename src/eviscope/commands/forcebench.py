"""``eviscope forcebench …``: ForceBench baselines, scoring and the annotation workflow (SPEC §5–§6)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from eviscope.errors import EviScopeError
from eviscope.forcebench.rows import AXES, read_rows

_ROWS_HELP = "built dataset folder or a ForceBench parquet file (default: dataset)"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "forcebench",
        help="ForceBench: baselines, scoring and annotation",
        description="ForceBench: run the deterministic baselines, score predictions, annotate candidates.",
    )
    commands = parser.add_subparsers(dest="forcebench_command", required=True)

    baselines = commands.add_parser(
        "baselines",
        help="run and score the deterministic baselines; write predictions, results and PNG plots",
    )
    baselines.add_argument("--rows", type=Path, default=Path("dataset"), help=_ROWS_HELP)
    baselines.add_argument(
        "--out",
        type=Path,
        default=Path("results/forcebench-baselines"),
        help="folder for predictions.jsonl, results.json, mvr_fs.png, axis_heatmap.png "
        "(default: results/forcebench-baselines)",
    )
    baselines.add_argument("--json", action="store_true", help="print the results as JSON")
    baselines.set_defaults(func=run_baselines)

    score = commands.add_parser("score", help="score a JSONL file of ForceBench predictions (MVR, FS)")
    score.add_argument("predictions", type=Path, help="JSONL, one prediction per (pair, evaluator)")
    score.add_argument("--rows", type=Path, default=Path("dataset"), help=_ROWS_HELP)
    score.add_argument("--json", action="store_true", help="print the results as JSON")
    score.set_defaults(func=run_score)

    sheet = commands.add_parser("sheet", help="export the candidate rows to an annotation sheet (CSV)")
    sheet.add_argument("out", type=Path, help="the CSV sheet to write")
    sheet.add_argument("--rows", type=Path, default=Path("dataset"), help=_ROWS_HELP)
    sheet.set_defaults(func=run_sheet)

    agree = commands.add_parser(
        "agreement", help="Cohen's kappa of two filled sheets; write the adjudication sheet"
    )
    agree.add_argument("sheet_a", type=Path)
    agree.add_argument("sheet_b", type=Path)
    agree.add_argument("--adjudication", type=Path, required=True, help="the adjudication sheet to write")
    agree.add_argument("--rows", type=Path, default=Path("dataset"), help=_ROWS_HELP)
    agree.add_argument("--json", action="store_true", help="print the agreement report as JSON")
    agree.set_defaults(func=run_agreement)

    settle = commands.add_parser(
        "adjudicate",
        help="apply adjudication, cap axes, split and locality-filter; write the settled config",
    )
    settle.add_argument("sheet_a", type=Path)
    settle.add_argument("sheet_b", type=Path)
    settle.add_argument("adjudication", type=Path, help="the filled adjudication sheet")
    settle.add_argument("--rows", type=Path, default=Path("dataset"), help=_ROWS_HELP)
    settle.add_argument("--out", type=Path, required=True, help="dataset folder for the settled config")
    settle.add_argument("--cap", type=int, default=51, help="most accepted rows per axis (default: 51)")
    settle.add_argument(
        "--eval-per-axis", type=int, default=40, help="evaluation rows per axis (default: 40)"
    )
    settle.add_argument("--seed", type=int, default=0, help="stable-hash seed (default: 0)")
    settle.add_argument("--json", action="store_true", help="print the report as JSON")
    settle.set_defaults(func=run_adjudicate)


def _print_json(obj: Any) -> None:
    print(json.dumps(obj, indent=2, ensure_ascii=False))


def _results_table(title: str, results: dict[str, Any]) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("evaluator", no_wrap=True)
    for column in ("MVR", "FS", *(axis[:4] for axis in AXES)):
        table.add_column(column, justify="right", min_width=4, no_wrap=True)
    for name, result in results["per_evaluator"].items():
        per_axis = [result["per_axis"][a]["mvr"] for a in AXES]
        table.add_row(
            name,
            f"{result['mvr']:.3f}",
            f"{result['fs']:.3f}",
            *("–" if v is None else f"{v:.2f}" for v in per_axis),
        )
    return table


def run_baselines(args: argparse.Namespace) -> int:
    from eviscope.forcebench.baselines import baseline_predictions
    from eviscope.forcebench.plots import axis_heatmap, mvr_fs_plane
    from eviscope.forcebench.scoring import score_units, units_from_predictions

    rows = read_rows(args.rows)
    predictions = baseline_predictions(rows)
    results = score_units(units_from_predictions(rows, predictions))
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "predictions.jsonl").open("w", encoding="utf-8") as handle:
        for prediction in predictions:
            handle.write(json.dumps(prediction) + "\n")
    (args.out / "results.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    mvr_fs_plane(results["per_evaluator"], args.out / "mvr_fs.png")
    axis_heatmap(results["per_evaluator"], args.out / "axis_heatmap.png")
    if args.json:
        _print_json(results)
    else:
        console = Console()
        console.print(_results_table(f"ForceBench baselines, {len(rows)} pairs (MVR per axis)", results))
        console.print(f"Wrote predictions, results and plots to {args.out}")
    return 0


def run_score(args: argparse.Namespace) -> int:
    from eviscope.forcebench.scoring import read_predictions, score_units, units_from_predictions

    rows = read_rows(args.rows)
    results = score_units(
        units_from_predictions(rows, read_predictions(args.predictions), source=str(args.predictions))
    )
    if args.json:
        _print_json(results)
    else:
        Console().print(_results_table(f"ForceBench: {args.predictions} (MVR per axis)", results))
        print(f"pooled: MVR {results['mvr']:.3f}  FS {results['fs']:.3f}  units {results['n']}")
    return 0


def run_sheet(args: argparse.Namespace) -> int:
    from eviscope.forcebench.annotation import export_sheet

    rows = read_rows(args.rows)
    export_sheet(rows, args.out)
    print(f"Wrote {len(rows)} candidate rows to {args.out}; fill in the annotation_* columns.")
    return 0


def run_agreement(args: argparse.Namespace) -> int:
    from eviscope.forcebench.annotation import cohen_kappa, read_sheet, write_adjudication_sheet

    rows = read_rows(args.rows)
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
    from eviscope.builders.parquet_split import split_path, write_split
    from eviscope.forcebench.annotation import (
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
    from eviscope.forcebench.rows import CONFIG, FORCEBENCH_FEATURES

    if args.out.resolve() == Path(args.rows).resolve():
        raise EviScopeError(f"--out {args.out} would overwrite the candidate rows; choose another folder")
    rows = read_rows(args.rows)
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
