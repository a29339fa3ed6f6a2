"""EviScope's door into the harnesses: every prompt, parser and metric its harness tasks use.

lm-evaluation-harness and inspect-ai call these functions row by row (``eviscope_prompt`` when they
build a request, ``eviscope_item`` when a reply comes back) and once per metric over the whole run
(``eviscope_metric``). Nothing here re-implements the suite: the prompt and parser are those of
``eviscope run`` (:mod:`eviscope.suites.eviscope.task`), and every number is computed by
:func:`eviscope.suites.eviscope.scoring.score`, so a harness reports what ``eviscope score`` would on
the same replies. ``claims`` and ``predictions`` turn a harness log back into a predictions file
(:mod:`eviscope.harness.samples`).

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

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from eviscope.core.errors import EviScopeError, id_text, plain
from eviscope.core.fields import near_miss
from eviscope.core.metrics import names
from eviscope.suites.eviscope import scoring
from eviscope.suites.eviscope.metrics import METRICS as EVISCOPE_TABLE
from eviscope.suites.eviscope.parsing import reply_object
from eviscope.suites.eviscope.predictions import KNOWN_FIELDS, Quote
from eviscope.suites.eviscope.rows import SCORED_FIELDS, SCORED_WHEN_GIVEN
from eviscope.suites.eviscope.task import EviScopeTask

Row = Mapping[str, Any]
QUOTE_FIELDS: tuple[str, ...] = tuple(Quote.model_fields)

EVISCOPE_CONFIGS: dict[str, str] = {
    "eviscope_v1_1": "eviscope-v1.1",
    "eviscope_v1": "eviscope-v1",
    "eviscope_xl": "eviscope-xl",
}
"""Harness task name -> dataset config."""

EVISCOPE_METRICS: tuple[str, ...] = names(EVISCOPE_TABLE, harness=True)
"""Every contract §4 metric a harness reports: the table's, less the usage metrics (and
``utility_per_call``, which divides by calls): the harnesses see no tokens, latency or cost per request."""


def eviscope_prompt(row: Row, policy: str = "vanilla") -> str:
    """The user turn ``eviscope run`` sends for an EviScope row under ``policy`` (``vanilla`` or ``gate``)."""
    [request] = EviScopeTask(policy).requests(row)
    return request.messages[-1]["content"]


def eviscope_schema(row: Row, policy: str = "vanilla") -> dict[str, Any]:
    """The JSON schema ``eviscope run`` asks for on an EviScope row (its doc ids an ``enum``, contract §3)."""
    [request] = EviScopeTask(policy).requests(row)
    return request.schema


def eviscope_prediction(row: Row, reply: str) -> dict[str, Any]:
    """The contract §3 prediction of one reply, read by the suite's tolerant parser (``action: null`` when
    it cannot be read). Harnesses report no usage, so none is given (it counts as zero)."""
    parsed = EviScopeTask("vanilla").parse(reply)
    fields = parsed or {"action": None, "answer": None, "citations": None, "quotes": None}
    return {"id": row["id"], **fields}


def scored_row(row: Row) -> dict[str, Any]:
    """The fields of an EviScope row that scoring reads (contract §4), the optional ones where given."""
    return {
        **{k: row[k] for k in SCORED_FIELDS},
        **{k: row[k] for k in SCORED_WHEN_GIVEN if row.get(k) is not None},
    }


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


def claims(sample: Mapping[str, Any]) -> bool:
    """Whether a harness sample (an lm-eval ``doc`` or an inspect-ai sample's metadata) is an EviScope row."""
    return "quartet_id" in sample


def reply_field_error(reply: str) -> str | None:
    """What :func:`eviscope.suites.eviscope.predictions.load_predictions` says of a field of the
    reply's object (or of one of its quotes) that is a near miss of a prediction field the object
    lacks (``citation`` for ``citations``), or None. The tolerant parser reads such a field as absent."""
    obj = reply_object(reply)
    if obj is None:
        return None
    objects: list[tuple[str, Mapping[str, Any], Sequence[str]]] = [("", obj, KNOWN_FIELDS)]
    quotes = obj.get("quotes")
    if isinstance(quotes, list):
        objects += [(f"quotes.{i}.", q, QUOTE_FIELDS) for i, q in enumerate(quotes) if isinstance(q, dict)]
    for path, fields, known in objects:
        for key in fields:
            resembled = None if key in known else near_miss(str(key), known)
            if resembled is not None and resembled not in fields:
                return f"unknown field '{path}{plain(str(key), 60)}' — did you mean '{path}{resembled}'?"
    return None


def predictions(samples: Iterable[tuple[Row, str]], evaluator: str | None = None) -> list[dict[str, Any]]:
    """The contract §3 predictions of (row, reply) pairs of a harness log, in row order. A reply
    whose object holds a near miss of a prediction field (``citation``) is an error naming the row
    and the field, as the same field in a predictions file is (:func:`reply_field_error`): read as
    absent, it would score the row silently wrong."""
    out = []
    for row, reply in samples:
        problem = reply_field_error(reply)
        if problem is not None:
            raise EviScopeError(f"the reply to row {id_text(row['id'])}: {problem}")
        out.append(eviscope_prediction(row, reply))
    return out
