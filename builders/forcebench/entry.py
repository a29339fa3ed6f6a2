"""The ForceBench builder of the registry (:attr:`eviscope.core.registry.Benchmark.builder`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table

from eviscope.core.registry import BuildRequest
from eviscope.core.sources import resolve


class ForceBenchBuilder:
    """The ForceBench config drafted from AttributionBench (:mod:`eviscope.builders.forcebench.drafting`)."""

    contextualize = False
    requires: tuple[str, ...] = ()

    def build(self, request: BuildRequest) -> dict[str, Any]:
        from eviscope.builders.forcebench.drafting import build_forcebench

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
        pairs = {
            kind: sum(by_type[kind] for by_type in report["pair_type"].values())
            for kind in ("contrast", "licensed")
        }
        table.add_row("contrast pairs", str(pairs["contrast"]))
        table.add_row("controls (licensed)", str(pairs["licensed"]), end_section=True)
        for lint, passed in report["lints_passed"].items():  # on contrast pairs; controls have their own
            table.add_row(f"lint {lint}", f"{passed}/{pairs['contrast']}")
        return [table]


BUILDER = ForceBenchBuilder()
