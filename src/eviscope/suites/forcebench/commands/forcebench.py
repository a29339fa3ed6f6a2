"""``eviscope forcebench …``: ForceBench baselines and the annotation workflow (contract §5–§6)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from eviscope.commands import add_group, add_json_argument, add_subcommand, console
from eviscope.core.errors import EviScopeError, os_errors
from eviscope.core.io import write_atomic
from eviscope.core.layout import DEFAULT_DATASET_DIR, PREDICTIONS_FILE, report_dir, run_dir, split_path
from eviscope.core.tables import format_value
from eviscope.core.untrusted_json import dumps
from eviscope.suites.forcebench.rows import PAIR_TYPES, SPLITS, read_rows


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
            "Run the deterministic baselines (citation presence, token and entity overlap, the copy\n"
            "detector, rule and axis ForceCheck; evidence-blind: shorter claim, fewer force words, edit\n"
            "direction, the claim-only classifier) over the ForceBench rows: predictions.jsonl in --out,\n"
            "and its report (results.json, mvr_fs.png, axis_heatmap.png) in --out/report/."
        ),
    )
    _add_rows(baselines)
    baselines.add_argument(
        "--out",
        type=Path,
        default=run_dir("forcebench-baselines"),
        metavar="DIR",
        help="run folder",
    )
    add_json_argument(baselines)
    baselines.set_defaults(func=run_baselines)

    baselines.add_argument(
        "--split",
        choices=(*SPLITS, "all"),
        default=None,
        help="score the rows of this split, or all of them (default: the eval split when the rows have "
        "one, as `eviscope score` does; else all)",
    )

    sheet = add_subcommand(
        commands,
        "sheet",
        help="write the two blind annotation sheets of every candidate (CSV)",
        description=(
            "Write pass-A.csv and pass-B.csv (every candidate, contrast pairs and controls alike, each\n"
            "pass in its own order, the pair type hidden) and their instructions into DIR. Two readers\n"
            "who did not draft the rows answer each row's yes/no questions, one sheet each."
        ),
    )
    sheet.add_argument("out", type=Path, metavar="DIR", help="the folder to write the sheets into")
    _add_rows(sheet)
    _add_drafted(sheet)
    sheet.add_argument("--seed", type=int, default=0, help="order seed")
    sheet.set_defaults(func=run_sheet)

    agree = add_subcommand(
        commands,
        "agreement",
        help="Cohen's kappa of two filled sheets; write the adjudication sheet",
        description=(
            "Cohen's kappa of the two readers' verdicts and of each question; write the sheet of rows\n"
            "whose verdicts differ, for the adjudicator."
        ),
    )
    _add_filled_sheets(agree, adjudication=False)
    agree.add_argument(
        "--adjudication", type=Path, required=True, metavar="FILE", help="the adjudication sheet to write"
    )
    _add_rows(agree)
    _add_drafted(agree)
    add_json_argument(agree)
    agree.set_defaults(func=run_agreement)

    settle = add_subcommand(
        commands,
        "adjudicate",
        help="settle the annotations: annotation_status and the eval/pool split; write the config",
        description=(
            "Keep the candidates whose settled verdict is their pair type (both readers', or the\n"
            "adjudicator's where they differ), mark them adjudicated, cap contrast pairs per axis, draw\n"
            "the eval split (contrast pairs per axis, stratified by source, plus the controls) and drop\n"
            "non-local edits; write the settled ForceBench config into --out."
        ),
    )
    _add_filled_sheets(settle)
    _add_rows(settle)
    settle.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="dataset folder for the settled config"
    )
    settle.add_argument(
        "--annotators",
        nargs=3,
        required=True,
        metavar=("READER_A", "READER_B", "ADJUDICATOR"),
        help="who read pass A, pass B, and who adjudicated (written to the report, for the card)",
    )
    settle.add_argument("--cap", type=int, default=51, help="most accepted contrast pairs per axis")
    settle.add_argument("--eval-per-axis", type=int, default=40, help="eval contrast pairs per axis")
    settle.add_argument("--seed", type=int, default=0, help="stable-hash seed")
    add_json_argument(settle)
    settle.set_defaults(func=run_adjudicate)

    marks = add_subcommand(
        commands,
        "marks",
        help="write the marks file the build reads: ids, fingerprints and answers, no text",
        description=(
            "Write the marks of two filled sheets and the filled adjudication sheet into FILE: per\n"
            "candidate its id, the fingerprint of the text the readers were shown, both readers' and\n"
            "the adjudicator's yes/no answers and who they were, and no text of the row, so it may be\n"
            "committed. `eviscope build forcebench` reads it (builders/forcebench/\n"
            "forcebench-annotation.marks.csv) and settles every row whose id and fingerprint match."
        ),
    )
    _add_filled_sheets(marks)
    _add_rows(marks)
    _add_drafted(marks)
    marks.add_argument("--out", type=Path, required=True, metavar="FILE", help="the marks file to write")
    marks.add_argument(
        "--annotators",
        nargs=3,
        required=True,
        metavar=("READER_A", "READER_B", "ADJUDICATOR"),
        help="labels of who read pass A, pass B, and who adjudicated (never names of data)",
    )
    marks.add_argument(
        "--update",
        action="store_true",
        help="add to FILE: keep its lines of the candidates these sheets do not show (a later round)",
    )
    marks.set_defaults(func=run_marks)


def _add_filled_sheets(parser: argparse.ArgumentParser, *, adjudication: bool = True) -> None:
    """The filled sheets a command reads: the two readers' (and the adjudicator's)."""
    parser.add_argument("sheet_a", type=Path, metavar="SHEET_A", help="pass A, filled")
    parser.add_argument("sheet_b", type=Path, metavar="SHEET_B", help="pass B, filled")
    if adjudication:
        parser.add_argument(
            "adjudication", type=Path, metavar="ADJUDICATION", help="the filled adjudication sheet"
        )


def _add_drafted(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--drafted",
        action="store_true",
        help="only the candidates still `drafted` (a later round: those no committed mark settles)",
    )


def _candidates(args: argparse.Namespace) -> list[dict]:
    """The rows of ``--dataset``; with ``--drafted``, those no committed mark settles."""
    rows = read_rows(args.dataset)
    return [row for row in rows if row["annotation_status"] == "drafted"] if args.drafted else rows


def _add_rows(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dataset",
        type=Path,
        default=Path(DEFAULT_DATASET_DIR),
        metavar="PATH",
        help="folder `eviscope build` wrote, or a ForceBench parquet file",
    )


def _print_json(obj: Any) -> None:
    print(json.dumps(obj, indent=2, ensure_ascii=False))


def run_baselines(args: argparse.Namespace) -> int:
    from eviscope.suites.forcebench.baselines import baseline_predictions, classifier_predictions
    from eviscope.suites.forcebench.benchmark import results_table, write_results
    from eviscope.suites.forcebench.scoring import (
        headline_rows,
        score_predictions,
        score_units,
        units_from_predictions,
    )

    rows = read_rows(args.dataset)
    if args.split is None:
        rows, split = headline_rows(rows)
    elif args.split != "all":
        rows, split = [row for row in rows if row["split"] == args.split], args.split
        if not rows:
            raise EviScopeError(f"{args.dataset}: no rows of split {args.split!r}")
    else:
        split = "all"
    predictions = baseline_predictions(rows)
    results = {**score_predictions(rows, predictions), "split": split}
    if len({row["pair_type"] for row in rows}) == len(PAIR_TYPES):
        held_out, fit = classifier_predictions(rows)  # cross-fitted: every row predicted once
        fit.pop("ids")
        results["claim_only_classifier"] = {**fit, **score_units(units_from_predictions(rows, held_out))}
    path = args.out / PREDICTIONS_FILE
    with os_errors(path, hint="use another --out"):  # through a fresh temporary file: never a planted link
        write_atomic(path, "".join(dumps(prediction) + "\n" for prediction in predictions))
    where = "forcebench" if args.split is None else f"forcebench ({args.split} split)"
    written = write_results(results, report_dir(path), "reference baselines", where)
    if args.json:
        _print_json(results)
    else:
        screen = console()
        screen.print(results_table(f"ForceBench baselines, {len(rows)} pairs (split: {split})", results))
        if "claim_only_classifier" in results:
            fit = results["claim_only_classifier"]
            screen.print(
                f"claim-only pair_type classifier, cross-fitted over {fit['folds']} folds, {fit['test']} pairs: accuracy "
                f"{format_value(fit['accuracy'])} (chance {format_value(fit['chance'])}); MVR {format_value(fit['mvr'])} FS {format_value(fit['fs'])} "
                f"LPR {format_value(fit['lpr'])} CPA {format_value(fit['cpa'])}"
            )
        screen.print(f"wrote {path}, " + ", ".join(str(p) for p in written))
    return 0


def run_sheet(args: argparse.Namespace) -> int:
    from eviscope.suites.forcebench.sheets import write_sheets

    rows = _candidates(args)
    with os_errors(args.out, "write", hint="choose another DIR"):
        written = write_sheets(rows, args.out, args.seed)
    print(f"Wrote {len(rows)} candidates to each of " + ", ".join(str(p) for p in written))
    return 0


def run_agreement(args: argparse.Namespace) -> int:
    from eviscope.suites.forcebench.sheets import agreement, read_marks, write_adjudication

    rows = _candidates(args)
    a, b = read_marks(args.sheet_a, rows), read_marks(args.sheet_b, rows)
    report = agreement(a, b)
    with os_errors(args.adjudication, "write"):
        report["to_adjudicate"] = write_adjudication(rows, a, b, args.adjudication)
    report["adjudication_sheet"] = str(args.adjudication)
    if args.json:
        _print_json(report)
    else:
        kappa = report["kappa_verdict"]
        print(
            f"Cohen's kappa of the verdicts: {'n/a' if kappa is None else format_value(kappa)} over {len(rows)} "
            f"rows (raw agreement {format_value(report['agreement_verdict'])}); {report['to_adjudicate']} rows to "
            f"adjudicate in {args.adjudication}"
        )
    return 0


def run_adjudicate(args: argparse.Namespace) -> int:
    """A build step: writes the settled ForceBench config, so it alone imports a builder (here, not at
    module level: every other ``eviscope forcebench`` command is run time)."""
    from eviscope.builders.parquet_split import write_split
    from eviscope.suites.forcebench.annotation import flow_table, status_counts
    from eviscope.suites.forcebench.rows import CONFIG, FORCEBENCH_FEATURES
    from eviscope.suites.forcebench.sheets import (
        agreement,
        read_adjudication,
        read_marks,
        settle,
        split_counts,
    )

    if args.out.resolve() == Path(args.dataset).resolve():
        raise EviScopeError(f"--out {args.out} would overwrite the candidate rows; choose another folder")
    rows = read_rows(args.dataset)
    a, b = read_marks(args.sheet_a, rows), read_marks(args.sheet_b, rows)
    settled = settle(
        rows, a, b, read_adjudication(args.adjudication, rows), args.cap, args.eval_per_axis, args.seed
    )
    write_split(args.out, CONFIG, settled.rows, FORCEBENCH_FEATURES)
    reader_a, reader_b, adjudicator = args.annotators
    report = {
        "path": str(split_path(args.out, CONFIG)),
        "annotators": {"pass_a": reader_a, "pass_b": reader_b, "adjudicator": adjudicator},
        "agreement": agreement(a, b),
        "flow": dict(settled.flow),
        "annotation_status": status_counts(settled.rows),
        "split": split_counts(settled.rows),
        "rejected": settled.rejected,
        "unresolved": settled.unresolved,
        "locality_removed": settled.locality_removed,
    }
    if args.json:
        _print_json(report)
    else:
        print(flow_table(settled.flow))
        if settled.unresolved:
            print(f"{len(settled.unresolved)} disagreements left open on the adjudication sheet were dropped")
        print(f"Wrote {len(settled.rows)} rows to {report['path']}")
    return 0


def run_marks(args: argparse.Namespace) -> int:
    from eviscope.suites.forcebench.sheets import apply_marks, read_marks_file, write_marks

    rows = _candidates(args)
    with os_errors(args.out, "write", hint="choose another FILE"):
        earlier = args.out if args.update and args.out.exists() else None
        lines = write_marks(
            rows, args.sheet_a, args.sheet_b, args.adjudication, tuple(args.annotators), args.out, earlier
        )
    applied = apply_marks(rows, read_marks_file(args.out))
    print(f"Wrote the marks of {lines} candidates to {args.out}")
    stale = applied.report["stale"]
    if stale:
        print(f"{len(stale)} of them were read on other text than {args.dataset} holds now (stale)")
    return 0
