"""lm-evaluation-harness glue of the toy task, loaded by path from ``toy.yaml`` beside it; everything
it does is in :mod:`eviscope.suites.toy.harness`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import datasets

from eviscope.core.layout import SPLIT
from eviscope.harness.data import load_rows
from eviscope.suites.toy import harness as suite
from eviscope.suites.toy.rows import CONFIG


def load(dataset: str | None = None, **_: Any) -> datasets.DatasetDict:
    """One request per row of the toy config (hub id or local folder ``dataset``)."""
    docs = [suite.request(row) for row in load_rows(CONFIG, dataset)]
    return datasets.DatasetDict({SPLIT: datasets.Dataset.from_list(docs)})


def doc_to_text(doc: Mapping[str, Any]) -> str:
    return doc["prompt"]


def process_results(doc: Mapping[str, Any], results: Sequence[str]) -> dict[str, Any]:
    return {"accuracy": suite.item(doc, results[0])}


def accuracy(items: Sequence[Mapping[str, Any]]) -> float:
    return suite.metric("accuracy", items)
