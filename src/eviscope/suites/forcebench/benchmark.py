"""ForceBench as a :class:`~eviscope.core.registry.Benchmark`: cited claims whose force was raised (contract §5–6)."""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.table import Table

from eviscope.core.errors import EviScopeError, os_errors, plain
from eviscope.core.registry import (
    AnnotationField,
    BrowseFilter,
    Config,
    Harness,
    HubTask,
    Metric,
    RunOption,
    Scored,
    SpaceScore,
    named_rows,
)
from eviscope.core.sources import Source
from eviscope.core.tables import format_value
from eviscope.suites.forcebench.annotation import (
    ANNOTATION_FIELDS,
    BOUNDARY_TYPES,
    CORRECTABLE,
    DECISIONS,
    Annotation,
    cohen_kappa,
    disagreements,
)
from eviscope.suites.forcebench.prompts import PROMPT_NAMES
from eviscope.suites.forcebench.reported import REPORTED
from eviscope.suites.forcebench.rows import (
    AXES,
    CONFIG,
    FIELDS,
    SEVERITIES,
    STATUSES,
    read_rows,
)
from eviscope.suites.forcebench.task import ForceBenchTask

ATTRIBUTIONBENCH = Source(
    "attributionbench",
    "AttributionBench (folder of JSONL)",
    "--attributionbench",
    "EVISCOPE_ATTRIBUTIONBENCH",
    "osunlp/AttributionBench",
)
"""ForceBench's first source: the cited claims and passages of cited-QA systems."""

HUMAN_SOURCES: tuple[Source, ...] = (
    Source(
        "insciout",
        "InSciOut press-release and abstract conclusions (folder of JSONL, GPL-3.0)",
        "--insciout",
        "EVISCOPE_INSCIOUT",
        None,
    ),
    Source(
        "vitaminc_real",
        "VitaminC real revisions (folder with test.jsonl, CC BY-SA 3.0)",
        "--vitaminc-real",
        "EVISCOPE_VITAMINC_REAL",
        None,
    ),
    Source(
        "check_covid",
        "Check-COVID claims and abstracts (folder, MIT)",
        "--check-covid",
        "EVISCOPE_CHECK_COVID",
        None,
    ),
    Source(
        "missciplus",
        "MissciPlus arguments and cited passages (folder of JSONL, Apache-2.0)",
        "--missciplus",
        "EVISCOPE_MISSCIPLUS",
        None,
    ),
    Source(
        "citation_integrity",
        "Citation-Integrity citing sentences and corpus (folder, MIT)",
        "--citation-integrity",
        "EVISCOPE_CITATION_INTEGRITY",
        None,
    ),
    Source(
        "timeqa_human",
        "TimeQA human-annotated questions (folder, BSD-3-Clause)",
        "--timeqa-human",
        "EVISCOPE_TIMEQA_HUMAN",
        None,
    ),
)
"""The sources of human-written claims (contract §5): each the user's own copy, never downloaded; a
build without one leaves its rows out and says so."""


class ForceBench:
    name = "forcebench"
    title = "ForceBench"
    configs = (Config(CONFIG, ATTRIBUTIONBENCH.name),)
    sources = (ATTRIBUTIONBENCH, *HUMAN_SOURCES)
    builder = "eviscope.builders.forcebench.entry:BUILDER"
    harness = Harness(
        glue="eviscope.suites.forcebench.harness",
        lm_eval_tasks="eviscope.suites.forcebench:lm_eval_tasks",
        inspect_tasks="eviscope.suites.forcebench.inspect_tasks",
    )
    commands = ("eviscope.suites.forcebench.commands.forcebench",)
    run_options = (
        RunOption("judge", "ForceBench judge prompt (required for ForceBench)", choices=tuple(PROMPT_NAMES)),
        RunOption("evaluator", "ForceBench evaluator name (default: <model name>/<judge>)", metavar="NAME"),
    )

    hub_tasks = (HubTask("force_sensitivity", CONFIG, "fs"),)
    metric = Metric("forcebench", CONFIG)

    def load_rows(self, config: str, dataset: Path) -> list[dict[str, Any]]:
        return read_rows(dataset)

    def run_rows(
        self, config: str, dataset: Path, options: Mapping[str, Any]
    ) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        return read_rows(dataset), None

    def task(self, options: Mapping[str, Any], model: str) -> ForceBenchTask:
        judge = options.get("judge")
        if judge is None:
            raise EviScopeError(f"--config {CONFIG} needs --judge ({', '.join(PROMPT_NAMES)})")
        evaluator = options.get("evaluator") or f"{Path(model.rstrip('/')).name}/{judge}"
        return ForceBenchTask(judge, evaluator)

    def score(
        self,
        config: str,
        rows: list[dict[str, Any]],
        predictions: Path,
        out: Path | None,
        *,
        subset: bool = False,
        rows_of: Callable[[str], Sequence[Mapping[str, Any]]] | None = None,  # one config: no other to fit
    ) -> Scored:
        from eviscope.suites.forcebench.scoring import read_predictions, score_predictions

        source = plain(str(predictions), None)
        preds = read_predictions(predictions, source)
        if subset:
            rows = named_rows(config, rows, (p.id for p in preds), source)
        results = score_predictions(rows, preds, source=str(predictions))
        from eviscope.runner.manifest import run_system

        written = write_results(results, out, run_system(predictions), config) if out is not None else []
        title = f"ForceBench: {predictions}, {headline_name(results)}"
        lines: list[Any] = [results_table(title, results), f"pooled: {_pooled(results)}"]
        if "all_rows" in results:
            lines.append(
                f"{results['set_aside']} predictions on pool rows set aside; every row: "
                + (
                    "not scored (an evaluator left pool rows out)"
                    if results["all_rows"] is None
                    else _pooled(results["all_rows"])
                )
            )
        return Scored(results, lines, written, rows=rows if subset else None)

    def score_command(self, config: str, predictions: Path) -> str:
        return f"eviscope score {predictions} --config {config}"

    def metric_example(self, rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        """Forty pairs, judged by a made-up evaluator that calls every third raised claim supported."""
        rows = rows[:40]
        return {
            "predictions": [
                {
                    "id": r["id"],
                    "evaluator": "runtime-check",
                    "score_safe": 1.0,
                    "score_raised": float(i % 3 == 0),
                }
                for i, r in enumerate(rows)
            ],
            "references": [{k: r[k] for k in ("id", "axis", "severity", "pair_type", "split")} for r in rows],
        }

    @property
    def space(self) -> ForceBenchSpace:
        return ForceBenchSpace()


def write_results(results: dict[str, Any], out: Path, system: str | None, config: str | None) -> list[Path]:
    """``results.json`` and the two plots (MVR–FS plane, per-axis heatmap, titled with ``system``
    and ``config``) into ``out``."""
    from eviscope.suites.forcebench.plots import axis_heatmap, mvr_fs_plane

    with os_errors(out, "write", hint="use another --out"):
        out.mkdir(parents=True, exist_ok=True)
        path = out / "results.json"
        path.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        plots = [
            mvr_fs_plane(results["per_evaluator"], out / "mvr_fs.png", system, config),
            axis_heatmap(results["per_evaluator"], out / "axis_heatmap.png", system, config),
        ]
    return [path, *plots]


def _fmt(value: float | None) -> str:
    return "–" if value is None else format_value(value)


def _pooled(results: Mapping[str, Any]) -> str:
    return (
        f"MVR {_fmt(results['mvr'])}  FS {_fmt(results['fs'])}  LPR {_fmt(results['lpr'])}  "
        f"CPA {_fmt(results['cpa'])}  units {results['n']} contrast, {results['n_licensed']} controls"
    )


def headline_name(results: Mapping[str, Any]) -> str:
    """Which rows a result's headline is on, in words."""
    return "the eval split (headline)" if results.get("split") == "eval" else "every row (no eval split)"


def results_table(title: str, results: Mapping[str, Any]) -> Table:
    """MVR, FS (contrast pairs), LPR (controls) and CPA of each evaluator; per-axis figures are in
    ``results.json`` and the heatmap."""
    table = Table(title=title, title_justify="left")
    table.add_column("evaluator", overflow="fold")
    for column in ("MVR", "FS", "LPR", "CPA", "pairs", "ctrl"):
        table.add_column(column, justify="right", no_wrap=True, min_width=6 if column in ("FS",) else 5)
    for name, result in results["per_evaluator"].items():
        table.add_row(
            name,
            *(_fmt(result[m]) for m in ("mvr", "fs", "lpr", "cpa")),
            str(result["n"]),
            str(result["n_licensed"]),
        )
    return table


# --- The Space ------------------------------------------------------------------------------------


class ForceBenchAnnotation:
    """Accept or reject each drafted pair, with corrected fields, axis and severity. Verdicts are
    :class:`~eviscope.suites.forcebench.annotation.Annotation`; a sheet is a CSV of the rows annotated
    so far (the pair type and split hidden), read back by :func:`eviscope.core.registry.read_verdicts`
    (a candidate id, each id once); agreement and the adjudication queue are ``cohen_kappa`` and
    ``disagreements``."""

    title = "ForceBench verdict"
    config = CONFIG
    sheet_columns = (
        *(name for name in FIELDS if name not in ("id", "annotation_status", "pair_type", "split")),
        *ANNOTATION_FIELDS,
    )
    fields = (
        AnnotationField("decision", "decision", "choice", DECISIONS),
        *(AnnotationField(name, f"corrected {name}") for name in CORRECTABLE[:4]),
        AnnotationField("axis", "corrected axis", "select", ("", *AXES)),
        AnnotationField("severity", "corrected severity", "select", ("", *map(str, SEVERITIES))),
        AnnotationField("boundary_type", "boundary type (for a rejection)", "select", BOUNDARY_TYPES),
        AnnotationField("notes", "notes"),
    )

    def candidates(self, rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
        """The rows no one has annotated yet; once every row is settled (a build from the committed
        marks), the ``eval`` rows, for a further blind read of the headline set."""
        drafted = [row for row in rows if row["annotation_status"] == "drafted"]
        return drafted or [row for row in rows if row["split"] == "eval"]

    def blinded_html(self, row: Mapping[str, Any]) -> str:
        """The drafted pair to accept, reject or correct."""
        shown = ("context", "evidence", "evidence_span", "calibrated_claim", "raised_claim", "repair")
        return "".join(
            f"<p><b>{name}</b>: {html.escape(str(row[name]))}</p>" for name in (*shown, "axis", "severity")
        )

    def verdict(self, row_id: str, values: Mapping[str, str]) -> Annotation:
        return Annotation.model_validate({"id": row_id, **values})

    def agreement(
        self, a: Mapping[str, Any], b: Mapping[str, Any], shared: Sequence[Mapping[str, Any]]
    ) -> tuple[float, list[list[str]]]:
        return cohen_kappa(a, b), [[i, why] for i, why in disagreements(shared, a, b).items()]


class ForceBenchSpace:
    """What the Space shows of the ForceBench config."""

    browse_columns = (
        "id",
        "axis",
        "severity",
        "claim_source",
        "pair_type",
        "split",
        "annotation_status",
        "calibrated_claim",
        "raised_claim",
    )
    browse_filters = (
        BrowseFilter("axis", "axis", AXES),
        BrowseFilter("severity", "severity", tuple(map(str, SEVERITIES))),
        BrowseFilter("annotation_status", "status", STATUSES),
    )
    leaderboard_columns = (
        "MVR",
        "FS",
        "LPR",
        "CPA",
        *(f"{m} {axis}" for m in ("MVR", "FS", "LPR", "CPA") for axis in AXES),
    )
    lower_is_better = ("MVR", "LPR")
    annotation = ForceBenchAnnotation()
    reported = REPORTED
    reference_command = "eviscope forcebench baselines (baseline/{name})"

    def reference_systems(self, rows: Sequence[Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        """Every deterministic evaluator of :data:`~eviscope.suites.forcebench.baselines.BASELINES`."""
        from eviscope.suites.forcebench.baselines import BASELINES, baseline_predictions

        return {name: baseline_predictions(rows, [name]) for name in BASELINES}

    def score_upload(
        self,
        rows: Sequence[Mapping[str, Any]],
        path: Path,
        source: str,
        config: str | None = None,
        rows_of: Callable[[str], Sequence[Mapping[str, Any]]] | None = None,  # one config: no other to fit
    ) -> SpaceScore:
        from eviscope.suites.forcebench.scoring import read_predictions, score_predictions

        notes: list[str] = []
        preds = read_predictions(path, source=source, warn=notes.append)
        result = score_predictions(rows, preds, source=source, warn=notes.append)
        return SpaceScore(result, [p.model_dump(exclude_none=True) for p in preds], warnings=notes)

    def report(self, meta: dict[str, Any], scored: SpaceScore, out_dir: Path) -> tuple[str, list[Path]]:
        from eviscope.core.tables import markdown_table
        from eviscope.space.safe import markdown_text
        from eviscope.suites.forcebench.plots import axis_heatmap, mvr_fs_plane

        result = scored.result
        lines = [f"# ForceBench score: {meta['system']} ({meta['predictions']})", ""]
        lines += [f"- {key}: `{value}`" for key, value in meta.items()]
        evaluators = ", ".join(map(markdown_text, result["evaluators"]))  # names the upload chose
        lines += [
            f"- units: {result['n']}, evaluators: {evaluators}",
            f"- rows scored: {headline_name(result)}",
            "",
        ]
        slices = [("overall", result)]
        slices += [(f"axis {axis}", r) for axis, r in result["per_axis"].items()]
        slices += [(f"severity {s}", r) for s, r in result["per_severity"].items()]
        header = ["slice", "MVR (lower is better)", "FS (higher is better)", "LPR (lower is better)",
                  "CPA (higher is better)", "contrast units", "control units"]  # fmt: skip
        cells = [
            [name, *(format_value(r[m]) for m in ("mvr", "fs", "lpr", "cpa")), r["n"], r["n_licensed"]]
            for name, r in slices
        ]
        lines.append(markdown_table(header, cells))
        plots = [
            mvr_fs_plane(
                result["per_evaluator"], out_dir / "mvr_fs_plane.png", meta["system"], meta["config"]
            ),
            axis_heatmap(
                result["per_evaluator"], out_dir / "axis_heatmap.png", meta["system"], meta["config"]
            ),
        ]
        return "\n".join(lines) + "\n", plots

    def leaderboard_line(self, result: Mapping[str, Any]) -> dict[str, Any]:
        """The line of a scored result; a result recorded before controls existed has no LPR or CPA."""
        measures = ("mvr", "fs", "lpr", "cpa")
        line = {measure.upper(): result.get(measure) for measure in measures}
        for measure in measures:
            line.update({f"{measure.upper()} {axis}": result["per_axis"][axis].get(measure) for axis in AXES})
        return line

    def leaderboard_plot(self, records: Sequence[Mapping[str, Any]], path: Path) -> Path:
        """The MVR–FS plane, one point per submitted system."""
        from eviscope.suites.forcebench.plots import mvr_fs_plane

        configs = ", ".join(sorted({r["config"] for r in records}))
        return mvr_fs_plane(
            {r["system"]: r["result"] for r in records},
            path,
            f"{len(records)} systems",
            configs,
            points_are="system",
        )

    def row_html(self, rows: Sequence[Mapping[str, Any]], row: Mapping[str, Any]) -> str:
        from eviscope.suites.forcebench.views import pair_html

        return pair_html(row)

    def compare(
        self, record_a: Mapping[str, Any], record_b: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]
    ) -> list[dict[str, Any]]:
        raise EviScopeError("paired comparison is defined on the quartet metrics of EviScope configs")


BENCHMARK = ForceBench()
