"""Reference results: runs of real models that the leaderboard shows before anyone submits.

Each is a run folder committed under ``eviscope/space/reference/`` (``predictions.jsonl`` and
``manifest.json`` as ``eviscope run`` wrote them) and listed in ``reference/index.json`` with the
system name the leaderboard gives it, the config, and the SHA-256 of the sorted row ids it was
scored on. At start the Space scores each listed run against the rows it serves, through the same
library path as a submission, and shows it beside the submissions (it is never written to the
results store). A run whose config the Space does not serve, whose rows differ from the served
ones (another build), or whose manifest's fingerprint of the rows it asked
(:func:`~eviscope.runner.manifest.rows_sha256`) is not that of the served rows (a row redrawn
under the same id), is left off with one line in the log: numbers scored on other rows would
mislead. An entry with ``"subset": true`` (a seeded sample of the config) is scored on the rows its
predictions name, as ``eviscope score --subset`` does.

Beside them the leaderboard shows, as ``reference`` lines, every reference system its benchmark
registers (:meth:`~eviscope.core.registry.SpaceView.reference_systems`: EviScope's lexical, oracle,
always-answer and evidence-blind systems, ForceBench's deterministic evaluators), run on the served
rows and scored as a submission (:func:`registry_records`), and, as ``reported (paper)`` lines, the
figures the papers report (:func:`reported_records`), each with its source. A record's ``kind`` says
which it is (:data:`KINDS`); a submission has none.
"""

from __future__ import annotations

import hashlib
import json
import logging
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from eviscope.core.errors import EviScopeError
from eviscope.core.jsonl import jsonl_lines
from eviscope.core.layout import PREDICTIONS_FILE
from eviscope.core.registry import for_config
from eviscope.runner.session import asks_other_rows
from eviscope.space.submissions import score_submission

__all__ = [
    "KINDS",
    "REFERENCE",
    "REFERENCE_DIR",
    "REPORTED",
    "SUBMISSION",
    "ids_sha256",
    "reference_records",
    "registry_records",
    "reported_records",
]

SUBMISSION, REFERENCE, REPORTED = "submission", "reference", "reported (paper)"
KINDS = (SUBMISSION, REFERENCE, REPORTED)
"""A leaderboard line's kind, in the order the leaderboard groups them."""
REFERENCE_SUFFIX = " (reference system)"
"""Appended to a registered reference system's name on the leaderboard (the name is then taken)."""
PAPER_SUFFIX = " (paper)"

REFERENCE_DIR = Path(__file__).parent / "reference"
"""The committed reference runs and their ``index.json``."""
INDEX = "index.json"
MANIFEST = "manifest.json"

log = logging.getLogger(__name__)


def ids_sha256(ids: Iterable[str]) -> str:
    """The fingerprint of a set of row ids: SHA-256 of the sorted ids, one per line.

    >>> ids_sha256(["b", "a"]) == ids_sha256(["a", "b"])
    True
    """
    return hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()


def _predicted_ids(path: Path) -> set[str]:
    return {json.loads(line)["id"] for _, line in jsonl_lines(path)}


def reference_records(
    configs: Iterable[str],
    rows_of: Callable[[str], list[dict[str, Any]]],
    folder: Path = REFERENCE_DIR,
) -> list[dict[str, Any]]:
    """The result record (as :class:`~eviscope.space.submissions.Submission` makes it, dated when
    its run finished) of every reference run in ``folder`` on one of ``configs``, scored against
    ``rows_of(config)``; runs on other rows are left off, each with a log line."""
    try:
        entries = json.loads((folder / INDEX).read_text(encoding="utf-8"))["results"]
    except FileNotFoundError:
        return []
    served = set(configs)
    out = []
    for entry in entries:
        config, system, run = entry["config"], entry["system"], folder / entry["run"]
        if config not in served:
            continue
        rows = rows_of(config)
        if ids_sha256(row["id"] for row in rows) != entry["ids_sha256"]:
            log.info(
                "reference %r left off %s: it was scored on other rows than those served", system, config
            )
            continue
        predictions = run / PREDICTIONS_FILE
        try:
            if entry.get("subset"):
                wanted = _predicted_ids(predictions)
                rows = [row for row in rows if row["id"] in wanted]
            manifest: Mapping[str, Any] = json.loads((run / MANIFEST).read_text(encoding="utf-8"))
            other = asks_other_rows(config, rows, manifest)
            if other is not False:
                why = "asked other rows than those served" if other else "records no fingerprint"
                log.info("reference %r left off %s: its manifest %s (rows.sha256)", system, config, why)
                continue
            scored = score_submission(config, system, predictions, rows)
        except (OSError, ValueError, KeyError, EviScopeError) as err:
            log.warning("reference %r left off %s: %s", system, config, err)
            continue
        source = f"committed run {entry['run']}: {manifest.get('model', system)}"
        record = replace(scored, submitted_at=manifest["finished_at"]).record()
        out.append({**record, "kind": REFERENCE, "source": source})
    return out


def registry_records(config: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The result record of every reference system that ``config``'s benchmark registers, run on
    ``rows`` and scored through the same path as an upload (written as JSON Lines, then read back by
    the benchmark's validators); a system that cannot be scored on these rows is left off, with a
    log line."""
    view = for_config(config).space
    out = []
    with tempfile.TemporaryDirectory(prefix="eviscope-reference-") as folder:
        for name, predictions in view.reference_systems(rows).items():
            path = Path(folder) / f"{name}.jsonl"
            path.write_text("".join(json.dumps(p) + "\n" for p in predictions), encoding="utf-8")
            system = name.replace("_", " ") + REFERENCE_SUFFIX
            try:
                scored = score_submission(config, system, path, rows)
            except EviScopeError as err:
                log.warning("reference system %r left off %s: %s", name, config, err)
                continue
            source = view.reference_command.format(name=name) + ", on the rows served"
            out.append({**replace(scored, submitted_at="").record(), "kind": REFERENCE, "source": source})
    return out


def reported_records(config: str) -> list[dict[str, Any]]:
    """The papers' reported figures for ``config``, as leaderboard records (no result, no
    predictions: their cells are given, under ``line``)."""
    return [
        {
            "id": "paper-" + hashlib.sha256(f"{r.source}\x1f{r.system}".encode()).hexdigest()[:16],
            "config": config,
            "system": r.system + PAPER_SUFFIX,
            "submitted_at": "",
            "result": {},
            "predictions": [],
            "kind": REPORTED,
            "source": r.source,
            "line": dict(r.line),
        }
        for r in for_config(config).space.reported
        if r.config == config
    ]
