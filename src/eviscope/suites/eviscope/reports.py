"""Score reports: JSON, Markdown, and PNG plots (quartet transitions, per-variant action confusion)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from eviscope.core.plotting import OKABE_ITO, RIGHT, WRONG, plot_title, png_metadata
from eviscope.core.tables import format_value, markdown_table
from eviscope.suites.eviscope.rows import ACTIONS, EXPECTED_ACTION, VARIANTS
from eviscope.suites.eviscope.scoring import QUARTET_ABBREVIATIONS, QUARTET_METRICS, ROW_METRICS, Scores

__all__ = ["markdown_report", "plot_action_confusion", "plot_quartet_transitions", "report", "write_reports"]

PREDICTED_LABELS = (*ACTIONS, "null")
"""Columns of the action confusion: the three actions, then unparsable outputs."""


def report(scores: Scores, meta: dict[str, Any]) -> dict[str, Any]:
    """The JSON report: ``meta`` (config, predictions file, …), every metric, the action confusion."""
    return {
        "meta": meta,
        "n_rows": len(scores.rows.ids),
        "n_quartets": len(scores.quartets.quartet_ids),
        "overall": scores.overall,
        "per_variant": scores.per_variant,
        "action_confusion": scores.action_confusion(),
    }


def _table(header: list[str], lines: list[list[str]]) -> list[str]:
    return markdown_table(header, lines).splitlines()


def markdown_report(rep: dict[str, Any], plots: dict[str, str] | None = None) -> str:
    """The Markdown report of :func:`report`'s output; ``plots`` maps a caption to a relative path."""
    meta = rep["meta"]
    out = [f"# EviScope score: {meta.get('predictions', 'predictions')}", ""]
    out += [f"- {key}: `{value}`" for key, value in meta.items()]
    out += [f"- rows: {rep['n_rows']}, quartets: {rep['n_quartets']}", "", "## Quartet metrics", ""]
    out += _table(
        ["metric", "value"],
        [
            [f"{name} ({QUARTET_ABBREVIATIONS[name]})", format_value(rep["overall"][name])]
            for name in QUARTET_METRICS
        ],
    )
    out += [
        "",
        "## Row metrics, overall and per variant",
        "",
        "— marks a metric not defined on a variant.",
        "",
    ]
    variants = list(rep["per_variant"])
    out += _table(
        ["metric", "overall", *variants],
        [
            [
                name,
                format_value(rep["overall"].get(name)),
                *(format_value(rep["per_variant"][v].get(name)) for v in variants),
            ]
            for name in ROW_METRICS
        ],
    )
    out += ["", "## Expected vs predicted action", ""]
    out += _table(
        ["variant", "expected", *PREDICTED_LABELS],
        [
            [variant, EXPECTED_ACTION[variant], *(str(counts[label]) for label in PREDICTED_LABELS)]
            for variant, counts in rep["action_confusion"].items()
        ],
    )
    for caption, path in (plots or {}).items():
        out += ["", f"![{caption}]({path})"]
    return "\n".join(out) + "\n"


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_quartet_transitions(scores: Scores, path: Path, system: str | None, config: str | None) -> Path:
    """Which variants each quartet gets right: one line per quartet, grouped by success pattern;
    titled with ``system`` and ``config``."""
    plt = _pyplot()
    from matplotlib.colors import ListedColormap

    success = scores.quartets.success.astype(int)
    patterns, inverse, counts = np.unique(success, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    # Most frequent pattern first; within a pattern, quartets keep their order.
    order = np.lexsort((np.arange(len(inverse)), inverse, -counts[inverse]))
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(10, max(3.0, 0.12 * len(order) + 1.5)), gridspec_kw={"width_ratios": [1, 2]}
    )
    right_wrong = ListedColormap([WRONG, RIGHT])
    left.imshow(success[order], aspect="auto", cmap=right_wrong, vmin=0, vmax=1, interpolation="nearest")
    left.set_xticks(range(len(VARIANTS)), VARIANTS, rotation=30, ha="right")
    left.set_yticks([])
    left.set_ylabel(f"{len(order)} quartets")
    left.set_title("success per quartet\n(blue: right, orange: wrong)", fontsize=9)
    by_count = np.argsort(-counts, kind="stable")
    labels = [
        " ".join(v[:4] + ("✓" if ok else "✗") for v, ok in zip(VARIANTS, patterns[i], strict=True))
        for i in by_count
    ]
    right.barh(range(len(by_count)), counts[by_count], color=OKABE_ITO[0])
    right.set_yticks(range(len(by_count)), labels, fontsize=8)
    right.invert_yaxis()
    right.set_xlabel("quartets")
    qm = ", ".join(f"{QUARTET_ABBREVIATIONS[m]} {format_value(scores.overall[m])}" for m in QUARTET_METRICS)
    right.set_title(f"transition patterns ({qm})", fontsize=9)
    title = plot_title("quartet transitions", system, config)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120, metadata=png_metadata(title))
    plt.close(fig)
    return path


def plot_action_confusion(scores: Scores, path: Path, system: str | None, config: str | None) -> Path:
    """Per variant (and so per expected action), how many rows got each predicted action; titled
    with ``system`` and ``config``."""
    plt = _pyplot()
    confusion = scores.action_confusion()
    matrix = np.array([[confusion[v][label] for label in PREDICTED_LABELS] for v in VARIANTS])
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    ax.imshow(matrix, cmap="Blues")
    ax.set_xticks(range(len(PREDICTED_LABELS)), PREDICTED_LABELS, rotation=20)
    ax.set_yticks(range(len(VARIANTS)), [f"{v}\n(expect {EXPECTED_ACTION[v]})" for v in VARIANTS])
    ax.set_xlabel("predicted action")
    for i, variant in enumerate(VARIANTS):
        for j, label in enumerate(PREDICTED_LABELS):
            right = label == EXPECTED_ACTION[variant]
            dark = matrix[i, j] > matrix.max() / 2
            ax.text(
                j,
                i,
                str(matrix[i, j]),
                ha="center",
                va="center",
                color="white" if dark else "black",
                fontweight="bold" if right else None,
            )
        ax.add_patch(
            plt.Rectangle(
                (PREDICTED_LABELS.index(EXPECTED_ACTION[variant]) - 0.5, i - 0.5), 1, 1, fill=False, lw=2
            )
        )
    title = plot_title("expected (boxed) vs predicted action", system, config)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120, metadata=png_metadata(title))
    plt.close(fig)
    return path


def write_reports(scores: Scores, out_dir: Path, meta: dict[str, Any]) -> dict[str, Path]:
    """Write ``report.json``, ``report.md`` and the two PNG plots into ``out_dir``; the plots are
    titled with ``meta``'s ``system`` and ``config``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    rep = report(scores, meta)
    whose = meta.get("system"), meta.get("config")
    paths = {
        "quartet_transitions": plot_quartet_transitions(scores, out_dir / "quartet_transitions.png", *whose),
        "action_confusion": plot_action_confusion(scores, out_dir / "action_confusion.png", *whose),
    }
    paths["json"] = out_dir / "report.json"
    paths["json"].write_text(json.dumps(rep, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    paths["markdown"] = out_dir / "report.md"
    plots = {
        "quartet transitions": paths["quartet_transitions"].name,
        "action confusion": paths["action_confusion"].name,
    }
    paths["markdown"].write_text(markdown_report(rep, plots), encoding="utf-8")
    return paths
