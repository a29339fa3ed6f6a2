"""Where the harness tasks read their rows: a hub id or a folder written by ``eviscope build``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from eviscope.core.layout import SPLIT

DEFAULT_DATASET = "eviscope/eviscope"
"""The hub id the tasks read by default; ``dataset=`` (lm-eval ``--metadata``, an inspect-ai ``-T``)
or ``$EVISCOPE_DATASET`` name another hub id or a local folder written by ``eviscope build``."""


def dataset_source(dataset: str | None = None) -> str:
    """Where the rows come from: ``dataset``, else ``$EVISCOPE_DATASET``, else :data:`DEFAULT_DATASET`."""
    return dataset or os.environ.get("EVISCOPE_DATASET") or DEFAULT_DATASET


def load_rows(config: str, dataset: str | None = None) -> Any:
    """The ``test`` split of ``config`` as a ``datasets.Dataset``, from a hub id or a local folder.

    A local folder is read afresh each time: ``datasets`` keys its cache of a local folder on the
    folder's name, so two folders named ``dataset`` (or one rebuilt) would otherwise serve each
    other's rows.
    """
    import datasets

    source = dataset_source(dataset)
    if Path(source).is_dir():
        fresh = {"download_mode": "force_redownload", "verification_mode": "no_checks"}
        return datasets.load_dataset(source, config, split=SPLIT, **fresh)
    return datasets.load_dataset(source, config, split=SPLIT)


SCHEMA_KEY = "schema"
"""Where a harness request keeps its JSON schema (canonical JSON): an lm-eval doc's column, an
inspect-ai sample's metadata key; :func:`schema_json` writes it."""


def schema_json(schema: dict[str, Any]) -> str:
    """A request's JSON schema as the canonical JSON a harness request carries (:data:`SCHEMA_KEY`)."""
    return json.dumps(schema, sort_keys=True)
