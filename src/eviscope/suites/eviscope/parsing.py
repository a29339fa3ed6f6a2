"""The tolerant parser for model outputs, and the bounded-retry instruction.

A reply is read as the first JSON object in it that carries a valid ``action`` (code fences, prose
around the object and a trailing comma-free suffix are all tolerated). Fields are coerced the way a
reader would: ``"flag conflict"`` is ``flag_conflict``, a lone citation string is a one-item list,
malformed quotes are dropped. Objects are found by
:func:`eviscope.core.untrusted_json.json_objects` (linear in the reply's length, depth-limited, a
lone surrogate read as its escaped text). A reply with no such object is ``None``: the runner retries it at most
``--max-retries`` times and then keeps the row with ``action: null`` (contract §3), never drops it.

>>> parse_answer('Sure!\\n```json\\n{"action": "Answer", "answer": "1066", "citations": "doc-1"}\\n```')
{'action': 'answer', 'answer': '1066', 'citations': ['doc-1'], 'quotes': []}
>>> parse_answer('{"action": "guess"}') is None
True

ForceBench judge replies are read by :func:`eviscope.suites.forcebench.prompts.parse_label`, the one parser
for judge outputs.
"""

from __future__ import annotations

import re
from typing import Any

from eviscope.core.untrusted_json import json_objects
from eviscope.suites.eviscope.rows import ACTIONS

PARSER_VERSION = "eviscope.runner.parsing/1"
"""Recorded in every manifest; bump it when parsing changes what a reply means."""

_SEPARATORS = re.compile(r"[\s\-]+")


def _action(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    action = _SEPARATORS.sub("_", value.strip().lower())
    return action if action in ACTIONS else None


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _quotes(value: Any) -> list[dict[str, str]]:
    if not isinstance(value, list):
        return []
    return [
        {"doc_id": q["doc_id"], "text": q["text"]}
        for q in value
        if isinstance(q, dict) and isinstance(q.get("doc_id"), str) and isinstance(q.get("text"), str)
    ]


def reply_object(text: str) -> dict[str, Any] | None:
    """The JSON object of a reply that :func:`parse_answer` reads (the first with a valid ``action``), or None."""
    return next((obj for obj in json_objects(text) if _action(obj.get("action")) is not None), None)


def parse_answer(text: str) -> dict[str, Any] | None:
    """The contract §3 fields (``action``, ``answer``, ``citations``, ``quotes``) a reply gives, or None."""
    obj = reply_object(text)
    if obj is None:
        return None
    answer = obj.get("answer")
    if isinstance(answer, int | float) and not isinstance(answer, bool):
        answer = str(answer)
    return {
        "action": _action(obj.get("action")),
        "answer": answer if isinstance(answer, str) else None,
        "citations": _strings(obj.get("citations")),
        "quotes": _quotes(obj.get("quotes")),
    }
