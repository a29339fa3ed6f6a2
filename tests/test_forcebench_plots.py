"""ForceBench's plots say what they show: each point and heatmap row named as the data name it (the
evaluators of a file, the systems of a leaderboard), and every figure written as the tables write it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eviscope.core.tables import format_value
from eviscope.suites.forcebench import plots
from eviscope.suites.forcebench.rows import AXES


def result(mvr: float, fs: float, axis_mvr: list[float | None]) -> dict[str, Any]:
    return {"mvr": mvr, "fs": fs, "per_axis": {a: {"mvr": v} for a, v in zip(AXES, axis_mvr, strict=True)}}


@pytest.fixture
def figures(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The figures the plot functions draw, kept when they close them."""
    drawn: list[Any] = []
    monkeypatch.setattr(plots.plt, "close", drawn.append)
    return drawn


def test_heatmap_cells_are_written_by_the_one_formatter(figures: list[Any], tmp_path: Path) -> None:
    """0.125 is 0.125 in the heatmap as in the report's table (not 0.12), 0.0375 is 0.038 (half up)."""
    per_evaluator = {"baseline/token_overlap": result(0.27, 0.04, [0.125, 0.0375, None, 0.25, 0.7])}
    plots.axis_heatmap(per_evaluator, tmp_path / "heatmap.png", "token overlap", "forcebench")
    [ax, _colourbar] = figures[0].axes
    cells = [text.get_text() for text in ax.texts]
    assert (
        cells == [format_value(v) for v in (0.125, 0.0375, 0.25, 0.7)] == ["0.125", "0.038", "0.250", "0.700"]
    )
    assert [label.get_text() for label in ax.get_yticklabels()] == ["baseline/token_overlap"]
    assert ax.get_ylabel() == "evaluator"


def test_a_submissions_plane_names_its_points_as_the_file_names_its_evaluators(
    figures: list[Any], tmp_path: Path
) -> None:
    """A file of the fewer_force_words evaluator submitted as "token overlap": the title names the
    submission, the legend the evaluator each point is, as the file names it and under that heading."""
    per_evaluator = {"baseline/fewer_force_words": result(0.303, 0.697, [0.1] * 5)}
    path = plots.mvr_fs_plane(per_evaluator, tmp_path / "plane.png", "token overlap", "forcebench")
    [ax] = figures[0].axes
    legend = ax.get_legend()
    assert legend.get_title().get_text() == "evaluator"
    assert [t.get_text() for t in legend.get_texts()] == ["baseline/fewer_force_words"]
    assert ax.get_title() == "token overlap on forcebench: MVR–FS plane per evaluator"
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_the_leaderboards_plane_names_each_point_by_its_whole_system_name(
    figures: list[Any], tmp_path: Path
) -> None:
    per_system = {"org/judge-a": result(0.2, 0.3, [0.1] * 5), "judge-b": result(0.5, 0.1, [0.1] * 5)}
    plots.mvr_fs_plane(per_system, tmp_path / "plane.png", "2 systems", "forcebench", points_are="system")
    legend = figures[0].axes[0].get_legend()
    assert legend.get_title().get_text() == "system"
    assert [t.get_text() for t in legend.get_texts()] == ["org/judge-a", "judge-b"]
