"""ForceBench's door into the harnesses: the judge prompts, the label parser and MVR, FS, LPR and CPA
as its harness tasks use them (``forcebench_prompts`` when a request is built, ``forcebench_item``
when a reply comes back, ``forcebench_metric`` once per metric over the run), all from
:mod:`eviscope.suites.forcebench.task` and :mod:`eviscope.suites.forcebench.scoring`, so a harness
reports what ``eviscope score --config forcebench`` would on the same replies. ``claims`` and
``predictions`` turn a harness log back into a predictions file (:mod:`eviscope.harness.samples`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from eviscope.suites.forcebench import scoring as forcebench_scoring
from eviscope.suites.forcebench.task import CLAIMS, ForceBenchTask

Row = Mapping[str, Any]

FORCEBENCH_JUDGES: tuple[str, ...] = tuple(forcebench_scoring.PROMPT_LABELS)
"""The judge prompts, one ForceBench task each (``forcebench_<judge>``)."""

FORCEBENCH_METRICS: tuple[str, ...] = ("mvr", "fs", "lpr", "cpa")
"""Monotonicity violation rate and force sensitivity (contrast pairs), licensed-penalty rate (controls)
and controlled pair accuracy (contract §6), pooled over the run's pairs."""

FORCEBENCH_PAIR_FIELDS: tuple[str, ...] = ("id", "axis", "severity", "pair_type", "split")
"""The fields of a ForceBench row that a harness request carries, so the metrics can be computed on
the rows ``eviscope score`` puts in its headline (the eval split)."""


def forcebench_prompts(row: Row, judge: str) -> dict[str, str]:
    """The two user turns of a ForceBench pair under ``judge``: ``{"safe": …, "raised": …}``."""
    requests = ForceBenchTask(judge, judge).requests(row)
    return {which: r.messages[-1]["content"] for (which, _), r in zip(CLAIMS, requests, strict=True)}


def forcebench_schema(judge: str) -> dict[str, Any]:
    """The JSON schema ``eviscope run`` asks a ForceBench judge for: ``{"label": <one of its labels>}``."""
    return ForceBenchTask(judge, judge).schema


def forcebench_label(judge: str, reply: str) -> str | None:
    """The judge's label in ``reply`` (the suite's label parser), None when there is none."""
    return ForceBenchTask(judge, judge).parse(reply)


def forcebench_item(row: Row, which: str, judge: str, reply: str) -> dict[str, Any]:
    """What a harness keeps per request of a pair: the pair's id, axis, severity, pair type and split
    (absent from a log made before rows had one), and the label."""
    return {
        **{name: row[name] for name in FORCEBENCH_PAIR_FIELDS if name != "split" or name in row},
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
    """MVR, FS, LPR and CPA (overall, per axis, per severity) of a run's items on the eval split when
    they hold one (:func:`eviscope.suites.forcebench.scoring.score_predictions`)."""
    rows = list(
        {item["id"]: {k: item[k] for k in FORCEBENCH_PAIR_FIELDS if k in item} for item in items}.values()
    )
    return forcebench_scoring.score_predictions(rows, forcebench_predictions(items))


def forcebench_metric(name: str, items: Sequence[Mapping[str, Any]]) -> float:
    """One overall ForceBench metric (``mvr``, ``fs``, ``lpr`` or ``cpa``) of a run's items; NaN when the
    run has no pair it is defined on (LPR without controls)."""
    value = forcebench_scores(items)[name]
    return math.nan if value is None else value


def claims(sample: Mapping[str, Any]) -> bool:
    """Whether a harness sample (an lm-eval ``doc`` or an inspect-ai sample's metadata) is one of the two
    requests of a ForceBench pair."""
    return "which" in sample


def predictions(samples: Iterable[tuple[Row, str]], evaluator: str | None = None) -> list[dict[str, Any]]:
    """The contract §6 predictions of (request, reply) pairs of a harness log: one per pair."""
    items = [
        forcebench_item(request, request["which"], request["judge"], reply) for request, reply in samples
    ]
    return forcebench_predictions(items, evaluator)
