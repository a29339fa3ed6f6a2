"""EviScope as a :class:`~eviscope.core.registry.Benchmark`: quartets of SQuAD evidence variants (contract §2–4).

Its configs are built by :mod:`eviscope.builders.eviscope.configs`; its rows are read by
:mod:`eviscope.suites.eviscope.dataset`, its predictions by :mod:`eviscope.suites.eviscope.predictions`, scored by
:mod:`eviscope.suites.eviscope.scoring` and reported by :mod:`eviscope.suites.eviscope.reports` and :mod:`eviscope.suites.eviscope.error_export`.
"""

from __future__ import annotations

import html
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from rich.table import Table

from eviscope.core.errors import os_error, plain
from eviscope.core.fields import warn_user
from eviscope.core.metrics import names
from eviscope.core.plotting import legend_below, plot_title, png_metadata, series_style
from eviscope.core.registry import (
    DEFAULT_CONFIG,
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
from eviscope.core.stats import cohen_kappa
from eviscope.core.tables import format_value, round_value
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.error_export import failing_quartets, write_error_export
from eviscope.suites.eviscope.fit import mismatch_warning
from eviscope.suites.eviscope.metrics import METRICS
from eviscope.suites.eviscope.policies import POLICIES
from eviscope.suites.eviscope.predictions import (
    Prediction,
    join_predictions,
    load_predictions,
    read_predictions,
)
from eviscope.suites.eviscope.reported import REPORTED
from eviscope.suites.eviscope.reports import report, write_reports
from eviscope.suites.eviscope.rows import ACTIONS, VARIANTS
from eviscope.suites.eviscope.scoring import (
    QUARTET_ABBREVIATIONS,
    QUARTET_METRICS,
    ROW_METRICS,
    Scores,
    score_predictions,
)
from eviscope.suites.eviscope.squad_source import QUESTION_SOURCES, SQUAD
from eviscope.suites.eviscope.task import EviScopeTask

USAGE_METRICS = names(METRICS, usage=True)
"""Metrics read from ``usage``: not measured when no prediction carries it."""

RowsOf = Callable[[str], Sequence[Mapping[str, Any]]]


def _warn_other_config(
    config: str | None,
    rows: Sequence[Mapping[str, Any]],
    preds: Sequence[Prediction],
    source: str,
    rows_of: RowsOf | None,
    warn: Callable[[str], None],
) -> None:
    """Warn when the predictions' citations and quotes mostly miss the rows' documents, naming the
    other EviScope configs (those ``rows_of`` can give) that they fit (:mod:`eviscope.suites.eviscope.fit`)."""
    others = None
    if rows_of is not None:
        others = {c.name: (lambda name=c.name: rows_of(name)) for c in EviScope.configs if c.name != config}
    message = mismatch_warning(rows, preds, source, config, others)
    if message:
        warn(message)


class EviScope:
    name = "eviscope"
    title = "EviScope"
    configs = (
        Config("eviscope-v1", SQUAD.name),
        Config("eviscope-v1.1", SQUAD.name),
        Config("eviscope-xl", SQUAD.name),
    )
    sources = tuple(spec.source for spec in QUESTION_SOURCES.values())
    builder = "eviscope.builders.eviscope.entry:BUILDER"
    harness = Harness(
        glue="eviscope.suites.eviscope.harness",
        lm_eval_tasks="eviscope.suites.eviscope:lm_eval_tasks",
        inspect_tasks="eviscope.suites.eviscope.inspect_tasks",
    )
    commands = tuple(
        f"eviscope.suites.eviscope.commands.{name}" for name in ("baseline", "compare", "review", "attribute")
    )
    run_options = (
        RunOption("policy", "EviScope policy", default="vanilla", choices=tuple(POLICIES)),
        RunOption(
            "contextualize",
            "give each document its article title and neighbouring paragraphs (RAGONITE; title only "
            "where a neighbour holds a gold alias or fails the leak check), recorded in the manifest",
            default=False,
            switch=True,
        ),
        RunOption(
            "squad",
            "with --contextualize: SQuAD v1.1 dev; else $EVISCOPE_SQUAD; else the hub",
            metavar="PATH",
        ),
    )

    hub_tasks = (
        HubTask("joint_success", "eviscope-v1.1", "joint_success"),
        HubTask("quartet_consistency", "eviscope-v1.1", "quartet_consistency"),
        HubTask("joint_success_xl", "eviscope-xl", "joint_success"),
    )
    metric = Metric("eviscope_metric", "eviscope-v1.1")

    def load_rows(self, config: str, dataset: Path) -> list[dict[str, Any]]:
        return load_rows(config, dataset)

    def run_rows(
        self, config: str, dataset: Path, options: Mapping[str, Any]
    ) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        rows = load_rows(config, dataset)
        if not options.get("contextualize"):
            return rows, None
        from eviscope.suites.eviscope.row_context import contextualize_from_squad

        return contextualize_from_squad(rows, options.get("squad"))

    def task(self, options: Mapping[str, Any], model: str) -> EviScopeTask:
        return EviScopeTask(options["policy"])

    def score(
        self,
        config: str,
        rows: list[dict[str, Any]],
        predictions: Path,
        out: Path | None,
        *,
        subset: bool = False,
        rows_of: RowsOf | None = None,
    ) -> Scored:
        source = plain(str(predictions), None)
        read = read_predictions(predictions, source, warn_user)
        if subset:
            rows = named_rows(config, rows, read.ids(), source)
        preds = join_predictions(source, read, rows)
        _warn_other_config(config, rows, preds, source, rows_of, warn_user)
        scores = score_predictions(rows, preds)
        from eviscope.runner.manifest import run_system

        meta = {"config": config, "system": run_system(predictions), "predictions": str(predictions)}
        written = _write_outputs(out, scores, meta, rows, preds) if out is not None else []
        measured = preds.has_usage()
        return Scored(
            report(scores, meta), _tables(scores, measured), written, scores.overall, rows if subset else None
        )

    def score_command(self, config: str, predictions: Path) -> str:
        return f"eviscope score {predictions} --config {config}"

    def metric_example(self, rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        from eviscope.suites.eviscope.reference_systems import always_answer

        return {"predictions": always_answer(rows), "references": rows}

    @property
    def space(self) -> EviScopeSpace:
        return EviScopeSpace()


def _tables(scores: Scores, usage_measured: bool) -> list[Table]:
    quartets = Table(title="quartet metrics", title_justify="left")
    for name in QUARTET_METRICS:
        quartets.add_column(QUARTET_ABBREVIATIONS[name], justify="right", no_wrap=True)
    quartets.add_row(*(format_value(scores.overall[name]) for name in QUARTET_METRICS))
    note = "" if usage_measured else "; n/a: no prediction carries usage"
    table = Table(
        title=f"row metrics (— not defined on the variant{note})",
        title_justify="left",
        caption="variants: " + ", ".join(f"{v[:5]} {v}" for v in VARIANTS if v[:5] != v),
        caption_justify="left",
    )
    table.add_column("metric", no_wrap=True)
    for column in ("overall", *VARIANTS):
        # headers abbreviated to 5 letters so the table fits 80 columns, piped or not
        table.add_column(column if column == "overall" else column[:5], justify="right", no_wrap=True)
    for name in ROW_METRICS:
        cells = [scores.overall.get(name), *(scores.per_variant.get(v, {}).get(name) for v in VARIANTS)]
        if name in USAGE_METRICS and not usage_measured:
            table.add_row(name, *("n/a" if c is not None else "—" for c in cells))
        else:
            table.add_row(name, *(format_value(c) for c in cells))
    return [quartets, table]


def _write_outputs(
    out_dir: Path,
    scores: Scores,
    meta: dict[str, Any],
    rows: Sequence[Mapping[str, Any]],
    preds: Sequence[Prediction],
) -> list[Path]:
    """Write the reports, plots and failing quartets into a staging folder beside ``out_dir``, then
    move them in: a run that fails (a full disk, a folder it may not write) leaves ``out_dir`` as it
    was and says so in one line."""
    staging = None
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.partial-", dir=out_dir.parent))
        paths = write_reports(scores, staging, meta)
        errors = write_error_export(failing_quartets(rows, preds, scores), staging)
        staged = [paths["json"], paths["markdown"], paths["quartet_transitions"], paths["action_confusion"]]
        out_dir.mkdir(exist_ok=True)
        written = []
        for path in [*staged, *errors]:
            os.replace(path, out_dir / path.name)
            written.append(out_dir / path.name)
        return written
    except OSError as err:
        raise os_error(out_dir, err, hint=f"nothing was written into {plain(str(out_dir), None)}") from None
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)


# --- The Space ------------------------------------------------------------------------------------

HEADLINE = (
    ("joint_success", "joint success"),
    *((name, abbr) for name, abbr in QUARTET_ABBREVIATIONS.items()),
    ("answer_accuracy", "answer accuracy"),
    ("false_conflict_rate", "false conflicts"),
    ("total_cost_usd", "cost (USD)"),
)
"""Leaderboard columns of an EviScope config: (metric, header)."""
NOT_ALWAYS_DEFINED = frozenset({"false_conflict_rate"})
"""Headline metrics that a config may leave undefined (no row whose near-duplicate disagrees only
about another fact, as in ``eviscope-v1.1``): their cell is empty (None), not a reason to leave the
line off the leaderboard."""


class EviScopeVerdict(BaseModel):
    """One annotator's reading of one EviScope row, made without seeing its labels."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    action: Literal["answer", "abstain", "flag_conflict"]
    supporting_doc_id: str = ""
    answer: str = ""
    notes: str = ""


class EviScopeAnnotation:
    """Validation of EviScope rows: for each row, shown without its variant, document ids or any
    label, the annotator says which action the evidence warrants, which document supports the
    answer, and the answer. Agreement is Cohen's kappa on the actions; the adjudication queue holds
    rows where the annotators' actions differ, or agree with each other but not with the gold
    ``expected_action``."""

    title = "EviScope verdict"
    config = DEFAULT_CONFIG
    sheet_columns = (
        "question",
        "annotation_action",
        "annotation_supporting_doc_id",
        "annotation_answer",
        "annotation_notes",
    )
    fields = (
        AnnotationField("action", "the evidence warrants", "choice", tuple(ACTIONS)),
        AnnotationField("supporting_doc_id", "supporting document", "document"),
        AnnotationField("answer", "answer"),
        AnnotationField("notes", "notes"),
    )

    def candidates(self, rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
        return list(rows)

    def blinded_html(self, row: Mapping[str, Any]) -> str:
        """The question and numbered documents, with no ids, variant or labels."""
        docs = "".join(
            f'<div class="doc"><div class="doc-head">document {i} · {html.escape(d["title"])}</div>'
            f"{html.escape(d['text'])}</div>"
            for i, d in enumerate(row["documents"], start=1)
        )
        return f"<h3>{html.escape(row['question'])}</h3>{docs}"

    def verdict(self, row_id: str, values: Mapping[str, str]) -> EviScopeVerdict:
        return EviScopeVerdict.model_validate({"id": row_id, **values})

    def agreement(
        self, a: Mapping[str, Any], b: Mapping[str, Any], shared: Sequence[Mapping[str, Any]]
    ) -> tuple[float, list[list[str]]]:
        ids = [row["id"] for row in shared]
        value = cohen_kappa([a[i].action for i in ids], [b[i].action for i in ids], ACTIONS)
        kappa = float("nan") if value is None else value
        queue = []
        for row in shared:
            x, y = a[row["id"]].action, b[row["id"]].action
            if x != y:
                queue.append([row["id"], f"actions differ: {x} / {y}"])
            elif x != row["expected_action"]:
                queue.append(
                    [row["id"], f"both say {x}; the gold expected_action is {row['expected_action']}"]
                )
        return kappa, queue


class EviScopeSpace:
    """What the Space shows of an EviScope config."""

    browse_columns = ("id", "variant", "expected_action", "question", "answers")
    browse_filters = (BrowseFilter("variant", "variant", VARIANTS),)
    leaderboard_columns = tuple(header for _, header in HEADLINE)
    lower_is_better = ("false conflicts", "cost (USD)")
    annotation = EviScopeAnnotation()
    reported = REPORTED
    reference_command = "eviscope baseline --system {name}"

    def reference_systems(self, rows: Sequence[Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        """Every system of :data:`~eviscope.suites.eviscope.reference_systems.SYSTEMS`."""
        from eviscope.suites.eviscope.reference_systems import SYSTEMS

        return {name: system(rows) for name, system in SYSTEMS.items()}

    def score_upload(
        self,
        rows: Sequence[Mapping[str, Any]],
        path: Path,
        source: str,
        config: str | None = None,
        rows_of: RowsOf | None = None,
    ) -> SpaceScore:
        notes: list[str] = []
        preds = load_predictions(path, rows, source=source, warn=notes.append)
        _warn_other_config(config, rows, preds, source, rows_of, notes.append)
        scores = score_predictions(rows, preds)
        # ``action`` is kept when null (no decision): it is a required field, so a comparison that
        # reads the stored predictions back accepts them
        stored = [{**p.model_dump(exclude_none=True), "action": p.action} for p in preds]
        return SpaceScore(scores.to_dict(), stored, scores, notes)

    def report(self, meta: dict[str, Any], scored: SpaceScore, out_dir: Path) -> tuple[str, list[Path]]:
        from eviscope.suites.eviscope.reports import (
            markdown_report,
            plot_action_confusion,
            plot_quartet_transitions,
        )

        scores = scored.detail
        plots = [
            plot_quartet_transitions(
                scores, out_dir / "quartet_transitions.png", meta["system"], meta["config"]
            ),
            plot_action_confusion(scores, out_dir / "action_confusion.png", meta["system"], meta["config"]),
        ]
        return markdown_report(report(scores, meta)), plots

    def leaderboard_line(self, result: Mapping[str, Any]) -> dict[str, Any]:
        return {
            header: result.get(name) if name in NOT_ALWAYS_DEFINED else result[name]
            for name, header in HEADLINE
        }

    def leaderboard_plot(self, records: Sequence[Mapping[str, Any]], path: Path) -> Path:
        """Joint success per variant, one group of bars per variant and one bar per system."""
        from matplotlib.figure import Figure

        fig = Figure()
        ax = fig.subplots()
        width = 0.8 / max(len(records), 1)
        for i, record in enumerate(records):
            values = [record["result"]["per_variant"][v]["joint_success"] for v in VARIANTS]
            xs = [x + i * width for x in range(len(VARIANTS))]
            color, _, hatch = series_style(i)
            ax.bar(xs, values, width, label=record["system"], color=color, hatch=hatch, edgecolor="white")
        ax.set_xticks([x + width * (len(records) - 1) / 2 for x in range(len(VARIANTS))], VARIANTS)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("joint success")
        configs = sorted({record["config"] for record in records})
        title = plot_title("joint success per variant", f"{len(records)} systems", ", ".join(configs))
        ax.set_title(title)
        legend_below(fig, ax, width_inches=7, plot_inches=3.6, title="system")
        fig.tight_layout()
        fig.savefig(path, dpi=100, metadata=png_metadata(title))
        return path

    def row_html(self, rows: Sequence[Mapping[str, Any]], row: Mapping[str, Any]) -> str:
        from eviscope.suites.eviscope.views import quartet_html

        return quartet_html(rows, row["quartet_id"])

    def compare(
        self, record_a: Mapping[str, Any], record_b: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]
    ) -> list[dict[str, Any]]:
        """McNemar p-value and bootstrap 95% interval of A − B for each quartet metric (contract §4)."""
        from eviscope.suites.eviscope.paired import compare

        def scores_of(record: Mapping[str, Any]) -> Scores:
            return score_predictions(
                rows, load_predictions(record["predictions"], rows, source=record["system"])
            )

        return [
            {
                "metric": QUARTET_ABBREVIATIONS[r.metric],
                "A": round_value(r.a),
                "B": round_value(r.b_value),
                "A − B": round_value(r.difference),
                "b (A only)": r.b,
                "c (B only)": r.c,
                "McNemar p": float(f"{r.p_value:.3g}"),
                "95% CI low": round_value(r.ci_low),
                "95% CI high": round_value(r.ci_high),
            }
            for r in compare(scores_of(record_a), scores_of(record_b))
        ]


BENCHMARK = EviScope()
