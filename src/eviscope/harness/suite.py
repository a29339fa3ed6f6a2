"""The harness tasks' one door into the suite: every prompt, parser and metric they use comes from here.

lm-evaluation-harness and inspect-ai call these functions row by row (``prompt`` when they build a
request, ``eviscope_item`` / ``forcebench_item`` when a reply comes back) and once per metric over
the whole run (``eviscope_metric`` / ``forcebench_metric``). Nothing here re-implements the suite:
the prompt and parser are those of ``eviscope run`` (:mod:`eviscope.suites.eviscope.task`), and every number
is computed by :func:`eviscope.suites.eviscope.scoring.score` or :mod:`eviscope.suites.forcebench.scoring`, so a harness
reports what ``eviscope score`` (also ``--config forcebench``) would on the same replies.

>>> row = {"id": "q1-sufficient", "quartet_id": "q1", "variant": "sufficient", "answers": ["1066"],
...        "expected_action": "answer", "supporting_doc_ids": ["d1"], "support_spans": [],
...        "question": "When?", "documents": [{"doc_id": "d1", "title": "T", "text": "In 1066."}]}
>>> item = eviscope_item(row, '{"action": "answer", "answer": "1066", "citations": ["d1"]}')
>>> eviscope_metric("joint_success", [item])
Traceback (most recent call last):
...
eviscope.core.errors.EviScopeError: 1 incomplete quartets: q1 (no noisy/insufficient/conflicting); quartet metrics need all four rows (a harness --limit counts rows: give a multiple of 4)
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from eviscope.core.errors import EviScopeError
from eviscope.core.layout import SPLIT
from eviscope.core.metrics import names
from eviscope.suites.eviscope import scoring
from eviscope.suites.eviscope.dataset import load_local
from eviscope.suites.eviscope.metrics import METRICS as EVISCOPE_TABLE
from eviscope.suites.eviscope.rows import SCORED_FIELDS
from eviscope.suites.eviscope.task import EviScopeTask
from eviscope.suites.forcebench import scoring as forcebench_scoring
from eviscope.suites.forcebench.task import CLAIMS, ForceBenchTask

Row = Mapping[str, Any]

DEFAULT_DATASET = "eviscope/eviscope"
"""The hub id the tasks read by default; ``dataset=`` (lm-eval ``--metadata``) or ``$EVISCOPE_DATASET``
name another hub id or a local folder written by ``eviscope build``."""

EVISCOPE_CONFIGS: dict[str, str] = {
    "eviscope_v1_1": "eviscope-v1.1",
    "eviscope_v1": "eviscope-v1",
    "eviscope_xl": "eviscope-xl",
}
"""Harness task name -> dataset config."""

FORCEBENCH_JUDGES: tuple[str, ...] = tuple(forcebench_scoring.PROMPT_LABELS)
"""The judge prompts, one ForceBench task each (``forcebench_<judge>``)."""

EVISCOPE_METRICS: tuple[str, ...] = names(EVISCOPE_TABLE, harness=True)
"""Every contract §4 metric a harness reports: the table's, less the usage metrics (and
``utility_per_call``, which divides by calls): the harnesses see no tokens, latency or cost per request."""

FORCEBENCH_METRICS: tuple[str, ...] = ("mvr", "fs", "lpr", "cpa")
"""Monotonicity violation rate and force sensitivity (contrast pairs), licensed-penalty rate (controls)
and controlled pair accuracy (contract §6), pooled over the run's pairs."""

FORCEBENCH_PAIR_FIELDS: tuple[str, ...] = ("id", "axis", "severity", "pair_type")
"""The fields of a ForceBench row that a harness request carries, so the metrics can be computed."""


def dataset_source(dataset: str | None = None) -> str:
    """Where the rows come from: ``dataset``, else ``$EVISCOPE_DATASET``, else :data:`DEFAULT_DATASET`."""
    return dataset or os.environ.get("EVISCOPE_DATASET") or DEFAULT_DATASET


def load_rows(config: str, dataset: str | None = None) -> Any:
    """The ``test`` split of ``config`` as a ``datasets.Dataset``, from a hub id or a local folder
    (read afresh: :func:`eviscope.suites.eviscope.dataset.load_local`)."""
    import datasets

    source = dataset_source(dataset)
    if os.path.isdir(source):
        return load_local(source, config)
    return datasets.load_dataset(source, config, split=SPLIT)


def eviscope_prompt(row: Row, policy: str = "vanilla") -> str:
    """The user turn ``eviscope run`` sends for an EviScope row under ``policy`` (``vanilla`` or ``gate``)."""
    [request] = EviScopeTask(policy).requests(row)
    return request.messages[-1]["content"]


def forcebench_prompts(row: Row, judge: str) -> dict[str, str]:
    """The two user turns of a ForceBench pair under ``judge``: ``{"safe": …, "raised": …}``."""
    requests = ForceBenchTask(judge, judge).requests(row)
    return {which: r.messages[-1]["content"] for (which, _), r in zip(CLAIMS, requests, strict=True)}


def eviscope_prediction(row: Row, reply: str) -> dict[str, Any]:
    """The contract §3 prediction of one reply, read by the suite's tolerant parser (``action: null`` when
    it cannot be read). Harnesses report no usage, so none is given (it counts as zero)."""
    parsed = EviScopeTask("vanilla").parse(reply)
    fields = parsed or {"action": None, "answer": None, "citations": None, "quotes": None}
    return {"id": row["id"], **fields}


def scored_row(row: Row) -> dict[str, Any]:
    """The fields of an EviScope row that scoring reads (contract §4)."""
    return {k: row[k] for k in SCORED_FIELDS}


def eviscope_item(row: Row, reply: str) -> dict[str, Any]:
    """What a harness keeps per row for the corpus-level metrics: the scored fields and the prediction."""
    return {"row": scored_row(row), "prediction": eviscope_prediction(row, reply)}


def eviscope_scores(items: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Every overall contract §4 metric of a run's items, by :func:`eviscope.suites.eviscope.scoring.score`."""
    rows = [item["row"] for item in items]
    try:
        return scoring.score(rows, [item["prediction"] for item in items]).overall
    except EviScopeError as err:
        raise EviScopeError(f"{err} (a harness --limit counts rows: give a multiple of 4)") from None


def eviscope_metric(name: str, items: Sequence[Mapping[str, Any]], *, strict: bool = True) -> float:
    """One overall metric of a run's items; NaN where contract §4 leaves it undefined on these rows.

    Items that do not make whole quartets are an error, or NaN with ``strict=False`` (for a harness
    that shows running metrics while a run is in progress).
    """
    try:
        return eviscope_scores(items).get(name, float("nan"))
    except EviScopeError:
        if strict:
            raise
        return float("nan")


def forcebench_label(judge: str, reply: str) -> str | None:
    """The judge's label in ``reply`` (the suite's label parser), None when there is none."""
    return ForceBenchTask(judge, judge).parse(reply)


def forcebench_item(row: Row, which: str, judge: str, reply: str) -> dict[str, Any]:
    """What a harness keeps per request of a pair: the pair's id, axis, severity and pair type, and the
    label."""
    return {
        **{name: row[name] for name in FORCEBENCH_PAIR_FIELDS},
        "which": which,
        "judge": judge,
        "label": forcebench_label(judge, reply),
    }


def forcebench_predictions(items: Iterable[Mapping[str, Any]], evaluator: str | None = None) -> list[dict]:
    """contract §6 predictions from per-request items: one per pair, ``label_safe`` and ``label_raised``
    joined by id (a request the run did not make leaves its label null, a missing score)."""
    predictions: dict[str, dict[str, Any]] = {}
    for item in items:
        prediction = predictions.setdefault(
            item["id"],
            {"id": item["id"], "evaluator": evaluator or item["judge"], "prompt": item["judge"],
             "label_safe": None, "label_raised": None},
        )  # fmt: skip
        prediction[f"label_{item['which']}"] = item["label"]
    return list(predictions.values())


def forcebench_scores(items: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """MVR, FS, LPR and CPA (overall, per axis, per severity) of a run's items, by
    :mod:`eviscope.suites.forcebench.scoring`."""
    rows = list({item["id"]: {k: item[k] for k in FORCEBENCH_PAIR_FIELDS} for item in items}.values())
    units = forcebench_scoring.units_from_predictions(rows, forcebench_predictions(items))
    return forcebench_scoring.score_units(units)


def forcebench_metric(name: str, items: Sequence[Mapping[str, Any]]) -> float:
    """One overall ForceBench metric (``mvr``, ``fs``, ``lpr`` or ``cpa``) of a run's items; NaN when the
    run has no pair it is defined on (LPR without controls)."""
    value = forcebench_scores(items)[name]
    return math.nan if value is None else value
