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
        "--out", type=Path, default=Path("dataset"), help="dataset repo folder (default: dataset)"
    )
    parser.add_argument("--seed", type=int, default=None, help="selection seed (default: the released one)")
    parser.add_argument("--json", action="store_true", help="print the build report as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from eviscope.builders.eviscope_configs import DEFAULT_SEED, build_eviscope
    from eviscope.builders.registry import CONFIGS, releasable
    from eviscope.builders.squad_source import load_squad

    names = args.configs or releasable()
    unknown = [name for name in names if name not in CONFIGS]
    if unknown:
        raise EviScopeError(f"unknown config(s) {', '.join(unknown)}; known: {', '.join(CONFIGS)}")
    console = Console(stderr=True)
    started = time.perf_counter()
    seed = DEFAULT_SEED if args.seed is None else args.seed

    def progress(items: Iterable) -> Iterable:
        return track(items, description="Scanning SQuAD questions", console=console, transient=True)

    eviscope_names = [name for name in names if CONFIGS[name].builder == "eviscope"]
    squad = load_squad(resolve("squad", args.squad))
    report = build_eviscope(squad, eviscope_names, args.out, seed, progress)
    report_path = args.out / "build_report.json"
    report_path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        _print_summary(report, report_path, time.perf_counter() - started)
    return 0


def _print_summary(report: dict, report_path: Path, seconds: float) -> None:
    from eviscope.builders.conflict_lints import LINTS

    configs = report["configs"]
    table = Table(title="EviScope build", title_justify="left")
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
    console = Console()
    console.print(table)
    console.print(
        f"seed {report['seed']} · {report['eligible_questions']} of {report['questions_scanned']} questions "
        f"eligible · {seconds:.1f} s\nsource {report['source']['origin']}\n{report['source']['checksum']}\n"
        f"report {report_path}"
    )
