"""One JSON schema per request, enforced by the backends that can (vLLM, OpenAI-compatible servers,
xgrammar for transformers) and checked by the tolerant parser everywhere.

Both EviScope policies ask for :func:`answer_schema` of the row: ``citations`` and
``quotes[].doc_id`` are an ``enum`` of that row's doc ids, so a constrained decoder cannot cite a
document the row does not have (a ForceBench judge's schema is the enum of its labels,
:func:`eviscope.suites.forcebench.task.label_schema`). Lengths and counts are bounded so a
constrained decoder always closes the object within a few hundred tokens; at most one citation per
document (``uniqueItems`` is not enforced by xgrammar, so ``maxItems`` is the number of documents).
The manifest records :data:`ANSWER_SCHEMA`, the template, and its SHA-256.

>>> schema = answer_schema(["doc-1", "doc-2"])
>>> schema["properties"]["citations"]["items"]["enum"], schema["properties"]["citations"]["maxItems"]
(['doc-1', 'doc-2'], 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eviscope.suites.eviscope.rows import ACTIONS

ANSWER_MAX_CHARS = 80
QUOTE_MAX_CHARS = 200
MAX_QUOTES = 1

ROW_DOC_IDS = "$doc_ids"
"""In :data:`ANSWER_SCHEMA`, where a request's schema has the row's doc ids."""
ROW_DOC_COUNT = "$doc_count"
"""In :data:`ANSWER_SCHEMA`, where a request's schema has the row's number of documents."""


def _schema(doc_ids: Any, doc_count: Any) -> dict[str, Any]:
    doc_id = {"type": "string", "enum": doc_ids}
    return {
        "title": "eviscope_answer",
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": list(ACTIONS)},
            "answer": {"type": "string", "maxLength": ANSWER_MAX_CHARS},
            "citations": {"type": "array", "items": doc_id, "maxItems": doc_count},
            "quotes": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "doc_id": doc_id,
                        "text": {"type": "string", "maxLength": QUOTE_MAX_CHARS},
                    },
                    "required": ["doc_id", "text"],
                    "additionalProperties": False,
                },
                "maxItems": MAX_QUOTES,
            },
        },
        "required": ["action", "answer", "citations", "quotes"],
        "additionalProperties": False,
    }


def answer_schema(doc_ids: Sequence[str]) -> dict[str, Any]:
    """The EviScope output (contract §3 without ``id`` and ``usage``) for a row with ``doc_ids``.

    A request that shows no document (a counterfactual with every document removed) can cite
    nothing: its ``citations`` and ``quotes`` are empty arrays (an empty ``enum`` is no schema).

    >>> answer_schema([])["properties"]["citations"], answer_schema([])["properties"]["quotes"]
    ({'type': 'array', 'maxItems': 0}, {'type': 'array', 'maxItems': 0})
    """
    schema = _schema(list(doc_ids), len(doc_ids))
    if not doc_ids:
        schema["properties"]["citations"] = {"type": "array", "maxItems": 0}
        schema["properties"]["quotes"] = {"type": "array", "maxItems": 0}
    return schema


ANSWER_SCHEMA: dict[str, Any] = _schema(ROW_DOC_IDS, ROW_DOC_COUNT)
"""The template of :func:`answer_schema` (``$doc_ids``, ``$doc_count`` stand for the row's), shared
by the vanilla and gate policies and recorded in the manifest."""
