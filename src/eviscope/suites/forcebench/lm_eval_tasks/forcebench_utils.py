"""lm-evaluation-harness glue of the ForceBench judge tasks (``forcebench_<judge>``).

lm-eval loads this file by path from the task YAMLs beside it; everything it does is in
:mod:`eviscope.suites.forcebench.harness`. Each pair becomes two requests (``safe``: the calibrated claim, then
``raised``), each keeps its parsed label, and MVR, FS, LPR and CPA pool the run's pairs with
``eviscope.suites.forcebench.scoring``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import datasets

from eviscope.core.layout import SPLIT
from eviscope.harness.data import SCHEMA_KEY, load_rows, schema_json
from eviscope.harness.lm_eval_schema import SchemaTask as SchemaTask  # the task YAMLs' class
from eviscope.suites.forcebench import harness as suite
from eviscope.suites.forcebench.rows import CONFIG as FORCEBENCH_CONFIG


def load(judge: str, dataset: str | None = None, **_: Any) -> datasets.DatasetDict:
    """Two requests per pair of the ``forcebench`` config (hub id or local folder ``dataset``)."""
    pairs = load_rows(FORCEBENCH_CONFIG, dataset)
    schema = schema_json(suite.forcebench_schema(judge))
    requests = [
        {**{name: row[name] for name in suite.FORCEBENCH_PAIR_FIELDS}, "judge": judge, "which": which,
         "prompt": prompt, SCHEMA_KEY: schema}
        for row in pairs
        for which, prompt in suite.forcebench_prompts(row, judge).items()
    ]  # fmt: skip
    return datasets.DatasetDict({SPLIT: datasets.Dataset.from_list(requests)})


def doc_to_text(doc: Mapping[str, Any]) -> str:
    return doc["prompt"]


def process_results(doc: Mapping[str, Any], results: Sequence[str]) -> dict[str, Any]:
    item = suite.forcebench_item(doc, doc["which"], doc["judge"], results[0])
    return dict.fromkeys(suite.FORCEBENCH_METRICS, item)


def mvr(items: Sequence[Mapping[str, Any]]) -> float:
    return suite.forcebench_metric("mvr", items)


def fs(items: Sequence[Mapping[str, Any]]) -> float:
    return suite.forcebench_metric("fs", items)


def lpr(items: Sequence[Mapping[str, Any]]) -> float:
    return suite.forcebench_metric("lpr", items)


def cpa(items: Sequence[Mapping[str, Any]]) -> float:
    return suite.forcebench_metric("cpa", items)
