"""``eviscope build [CONFIG ...]``: build configs from their public sources into the dataset repo."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterable
from pathlib import Path

from rich.console import Console
from rich.progress import track
from rich.table import Table

from eviscope.errors import EviScopeError
from eviscope.sources import SOURCES, resolve

CONTEXTUALIZED_OUT = "dataset-contextualized"
"""Where ``eviscope build --contextualize`` writes by default: never over the plain build."""
CONTEXTUALIZED_CARD = """---
{}
---

# EviScope, contextualized

Built by `eviscope build --contextualize`: the EviScope configs with the same names, ids, gold and
schema as the plain build, where each document's `text` carries its SQuAD article title and the
paragraphs just before and after it (RAGONITE evidence contextualization). A document whose
neighbours contain a gold answer alias of a row that shows it gets its title only, so no
`insufficient` row becomes answerable; `build_report.json` lists those documents. See the project's
`dataset/README.md` for the full card.
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "build",
        help="build dataset configs from their public sources",
        description="Build the named configs (default: every releasable config) into the dataset repo.",
    )
    parser.add_argument(
        "configs", nargs="*", metavar="CONFIG", help="configs to build (default: all releasable)"
    )
    for source in SOURCES.values():
        default = f"the hub dataset {source.hub_id}" if source.hub_id else "none: your own copy"
        parser.add_argument(
            source.flag,
            metavar="PATH",
            help=f"{source.what}; else ${source.env}; else {default}",
        )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help=f"dataset repo folder (default: dataset, or {CONTEXTUALIZED_OUT} with --contextualize)",
    )
    parser.add_argument(
        "--contextualize",
        action="store_true",
        help=(
            "write the EviScope configs, same names, ids and schema, with each document's text "
            "contextualized (RAGONITE: article title and neighbouring paragraphs, title only where a "
            f"neighbour holds a gold alias) into a separate dataset folder (default: {CONTEXTUALIZED_OUT})"
        ),
    )
    parser.add_argument("--seed", type=int, default=None, help="selection seed (default: the released one)")
    parser.add_argument("--json", action="store_true", help="print the build report as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from eviscope.builders.registry import CONFIGS, releasable

    names = args.configs or releasable()
    unknown = [name for name in names if name not in CONFIGS]
    if unknown:
        raise EviScopeError(f"unknown config(s) {', '.join(unknown)}; known: {', '.join(CONFIGS)}")
    if args.contextualize:
        other = [name for name in args.configs if CONFIGS[name].builder != "eviscope"]
        if other:
            raise EviScopeError(f"--contextualize is for the EviScope configs, not {', '.join(other)}")
        names = [name for name in names if CONFIGS[name].builder == "eviscope"]
    if args.out is None:
        args.out = Path(CONTEXTUALIZED_OUT if args.contextualize else "dataset")
    card = args.out / "README.md"
    if args.contextualize and not card.exists():
        card.parent.mkdir(parents=True, exist_ok=True)
        card.write_text(CONTEXTUALIZED_CARD, encoding="utf-8")
    console = Console(stderr=True)
    started = time.perf_counter()
    report: dict = {}
    eviscope_names = [name for name in names if CONFIGS[name].builder == "eviscope"]
    if eviscope_names:
        report["eviscope"] = _build_eviscope(args, eviscope_names, console)
    if "forcebench" in names:
        from eviscope.builders.forcebench_drafting import build_forcebench

        seed = 0 if args.seed is None else args.seed
        report["forcebench"] = build_forcebench(
            resolve("attributionbench", args.attributionbench), args.out, seed
        )
    report_path = args.out / "build_report.json"
    report_path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        _print_summary(report, report_path, time.perf_counter() - started)
    missing = _declared_but_unbuilt(args.out)
    if missing:
        console.print(
            f"[yellow]warning:[/] {args.out / 'README.md'} declares {', '.join(missing)} without data; "
            f"load_dataset fails on every config of the folder until you run: eviscope build {' '.join(missing)}"
        )
    return 0


def _build_eviscope(args: argparse.Namespace, names: list[str], console: Console) -> dict:
    from eviscope.builders.eviscope_configs import DEFAULT_SEED, build_eviscope
    from eviscope.builders.squad_source import load_squad

    def progress(items: Iterable) -> Iterable:
        return track(items, description="Scanning SQuAD questions", console=console, transient=True)

    squad = load_squad(resolve("squad", args.squad))
    seed = DEFAULT_SEED if args.seed is None else args.seed
    return build_eviscope(squad, names, args.out, seed, progress, contextualize=args.contextualize)


def _declared_but_unbuilt(out: Path) -> list[str]:
    """Configs the card declares whose data files are missing (``datasets`` resolves them all)."""
    from huggingface_hub import DatasetCard

    declared = DatasetCard.load(out / "README.md").data.to_dict().get("configs", [])
    return [
        config["config_name"]
        for config in declared
        if not all((out / f["path"]).exists() for f in config["data_files"])
    ]


def _print_summary(report: dict, report_path: Path, seconds: float) -> None:
    console = Console()
    if "eviscope" in report:
        console.print(_eviscope_table(report["eviscope"]))
        eviscope = report["eviscope"]
        console.print(
            f"seed {eviscope['seed']} · {eviscope['eligible_questions']} of {eviscope['questions_scanned']} "
            f"questions eligible\nsource {eviscope['source']['origin']}\n{eviscope['source']['checksum']}"
        )
        typer = eviscope["answer_typer"]
        measured = typer["hand_labelled"]
        if measured["accuracy"] is not None:
            console.print(
                f"answer typer {typer['model']} ({typer['licence']}): {measured['accuracy']:.1%} on "
                f"{measured['found_in_source']} hand-labelled answers, {measured['entity_accuracy']:.1%} on "
                f"the {measured['entity_answers']} named or numeric ones"
            )
    if "forcebench" in report:
        console.print(_forcebench_table(report["forcebench"]))
    console.print(f"report {report_path} · {seconds:.1f} s")


def _eviscope_table(report: dict) -> Table:
    from eviscope.builders.conflict_lints import LINTS

    configs = report["configs"]
    table = Table(title="EviScope configs", title_justify="left")
    table.add_column("")
    for name in configs:
        table.add_column(name, justify="right")
    for label, key in (("quartets", "quartets"), ("rows", "rows"), ("articles", "articles_used")):
        table.add_row(
            label, *(str(c[key] if key != "articles_used" else len(c[key])) for c in configs.values())
        )
    table.add_row("conflict passages", *(c["conflict_passages"] for c in configs.values()), end_section=True)
    for number, lint in enumerate(LINTS, 1):
        cells = [f"{c['lint_pass'][lint]}/{c['quartets']}" for c in configs.values()]
        table.add_row(f"{number}. {lint}", *cells)
    table.add_row(
        "   2's same_type check", *(f"{c['same_type_pass']}/{c['quartets']}" for c in configs.values())
    )
    return table


def _forcebench_table(report: dict) -> Table:
    statuses = ", ".join(f"{n} {status}" for status, n in report["annotation_status"].items())
    table = Table(title=f"ForceBench: {statuses}", title_justify="left")
    table.add_column("axis")
    table.add_column("pairs", justify="right")
    for axis, count in report["axis"].items():
        table.add_row(axis, str(count))
    table.add_row("all", str(report["rows"]), end_section=True)
    for lint, passed in report["lints_passed"].items():
        table.add_row(f"lint {lint}", f"{passed}/{report['rows']}")
    return table
