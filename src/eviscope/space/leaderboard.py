"""The leaderboard: a results store that survives restarts, tables per config, plots, paired comparison.

The store keeps one JSON file per submission, ``<config>/<id>.json``. ``LocalResultStore`` writes
them into a folder (a temporary file, fsynced, then ``os.replace``, under a file lock so that
concurrent submissions, from threads or processes, each land exactly once); ``HubResultStore``
commits them to a dataset repo through ``huggingface_hub``. Both behave the same: an upload already
recorded is not recorded again, and a system name is taken once per config.

A Space killed at any moment leaves a consistent store: a submission's file is either complete or
absent (temporary files are never listed, and the next start removes them), the lock is an
``flock`` that dies with its holder, and a file that does not hold a complete record is left out of
the leaderboard (with a warning) rather than breaking it; so is a record whose result lacks a metric
of its benchmark's leaderboard (an older format, a hand edit in the results repo). A write that
fails (read-only folder, full disk, a lock held too long) is one :class:`EviScopeError` line, and
nothing is recorded.

What the store keeps in memory is each record's summary (everything but its predictions: a few
kilobytes, however large the upload was); the predictions are read from the store again when a
comparison needs them (:meth:`ResultStore.full`).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pandas as pd
from filelock import FileLock

from eviscope.core.errors import EviScopeError
from eviscope.core.registry import for_config
from eviscope.core.tables import round_value
from eviscope.space.reference import KINDS, REPORTED, SUBMISSION
from eviscope.space.storage import (
    LOCK_TIMEOUT_S,
    TEMP_PREFIX,
    TEMP_SUFFIX,
    describe_failure,
    sweep,
    write_atomically,
)

__all__ = [
    "LOCK_TIMEOUT_S",
    "HubResultStore",
    "LocalResultStore",
    "ResultStore",
    "compare_table",
    "leaderboard_columns",
    "leaderboard_lines",
    "leaderboard_plot",
    "leaderboard_table",
]

# LOCK_TIMEOUT_S (how long a submission waits for the local store's lock before it is refused as
# busy) and TEMP_PREFIX, TEMP_SUFFIX (a result being written is ``<config>/.partial-*.tmp`` until it
# is complete; never listed as a result) come from ``eviscope.space.storage``, shared with the
# annotation sheets.

RECORD_FIELDS: dict[str, type] = {
    "id": str,
    "config": str,
    "system": str,
    "submitted_at": str,
    "result": dict,
    "predictions": list,
}
"""What every stored record holds (``Submission.record()`` adds the file name)."""
HEAVY_FIELDS = ("predictions",)
"""What a record's summary leaves out, read again from the store when needed."""

log = logging.getLogger(__name__)


def _failure(err: OSError) -> str:
    """What went wrong, in a few words and on one line, without the server's paths."""
    return describe_failure(
        err,
        folder="the results folder",
        disk="the results disk",
        busy="the results store stayed busy with other submissions",
    )


def _check_record(record: Any, name: str | None = None) -> str | None:
    """Why ``record`` is not a complete result (stored as ``name``), or None when it is one."""
    if not isinstance(record, dict):
        return "not a JSON object"
    for key, kind in RECORD_FIELDS.items():
        if not isinstance(record.get(key), kind):
            return f"field {key!r} missing or not a {kind.__name__}"
    ident = record["id"]
    if not ident or ident.startswith(".") or "/" in ident or "\\" in ident:
        return f"id {ident[:40]!r} cannot name a file"
    if name is not None and name != f"{record['config']}/{ident}.json":
        return f"holds submission {ident!r} of {record['config']!r}"
    return None


class ResultStore:
    """One JSON file per submission; subclasses say where the files live and how writes are serialized."""

    nothing_recorded = "nothing was recorded"
    """What a failed write leaves behind, for the submitter's error line."""

    def __init__(self) -> None:
        self._cache: dict[str, dict[str, Any]] = {}
        self._skipped: set[str] = set()
        self._references: dict[str, dict[str, dict[str, Any]]] = {}

    def _exclusive(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _list(self, config: str) -> list[str]:
        raise NotImplementedError

    def _read(self, name: str) -> bytes:
        raise NotImplementedError

    def _write(self, name: str, data: bytes, message: str) -> None:
        raise NotImplementedError

    def add(self, record: Mapping[str, Any]) -> bool:
        """Record a submission; False when this very upload is already recorded.

        A different upload under a system name the config already has is an error, and so is a
        store that cannot be written (one line; nothing is recorded).
        """
        problem = _check_record(dict(record))
        if problem:
            raise ValueError(f"not a complete result record: {problem}")
        config, system = record["config"], record["system"]
        try:
            with self._exclusive():
                for other in self.records(config):
                    if other["id"] == record["id"]:
                        return False
                    if other["system"] == system:
                        raise EviScopeError(
                            f"system name {system!r} already has a result on {config} "
                            f"(submitted {other['submitted_at']}); choose another name"
                        )
                data = json.dumps(record, ensure_ascii=False).encode()
                self._write(f"{config}/{record['id']}.json", data, f"Add {system} on {config}")
        except OSError as err:
            log.error("could not record %s on %s: %r", system, config, err)
            raise EviScopeError(
                f"could not record the submission: {_failure(err)}; {self.nothing_recorded}. "
                "Try again later, or tell the Space's maintainers."
            ) from None
        return True

    def add_reference(self, record: Mapping[str, Any]) -> None:
        """Show ``record``, a reference result (:mod:`eviscope.space.reference`), beside the
        recorded submissions: kept in memory, never written; its system name is taken."""
        problem = _check_record(dict(record))
        if problem:
            raise ValueError(f"not a complete result record: {problem}")
        self._references.setdefault(record["config"], {})[record["id"]] = dict(record)

    def records(self, config: str) -> list[dict[str, Any]]:
        """The summary (the record without its predictions) of every reference result and every
        complete recorded submission of ``config``, oldest first.

        A file that does not hold one (cut short, edited by hand, not JSON) is left out, with a
        warning in the log, and is replaced when the same upload is submitted again.
        """
        out = [
            {k: v for k, v in record.items() if k not in HEAVY_FIELDS}
            for record in self._references.get(config, {}).values()
        ]
        try:
            for name in self._list(config):
                if name not in self._cache:  # a complete file is never rewritten, so a read one stays valid
                    record = self._load(name)
                    if record is None:
                        continue
                    self._cache[name] = {k: v for k, v in record.items() if k not in HEAVY_FIELDS}
                out.append(self._cache[name])
        except OSError as err:
            raise EviScopeError(f"could not read the results of {config}: {_failure(err)}") from None
        return sorted(out, key=lambda r: (r["submitted_at"], r["id"]))

    def full(self, summary: Mapping[str, Any]) -> dict[str, Any]:
        """The whole record (with its predictions) of a summary :meth:`records` gave."""
        reference = self._references.get(summary["config"], {}).get(summary["id"])
        if reference is not None:
            return reference
        name = f"{summary['config']}/{summary['id']}.json"
        try:
            record = self._load(name)
        except OSError as err:
            raise EviScopeError(
                f"could not read the result of {summary['system']}: {_failure(err)}"
            ) from None
        if record is None:
            raise EviScopeError(
                f"the stored result of {summary['system']} is not complete; see the Space's log"
            )
        return record

    def _load(self, name: str) -> dict[str, Any] | None:
        try:
            record = json.loads(self._read(name))
            problem = _check_record(record, name)
        except ValueError as err:  # JSONDecodeError and UnicodeDecodeError both are
            problem = f"not JSON ({' '.join(str(err).split())[:120]})"
        if problem is None:
            self._skipped.discard(name)
            return record
        if name not in self._skipped:
            self._skipped.add(name)
            log.warning("results store: %s is not a complete result, left out: %s", name, problem)
        return None


class LocalResultStore(ResultStore):
    """Results in a local folder (``--results``); safe for several threads and processes, and for
    a process killed at any moment."""

    def __init__(self, folder: str | Path, lock_timeout: float = LOCK_TIMEOUT_S) -> None:
        super().__init__()
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._lock = FileLock(self.folder / ".lock", timeout=lock_timeout)
        self.sweep()

    def sweep(self) -> list[Path]:
        """Remove the temporary files of writes that were cut short (a killed process); they are
        never results. Only under the lock, when no write is under way; skipped when the lock is
        busy or the folder read-only. Returns the files removed."""
        return sweep(self.folder, self._lock, f"*/{TEMP_PREFIX}*{TEMP_SUFFIX}", "results store", log)

    def _exclusive(self) -> FileLock:
        return self._lock

    def _list(self, config: str) -> list[str]:
        folder = self.folder / config
        if not folder.is_dir():
            return []
        return sorted(
            f"{config}/{entry.name}"
            for entry in os.scandir(folder)
            if entry.name.endswith(".json") and not entry.name.startswith(".") and entry.is_file()
        )

    def _read(self, name: str) -> bytes:
        return (self.folder / name).read_bytes()

    def _write(self, name: str, data: bytes, message: str) -> None:
        write_atomically(self.folder / name, data)


class HubResultStore(ResultStore):
    """Results in a dataset repo on the hub (``--results-repo``); each submission is one commit.

    Writes are serialized within this process; commits of different files never conflict.
    """

    nothing_recorded = "it may not have been recorded, and submitting the same file again is safe"

    def __init__(self, repo_id: str, api: Any = None) -> None:
        super().__init__()
        from huggingface_hub import HfApi

        self.repo_id = repo_id
        self.api = api or HfApi()
        self._lock = threading.Lock()

    def _exclusive(self) -> threading.Lock:
        return self._lock

    def _list(self, config: str) -> list[str]:
        files = self.api.list_repo_files(self.repo_id, repo_type="dataset")
        return sorted(f for f in files if f.startswith(f"{config}/") and f.endswith(".json"))

    def _read(self, name: str) -> bytes:
        path = self.api.hf_hub_download(self.repo_id, name, repo_type="dataset")
        return Path(path).read_bytes()

    def _write(self, name: str, data: bytes, message: str) -> None:
        self.api.upload_file(
            path_or_fileobj=data,
            path_in_repo=name,
            repo_id=self.repo_id,
            repo_type="dataset",
            commit_message=message,
        )


# --- Tables ---------------------------------------------------------------------------------------

_SKIPPED_LINES: set[tuple[str, str]] = set()
"""Records already logged as left off the leaderboard (one warning each, not one per view)."""


def _number(value: Any) -> bool:
    """A leaderboard cell: a number, or None where the metric is undefined."""
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


def leaderboard_lines(
    config: str, records: Sequence[Mapping[str, Any]]
) -> list[tuple[Mapping[str, Any], dict[str, Any]]]:
    """Each record with its leaderboard cells (the config's benchmark reads them from its result).

    A record whose result lacks one (an older format, a hand edit in the results repo) is left
    out, with one warning in the log naming it and what is missing, so the rest still shows."""
    view = for_config(config).space
    out = []
    for record in records:
        try:
            if record.get("kind") == REPORTED:  # a paper's figures: the cells it gives, the rest empty
                line = {column: record["line"].get(column) for column in view.leaderboard_columns}
            else:
                line = view.leaderboard_line(record["result"])
            problem = next((f"{k} is {v!r}, not a number" for k, v in line.items() if not _number(v)), None)
        except (LookupError, TypeError, ValueError) as err:
            problem = f"it lacks {err!r}"
        if problem is None:
            out.append((record, line))
            continue
        where = f"{config}/{record.get('id')}.json ({record.get('system')!r})"
        if (where, problem) not in _SKIPPED_LINES:
            _SKIPPED_LINES.add((where, problem))
            log.warning("results store: %s is left off the leaderboard: its result: %s", where, problem)
    return out


def leaderboard_table(
    config: str, records: Sequence[Mapping[str, Any]], query: str = "", sort_by: str | None = None
) -> pd.DataFrame:
    """One line per system with the headline metrics of the config's benchmark, filtered by a
    system-name substring; the submissions first, then the reference systems, then the papers'
    reported figures (:data:`~eviscope.space.reference.KINDS`, in the ``kind`` column, with each
    line's ``source`` beside it, before the figures: a page narrower than the table still shows it),
    each group sorted by a column (best first: ascending where lower is better;
    a figure not reported last). A record without those metrics is left out
    (:func:`leaderboard_lines`); every figure is rounded by :func:`~eviscope.core.tables.round_value`."""
    view = for_config(config).space
    metrics = list(view.leaderboard_columns)
    needle = query.strip().casefold()
    table = pd.DataFrame(
        [
            {
                "system": r["system"],
                "kind": r.get("kind", SUBMISSION),
                "source": r.get("source", ""),
                **{column: round_value(v) if v is not None else None for column, v in line.items()},
                "submitted": r["submitted_at"],
            }
            for r, line in leaderboard_lines(config, records)
            if needle in r["system"].casefold()
        ],
        columns=["system", "kind", "source", *metrics, "submitted"],
    )
    sort_by = sort_by or metrics[0]
    ascending = sort_by == "system" or any(sort_by.startswith(c) for c in view.lower_is_better)
    group = table["kind"].map(KINDS.index)
    return (
        table.assign(_group=group)
        .sort_values(["_group", sort_by], ascending=[True, ascending], kind="stable", na_position="last")
        .drop(columns="_group")
        .reset_index(drop=True)
    )


def leaderboard_columns(config: str) -> list[str]:
    """The metric columns of ``config``'s leaderboard, the first the default sort key."""
    return list(for_config(config).space.leaderboard_columns)


def compare_table(
    config: str, record_a: Mapping[str, Any], record_b: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]
) -> pd.DataFrame:
    """The paired comparison of two systems' stored results, as the config's benchmark defines it."""
    return pd.DataFrame(for_config(config).space.compare(record_a, record_b, rows))


def leaderboard_plot(config: str, records: Sequence[Mapping[str, Any]], path: Path) -> Path:
    """The config's leaderboard plot of the scored records (the papers' figures are not drawn)."""
    scored = [r for r in records if r.get("kind") != REPORTED]
    return for_config(config).space.leaderboard_plot(scored, path)
