"""PNG plots of ForceBench results: the MVR–FS plane (paper Fig. 2) and the axis heatmap (Fig. 4)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from eviscope.core.plotting import legend_below, plot_title, png_metadata, series_style
from eviscope.core.tables import format_value
from eviscope.suites.forcebench.rows import AXES

__all__ = ["axis_heatmap", "mvr_fs_plane"]


def mvr_fs_plane(
    per_evaluator: Mapping[str, Mapping[str, Any]],
    path: Path,
    system: str | None,
    config: str | None,
    points_are: str = "evaluator",
) -> Path:
    """One point per evaluator at (MVR, FS); lower MVR and higher FS (upper left) are better;
    titled with ``system`` and ``config``. ``points_are`` says what the keys of ``per_evaluator``
    name (the legend's title, and the title's "per ..."): the evaluators of one submission's file,
    whatever the submitter called it, or the systems of a leaderboard."""
    # evaluators at the same point share one marker, named together in the legend
    points: dict[tuple[float, float], list[str]] = {}
    for name, result in per_evaluator.items():
        points.setdefault((result["mvr"], result["fs"]), []).append(name)
    fig, ax = plt.subplots()
    for i, ((mvr, fs), names) in enumerate(points.items()):
        color, marker, _ = series_style(i)
        ax.scatter(mvr, fs, s=50, color=color, marker=marker, label="; ".join(names), zorder=3)
    ax.set_xlabel("MVR (monotonicity violation rate, lower is better)")
    ax.set_ylabel("FS (force sensitivity, higher is better)")
    ax.set_xlim(-0.05, 1.05)
    fs_values = [fs for _, fs in points] or [0.0]
    ax.set_ylim(max(-1.05, min(0.0, *fs_values) - 0.1), min(1.05, max(0.1, *fs_values) + 0.1))
    ax.axhline(0, color="0.6", linewidth=0.8)
    ax.grid(alpha=0.3)
    legend_below(fig, ax, width_inches=7, plot_inches=4.5, title=points_are)
    title = plot_title(f"MVR–FS plane per {points_are}", system, config)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=150, metadata=png_metadata(title))
    plt.close(fig)
    return Path(path)


def axis_heatmap(
    per_evaluator: Mapping[str, Mapping[str, Any]], path: Path, system: str | None, config: str | None
) -> Path:
    """MVR per evaluator (rows, named as in the file) and axis (columns), each cell written by
    :func:`~eviscope.core.tables.format_value` as every table writes it; empty cells are axes with no
    units; a sequential colour map (ColorBrewer YlOrRd, colour-blind safe); titled with ``system``
    and ``config``."""
    names = list(per_evaluator)
    values = [[per_evaluator[name]["per_axis"][axis]["mvr"] for axis in AXES] for name in names]
    grid = [[float("nan") if v is None else v for v in row] for row in values]
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(names) + 1.8))
    image = ax.imshow(grid, cmap="YlOrRd", vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_xticks(range(len(AXES)), labels=AXES)
    ax.set_yticks(range(len(names)), labels=names)
    ax.set_xlabel("axis")
    ax.set_ylabel("evaluator")
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            if v is not None:
                dark = v > 0.6  # white on the darkest reds, black elsewhere
                ax.text(
                    j,
                    i,
                    format_value(v),
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if dark else "black",
                )
    fig.colorbar(image, ax=ax, label="MVR")
    title = plot_title("MVR per axis and evaluator", system, config)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=150, metadata=png_metadata(title))
    plt.close(fig)
    return Path(path)
