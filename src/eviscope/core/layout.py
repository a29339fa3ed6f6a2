"""Where the suite reads and writes, defined once (see ``docs/architecture.md``, "Output layout").

- ``dataset/``: what ``eviscope build`` writes: ``README.md`` (the card), ``build_report.json``, and
  one Parquet file per config at :func:`split_path`.
- ``runs/<name>/``: one run folder per system: ``predictions.jsonl`` (and, for ``eviscope run``,
  ``records.jsonl`` and ``manifest.json``); ``eviscope score`` writes its reports into
  :func:`report_dir`, beside the predictions they score.

>>> split_path(Path("dataset"), "forcebench").as_posix()
'dataset/data/forcebench/test.parquet'
>>> report_dir(Path("runs/qwen/predictions.jsonl")).as_posix()
'runs/qwen/report'
>>> report_dir(Path("mine.jsonl")).as_posix()
'mine-report'
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

SPLIT = "test"
"""Every config of every benchmark has this one split."""
DEFAULT_DATASET_DIR = "dataset"
"""The folder ``eviscope build`` writes and every other command reads by default."""
RUNS_DIR = "runs"
"""The folder that holds one run folder per system."""
PREDICTIONS_FILE = "predictions.jsonl"


def split_path(dataset_dir: Path, config: str) -> Path:
    """Where a config's data lives inside a dataset folder: ``data/<config>/test.parquet``."""
    return dataset_dir / "data" / config / f"{SPLIT}.parquet"


def run_dir(name: str) -> Path:
    """The default run folder of a system: ``runs/<name>``."""
    return Path(RUNS_DIR) / name


def report_dir(predictions: Path) -> Path:
    """Where ``eviscope score`` writes the reports of a predictions file: ``report/`` beside a run
    folder's ``predictions.jsonl``, else ``<stem>-report/`` beside the file."""
    if predictions.name == PREDICTIONS_FILE:
        return predictions.parent / "report"
    return predictions.with_name(f"{predictions.stem}-report")


def cache_root(environ: Mapping[str, str] | None = None) -> Path:
    """Where the suite caches what it can make again (spaCy entities, embeddings, Space environments,
    the gathered harness tasks): ``$EVISCOPE_CACHE``, else ``$XDG_CACHE_HOME/eviscope``, else
    ``~/.cache/eviscope`` (outside any checkout).

    >>> cache_root({"EVISCOPE_CACHE": "/tmp/c"}), cache_root({"XDG_CACHE_HOME": "/x"})
    (PosixPath('/tmp/c'), PosixPath('/x/eviscope'))
    """
    environ = os.environ if environ is None else environ
    if environ.get("EVISCOPE_CACHE"):
        return Path(environ["EVISCOPE_CACHE"]).expanduser()
    return Path(environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "eviscope"
