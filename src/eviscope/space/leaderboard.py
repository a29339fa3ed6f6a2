"""The leaderboard: a results store that survives restarts, tables per config, plots, paired comparison.

The store keeps one JSON file per submission, ``<config>/<id>.json``. ``LocalResultStore`` writes
them into a folder (a temporary file, then ``os.replace``, under a file lock so that concurrent
submissions, from threads or processes, each land exactly once); ``HubResultStore`` commits them to
a dataset repo through ``huggingface_hub``. Both behave the same: an upload already recorded is not
recorded again, and a system name is taken once per config.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pandas as pd
from filelock import FileLock

from eviscope.errors import EviScopeError
from eviscope.forcebench.plots import mvr_fs_plane
from eviscope.forcebench.rows import AXES
from eviscope.paired import compare
from eviscope.rows import VARIANTS
from eviscope.scoring import QUARTET_ABBREVIATIONS
from eviscope.space.data import is_forcebench
from eviscope.space.submissions import scores_of

__all__ = [
    "HubResultStore",
    "LocalResultStore",
    "ResultStore",
    "compare_table",
    "leaderboard_columns",
    "leaderboard_table",
    "mvr_fs_plot",
    "per_variant_plot",
]

EVISCOPE_HEADLINE = (
    ("joint_success", "joint success"),
    *((name, abbr) for name, abbr in QUARTET_ABBREVIATIONS.items()),
    ("answer_accuracy", "answer accuracy"),
    ("total_cost_usd", "cost (USD)"),
)
"""Leaderboard columns of an EviScope config: (metric, header)."""


class ResultStore:
    """One JSON file per submission; subclasses say where the files live and how writes are serialized."""

    def __init__(self) -> None:
        self._cache: dict[str, dict[str, Any]] = {}

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

        A different upload under a system name the config already has is an error.
        """
        config, system = record["config"], record["system"]
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
        return True

    def records(self, config: str) -> list[dict[str, Any]]:
        """Every recorded submission of ``config``, oldest first."""
        out = []
        for name in self._list(config):
            if name not in self._cache:  # files are never rewritten, so a read one stays valid
                self._cache[name] = json.loads(self._read(name))
            out.append(self._cache[name])
        return sorted(out, key=lambda r: (r["submitted_at"], r["id"]))


class LocalResultStore(ResultStore):
    """Results in a local folder (``--results``); safe for several threads and processes."""

    def __init__(self, folder: str | Path) -> None:
        super().__init__()
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._lock = FileLock(self.folder / ".lock")

    def _exclusive(self) -> FileLock:
        return self._lock

    def _list(self, config: str) -> list[str]:
        return sorted(f"{config}/{p.name}" for p in (self.folder / config).glob("*.json"))

    def _read(self, name: str) -> bytes:
        return (self.folder / name).read_bytes()

    def _write(self, name: str, data: bytes, message: str) -> None:
        target = self.folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


class HubResultStore(ResultStore):
    """Results in a dataset repo on the hub (``--results-repo``); each submission is one commit.

    Writes are serialized within this process; commits of different files never conflict.
    """

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


def _eviscope_line(record: Mapping[str, Any]) -> dict[str, Any]:
    result = record["result"]
    return {header: result[name] for name, header in EVISCOPE_HEADLINE}


def _forcebench_line(record: Mapping[str, Any]) -> dict[str, Any]:
    result = record["result"]
    line = {"MVR": result["mvr"], "FS": result["fs"]}
    for measure in ("mvr", "fs"):
        line.update({f"{measure.upper()} {axis}": result["per_axis"][axis][measure] for axis in AXES})
    return line


def leaderboard_table(
    config: str, records: Sequence[Mapping[str, Any]], query: str = "", sort_by: str | None = None
) -> pd.DataFrame:
    """One line per system with the headline metrics, filtered by a system-name substring and
    sorted by a column (best first: ascending for MVR and cost, descending otherwise)."""
    line = _forcebench_line if is_forcebench(config) else _eviscope_line
    needle = query.strip().casefold()
    table = pd.DataFrame(
        [
            {"system": r["system"], **line(r), "submitted": r["submitted_at"]}
            for r in records
            if needle in r["system"].casefold()
        ],
        columns=["system", *leaderboard_columns(config), "submitted"],
    )
    sort_by = sort_by or leaderboard_columns(config)[0]
    ascending = sort_by.startswith("MVR") or sort_by in ("cost (USD)", "system")
    return table.sort_values(sort_by, ascending=ascending, kind="stable").round(3).reset_index(drop=True)


def leaderboard_columns(config: str) -> list[str]:
    """The metric columns of ``config``'s leaderboard, the first the default sort key."""
    if is_forcebench(config):
        return ["MVR", "FS", *(f"{m} {axis}" for m in ("MVR", "FS") for axis in AXES)]
    return [header for _, header in EVISCOPE_HEADLINE]


# --- Plots ----------------------------------------------------------------------------------------


def mvr_fs_plot(records: Sequence[Mapping[str, Any]], path: Path) -> Path:
    """The ForceBench MVR–FS plane, one point per submitted system."""
    return mvr_fs_plane({r["system"]: r["result"] for r in records}, path)


def per_variant_plot(records: Sequence[Mapping[str, Any]], path: Path) -> Path:
    """Joint success per variant, one group of bars per variant and one bar per system."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 3.6))
    ax = fig.subplots()
    width = 0.8 / max(len(records), 1)
    for i, record in enumerate(records):
        values = [record["result"]["per_variant"][v]["joint_success"] for v in VARIANTS]
        ax.bar([x + i * width for x in range(len(VARIANTS))], values, width, label=record["system"])
    ax.set_xticks([x + width * (len(records) - 1) / 2 for x in range(len(VARIANTS))], VARIANTS)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("joint success")
    ax.set_title("joint success per variant")
    if records:
        ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return path


# --- Paired comparison ----------------------------------------------------------------------------


def compare_table(
    record_a: Mapping[str, Any], record_b: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]
) -> pd.DataFrame:
    """McNemar p-value and bootstrap 95% interval of A − B for each quartet metric (SPEC §4)."""
    results = compare(scores_of(record_a, rows), scores_of(record_b, rows))
    return pd.DataFrame(
        [
            {
                "metric": QUARTET_ABBREVIATIONS[r.metric],
                "A": round(r.a, 3),
                "B": round(r.b_value, 3),
                "A − B": round(r.difference, 3),
                "b (A only)": r.b,
                "c (B only)": r.c,
                "McNemar p": float(f"{r.p_value:.3g}"),
                "95% CI low": round(r.ci_low, 3),
                "95% CI high": round(r.ci_high, 3),
            }
            for r in results
        ]
    )
