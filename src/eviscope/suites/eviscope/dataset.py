"""Loading the rows of a built EviScope config (the output of ``eviscope build``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eviscope.core.datafiles import read_split
from eviscope.core.errors import EviScopeError
from eviscope.core.layout import DEFAULT_DATASET_DIR, split_path
from eviscope.core.registry import for_config
from eviscope.suites.eviscope.rows import EVISCOPE_SCHEMA


def load_rows(config: str, dataset_dir: str | Path = DEFAULT_DATASET_DIR) -> list[dict[str, Any]]:
    """The rows of EviScope config ``config`` built into ``dataset_dir``, as plain dicts, verified
    against the card's checksum, the config's schema and unique ids (:func:`eviscope.core.datafiles.read_split`)."""
    for_config(config, "eviscope")  # a name that is no EviScope config is one line naming those that are
    root = Path(dataset_dir)
    if not (root / "README.md").is_file() or not split_path(root, config).is_file():
        raise EviScopeError(
            f"config {config} is not built in {root}/: run `eviscope build {config}"
            + ("" if root == Path(DEFAULT_DATASET_DIR) else f" --out {root}")
            + "` first, or point --dataset at the folder it was built into"
        )
    return read_split(root, config, EVISCOPE_SCHEMA, f"EviScope ({config})")
