"""The builders of the registered benchmarks (:attr:`eviscope.benchmark.Benchmark.builder`): what
``eviscope build`` calls to make a benchmark's configs and to print its build report."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table

from eviscope.benchmark import BuildRequest
from eviscope.sources import resolve


class EviScopeBuilder:
    """The EviScope configs from SQuAD v1.1 dev (:mod:`eviscope.builders.eviscope_configs`)."""

    contextualize = True

    def build(self, request: BuildRequest) -> dict[str, Any]:
        from eviscope.builders.eviscope_configs import DEFAULT_SEED, build_eviscope
        from eviscope.squad_source import load_squad

        squad = load_squad(resolve("squad", request.sources.get("squad")))
        seed = DEFAULT_SEED if request.seed is None else request.seed
        return build_eviscope(
            squad,
            request.configs,
            request.out,
            seed,
            lambda items: request.progress(items, "Scanning SQuAD questions"),
            contextualize=request.contextualize,
        )

    def summary(self, report: Mapping[str, Any]) -> list[Any]:
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
        table.add_row(
            "conflict passages", *(c["conflict_passages"] for c in configs.values()), end_section=True
        )
        for number, lint in enumerate(LINTS, 1):
            cells = [f"{c['lint_pass'][lint]}/{c['quartets']}" for c in configs.values()]
            table.add_row(f"{number}. {lint}", *cells)
        table.add_row(
            "   2's same_type check", *(f"{c['same_type_pass']}/{c['quartets']}" for c in configs.values())
        )
        lines = [
            table,
            f"seed {report['seed']} · {report['eligible_questions']} of {report['questions_scanned']} "
            f"questions eligible\nsource {report['source']['origin']}\n{report['source']['checksum']}",
        ]
        typer = report["answer_typer"]
        measured = typer["hand_labelled"]
        if measured["accuracy"] is not None:
            lines.append(
                f"answer typer {typer['model']} ({typer['licence']}): {measured['accuracy']:.1%} on "
                f"{measured['found_in_source']} hand-labelled answers, {measured['entity_accuracy']:.1%} on "
                f"the {measured['entity_answers']} named or numeric ones"
            )
        return lines


class ForceBenchBuilder:
    """The ForceBench config drafted from AttributionBench (:mod:`eviscope.builders.forcebench_drafting`)."""

    contextualize = False

    def build(self, request: BuildRequest) -> dict[str, Any]:
        from eviscope.builders.forcebench_drafting import build_forcebench

        seed = 0 if request.seed is None else request.seed
        return build_forcebench(
            resolve("attributionbench", request.sources.get("attributionbench")), request.out, seed
        )

    def summary(self, report: Mapping[str, Any]) -> list[Any]:
        statuses = ", ".join(f"{n} {status}" for status, n in report["annotation_status"].items())
        table = Table(title=f"ForceBench: {statuses}", title_justify="left")
        table.add_column("axis")
        table.add_column("pairs", justify="right")
        sources = list(next(iter(report["claim_source"].values()), {}))
        for source in sources:  # claim_source: where each pair's calibrated claim came from
            table.add_column(source, justify="right", no_wrap=True)
        for axis, count in report["axis"].items():
            table.add_row(axis, str(count), *(str(report["claim_source"][axis][s]) for s in sources))
        totals = [str(sum(by_source[s] for by_source in report["claim_source"].values())) for s in sources]
        table.add_row("all", str(report["rows"]), *totals, end_section=True)
        for lint, passed in report["lints_passed"].items():
            table.add_row(f"lint {lint}", f"{passed}/{report['rows']}")
        return [table]


EVISCOPE = EviScopeBuilder()
FORCEBENCH = ForceBenchBuilder()
