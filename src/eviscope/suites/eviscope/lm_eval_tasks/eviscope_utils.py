"""lm-evaluation-harness glue of the EviScope tasks (``eviscope_v1_1``, ``eviscope_v1``, ``eviscope_xl``).

lm-eval loads this file by path from the task YAMLs beside it; everything it does is in
:mod:`eviscope.suites.eviscope.harness`. Each row keeps one item (its scored fields and the parsed prediction)
under every metric, and each metric's aggregation scores all the run's items with ``eviscope.suites.eviscope.scoring``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import datasets

from eviscope.core.layout import SPLIT
from eviscope.harness.data import SCHEMA_KEY, load_rows, schema_json
from eviscope.harness.lm_eval_schema import SchemaTask as SchemaTask  # the task YAMLs' class
from eviscope.suites.eviscope import harness as suite


def load(config: str, dataset: str | None = None, policy: str = "vanilla", **_: Any) -> datasets.DatasetDict:
    """The rows of ``config`` (hub id or local folder ``dataset``) with the prompt and schema of ``policy``."""

    def request(row: Mapping[str, Any]) -> dict[str, str]:
        schema = schema_json(suite.eviscope_schema(row, policy))
        return {"prompt": suite.eviscope_prompt(row, policy), SCHEMA_KEY: schema}

    return datasets.DatasetDict({SPLIT: load_rows(config, dataset).map(request)})


def doc_to_text(doc: Mapping[str, Any]) -> str:
    return doc["prompt"]


def process_results(doc: Mapping[str, Any], results: Sequence[str]) -> dict[str, Any]:
    item = suite.eviscope_item(doc, results[0])
    return dict.fromkeys(suite.EVISCOPE_METRICS, item)


def _aggregation(metric: str) -> Callable[[Sequence[Mapping[str, Any]]], float]:
    def aggregate(items: Sequence[Mapping[str, Any]]) -> float:
        return suite.eviscope_metric(metric, items)

    aggregate.__name__ = metric
    return aggregate


# One aggregation per reported metric, by the name the task YAML's `!function eviscope_utils.<name>` asks for.
globals().update({metric: _aggregation(metric) for metric in suite.EVISCOPE_METRICS})
