"""Submissions: an uploaded predictions file, validated and scored through the library.

A submission is read as bytes and parsed as JSON Lines by the validators of its config's benchmark
(:attr:`eviscope.core.registry.Benchmark.space`); nothing in it is ever imported, evaluated or executed, and every string it brings
is escaped wherever the Space shows it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from eviscope.core.errors import EviScopeError, plain
from eviscope.core.registry import SpaceScore, for_config

__all__ = [
    "MAX_BYTES",
    "Submission",
    "check_system_name",
    "render_report",
    "score_submission",
    "shown_file_name",
]

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
    detail: Any = field(default=None, repr=False, compare=False)
    """What the benchmark's report draws from (EviScope: the full scores behind ``result``); not stored."""
    warnings: tuple[str, ...] = ()
    """The library's warnings about the upload (an unknown field ignored, predictions that fit another
    config), one line each, shown with the result; not stored."""

    def record(self) -> dict[str, Any]:
        """The JSON object stored for this submission."""
        return {name: value for name, value in self.__dict__.items() if name not in ("detail", "warnings")}


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
    config: str,
    system: str | None,
    upload: str | Path,
    rows: Sequence[Mapping[str, Any]],
    rows_of: Callable[[str], Sequence[Mapping[str, Any]]] | None = None,
) -> Submission:
    """Validate and score ``upload`` against the rows of ``config`` with its benchmark's scoring;
    every problem is one :class:`EviScopeError` line naming the file, line or ids at fault, and what
    is scored but deserves a word is in :attr:`Submission.warnings` (``rows_of`` gives the rows of
    the other configs served, to name the one predictions were made for)."""
    system = check_system_name(system)
    path = Path(upload)
    data = _read_upload(path)
    # Errors name the upload by ``source``, the name the user chose, never the server's path.
    scored = for_config(config).space.score_upload(
        rows, path, plain(path.name, 100), config=config, rows_of=rows_of
    )
    digest = hashlib.sha256(b"\x1f".join([config.encode(), system.encode(), data])).hexdigest()[:16]
    return Submission(
        id=digest,
        config=config,
        system=system,
        file=path.name,
        submitted_at=datetime.now(UTC).isoformat(timespec="seconds"),
        result=scored.result,
        predictions=scored.predictions,
        detail=scored.detail,
        warnings=tuple(scored.warnings),
    )


def shown_file_name(name: str) -> str:
    """An upload's file name as a report shows it (in Markdown, inside and outside code spans):
    anything but letters, digits, ``_``, ``.``, ``+``, ``(``, ``)`` and ``-`` becomes ``_``, so the
    name can make no markup, link or image.

    >>> shown_file_name("my run [v2](x)!.jsonl")
    'my_run__v2_(x)_.jsonl'
    """
    return re.sub(r"[^\w.+()-]", "_", plain(name, 100))


def render_report(sub: Submission, out_dir: Path) -> tuple[str, list[Path]]:
    """The submission's Markdown report and its plots (written into ``out_dir``), drawn by its
    benchmark from the library's report and plot functions."""
    meta = {"config": sub.config, "system": sub.system, "predictions": shown_file_name(sub.file)}
    scored = SpaceScore(sub.result, sub.predictions, sub.detail)
    return for_config(sub.config).space.report(meta, scored, out_dir)
