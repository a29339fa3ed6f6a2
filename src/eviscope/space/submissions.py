"""Submissions: an uploaded predictions file, validated and scored through the library.

A submission is read as bytes and parsed as JSON Lines by the library's validators
(``eviscope.predictions.load_predictions`` for EviScope configs, ``eviscope.forcebench.scoring``
for ForceBench); nothing in it is ever imported, evaluated or executed, and every string it brings
is escaped wherever the Space shows it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from eviscope.errors import EviScopeError, plain
from eviscope.forcebench.plots import axis_heatmap, mvr_fs_plane
from eviscope.forcebench.scoring import read_predictions, score_units, units_from_predictions
from eviscope.predictions import load_predictions
from eviscope.reports import (
    format_value,
    markdown_report,
    plot_action_confusion,
    plot_quartet_transitions,
    report,
)
from eviscope.scoring import Scores, score_predictions
from eviscope.space.data import is_forcebench

__all__ = ["MAX_BYTES", "Submission", "check_system_name", "render_report", "score_submission", "scores_of"]

MAX_BYTES = 20 * 1024 * 1024
"""The largest upload accepted: a 4,000-row ``eviscope-xl`` file with quotes and usage is ~3 MB."""

SYSTEM_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._+()/-]{0,63}")
"""A system name: 1–64 characters, letters, digits, space and ``._+()/-``, starting with a letter or digit."""


@dataclass(frozen=True)
class Submission:
    """A validated, scored submission: what the results store keeps."""

    id: str
    """Derived from config, system and file content, so the same upload is recorded once."""
    config: str
    system: str
    file: str
    submitted_at: str
    result: dict[str, Any]
    """EviScope: ``Scores.to_dict()``; ForceBench: ``score_units`` (pooled, per axis, per severity)."""
    predictions: list[dict[str, Any]]
    """The validated predictions, kept for paired comparisons."""
    scores: Scores | None = field(default=None, repr=False, compare=False)
    """EviScope only: the full scores behind ``result``, for the report plots; not stored."""

    def record(self) -> dict[str, Any]:
        """The JSON object stored for this submission."""
        return {name: value for name, value in self.__dict__.items() if name != "scores"}


def check_system_name(name: str | None) -> str:
    """The stripped system name, or an error saying what a name may hold."""
    name = (name or "").strip()
    if not SYSTEM_NAME.fullmatch(name):
        raise EviScopeError(
            f"system name {name[:80]!r} is not allowed: give 1–64 characters (letters, digits, space, "
            "._+()/-), starting with a letter or digit"
        )
    return name


def _read_upload(path: Path) -> bytes:
    """The uploaded bytes (for the submission id), refused unread when over :data:`MAX_BYTES`.

    Everything about their content (encoding, JSON, fields, ids) is the library's to judge."""
    name = plain(path.name, 100)
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise EviScopeError(
                f"{name}: {size / 2**20:.1f} MiB is over the {MAX_BYTES // 2**20} MiB limit for a submission"
            )
        return path.read_bytes()
    except OSError as err:
        raise EviScopeError(f"{name}: cannot read the upload: {err.strerror or err}") from None


def score_submission(
    config: str, system: str | None, upload: str | Path, rows: Sequence[Mapping[str, Any]]
) -> Submission:
    """Validate and score ``upload`` against the rows of ``config``; every problem is one
    :class:`EviScopeError` line naming the file, line or ids at fault."""
    system = check_system_name(system)
    path = Path(upload)
    data = _read_upload(path)
    name = plain(path.name, 100)
    scores = None
    # Errors name the upload by ``source``, the name the user chose, never the server's path.
    if is_forcebench(config):
        preds = read_predictions(path, source=name)
        result = score_units(units_from_predictions(rows, preds, source=name))
        kept = [p.model_dump(exclude_none=True) for p in preds]
    else:
        preds = load_predictions(path, rows, source=name)
        scores = score_predictions(rows, preds)
        result = scores.to_dict()
        kept = [p.model_dump(exclude_none=True) for p in preds]
    digest = hashlib.sha256(b"\x1f".join([config.encode(), system.encode(), data])).hexdigest()[:16]
    return Submission(
        id=digest,
        config=config,
        system=system,
        file=path.name,
        submitted_at=datetime.now(UTC).isoformat(timespec="seconds"),
        result=result,
        predictions=kept,
        scores=scores,
    )


def render_report(sub: Submission, out_dir: Path) -> tuple[str, list[Path]]:
    """The submission's Markdown report and its plots (written into ``out_dir``), from the library's
    report and plot functions."""
    meta = {"config": sub.config, "system": sub.system, "predictions": sub.file}
    if sub.scores is not None:
        markdown = markdown_report(report(sub.scores, meta))
        plots = [
            plot_quartet_transitions(sub.scores, out_dir / "quartet_transitions.png"),
            plot_action_confusion(sub.scores, out_dir / "action_confusion.png"),
        ]
        return markdown, plots
    result = sub.result
    lines = [f"# ForceBench score: {sub.system} ({sub.file})", ""]
    lines += [f"- {key}: `{value}`" for key, value in meta.items()]
    lines += [f"- units: {result['n']}, evaluators: {', '.join(result['evaluators'])}", ""]
    lines += [
        "| slice | MVR (lower is better) | FS (higher is better) | units |",
        "| --- | --- | --- | --- |",
    ]
    slices = [("overall", result)]
    slices += [(f"axis {axis}", r) for axis, r in result["per_axis"].items()]
    slices += [(f"severity {s}", r) for s, r in result["per_severity"].items()]
    lines += [
        f"| {name} | {format_value(r['mvr'])} | {format_value(r['fs'])} | {r['n']} |" for name, r in slices
    ]
    plots = [
        mvr_fs_plane(result["per_evaluator"], out_dir / "mvr_fs_plane.png"),
        axis_heatmap(result["per_evaluator"], out_dir / "axis_heatmap.png"),
    ]
    return "\n".join(lines) + "\n", plots


def scores_of(record: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> Scores:
    """The full :class:`eviscope.scoring.Scores` of a stored EviScope submission, re-scored from its predictions."""
    return score_predictions(rows, load_predictions(record["predictions"], rows, source=record["system"]))
