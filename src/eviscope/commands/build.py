"""``eviscope build [CONFIG ...]``: build configs from their public sources into the dataset repo."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterable
from pathlib import Path

from rich.progress import track

from eviscope.commands import HelpFormatter, console
from eviscope.core.errors import EviScopeError
from eviscope.core.layout import DEFAULT_DATASET_DIR
from eviscope.core.registry import (
    BuildRequest,
    benchmark,
    builder,
    check_build_requirements,
    configs,
    releasable,
)
from eviscope.core.sources import sources as all_sources

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
        formatter_class=HelpFormatter,
        help="build dataset configs from their public sources",
        description="Build the named configs (default: every releasable config) into the dataset repo.",
    )
    parser.add_argument(
        "configs", nargs="*", metavar="CONFIG", help="configs to build (default: all releasable)"
    )
    for source in all_sources().values():
        default = f"the hub dataset {source.hub_id}" if source.hub_id else "none: your own copy"
        parser.add_argument(
            source.flag,
            dest=source.name,
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
            f"neighbour holds a gold alias or fails the leak check) into a separate dataset folder "
            f"(default: {CONTEXTUALIZED_OUT})"
        ),
    )
    parser.add_argument("--seed", type=int, default=None, help="selection seed (default: the released one)")
    parser.add_argument("--json", action="store_true", help="print the build report as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    known = configs()
    names = args.configs or releasable()
    unknown = [name for name in names if name not in known]
    if unknown:
        raise EviScopeError(f"unknown config(s) {', '.join(unknown)}; known: {', '.join(known)}")
    by_benchmark: dict[str, list[str]] = {}
    for name in names:
        by_benchmark.setdefault(known[name][0].name, []).append(name)
    builders = {name: builder(benchmark(name)) for name in by_benchmark}
    if args.contextualize:
        other = [n for n in args.configs if not builders[known[n][0].name].contextualize]
        if other:
            raise EviScopeError(f"--contextualize is not offered for {', '.join(other)}")
        by_benchmark = {b: n for b, n in by_benchmark.items() if builders[b].contextualize}
    for name in by_benchmark:
        check_build_requirements(benchmark(name), builders[name])
    out = args.out or Path(CONTEXTUALIZED_OUT if args.contextualize else DEFAULT_DATASET_DIR)
    card = out / "README.md"
    if args.contextualize and not card.exists():
        card.parent.mkdir(parents=True, exist_ok=True)
        card.write_text(CONTEXTUALIZED_CARD, encoding="utf-8")
    err = console(stderr=True)

    def progress(items: Iterable, description: str) -> Iterable:
        return track(items, description=description, console=err, transient=True)

    started = time.perf_counter()
    sources = {name: getattr(args, name) for name in all_sources()}
    report: dict = {}
    for name, config_names in by_benchmark.items():
        request = BuildRequest(config_names, sources, out, args.seed, args.contextualize, progress)
        report[name] = builders[name].build(request)
    report_path = out / "build_report.json"
    report_path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        screen = console()
        for name, part in report.items():
            for renderable in builders[name].summary(part):
                screen.print(renderable)
        screen.print(f"report {report_path} · {time.perf_counter() - started:.1f} s")
    missing = _declared_but_unbuilt(out)
    if missing:
        err.print(
            f"[yellow]warning:[/] {out / 'README.md'} declares {', '.join(missing)} without data; "
            f"load_dataset fails on every config of the folder until you run: eviscope build {' '.join(missing)}"
        )
    return 0


def _declared_but_unbuilt(out: Path) -> list[str]:
    """Configs the card declares whose data files are missing (``datasets`` resolves them all)."""
    from huggingface_hub import DatasetCard

    declared = DatasetCard.load(out / "README.md").data.to_dict().get("configs", [])
    return [
        config["config_name"]
        for config in declared
        if not all((out / f["path"]).exists() for f in config["data_files"])
    ]
