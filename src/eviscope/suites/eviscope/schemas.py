"""One JSON schema per task, enforced by the backends that can (vLLM, OpenAI-compatible servers,
xgrammar for transformers) and checked by the tolerant parser everywhere.

Both EviScope policies use :data:`ANSWER_SCHEMA` (a ForceBench judge's schema is
:func:`eviscope.suites.forcebench.task.label_schema`). Lengths and counts are bounded so a constrained
decoder always closes the object within a few hundred tokens.
"""

from __future__ import annotations

from typing import Any

from eviscope.suites.eviscope.rows import ACTIONS

ANSWER_SCHEMA: dict[str, Any] = {
    "title": "eviscope_answer",
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": list(ACTIONS)},
        "answer": {"type": "string", "maxLength": 200},
        "citations": {"type": "array", "items": {"type": "string", "maxLength": 40}, "maxItems": 4},
        "quotes": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "doc_id": {"type": "string", "maxLength": 40},
                    "text": {"type": "string", "maxLength": 400},
                },
                "required": ["doc_id", "text"],
                "additionalProperties": False,
            },
            "maxItems": 2,
        },
    },
    "required": ["action", "answer", "citations", "quotes"],
    "additionalProperties": False,
}
"""The EviScope output (contract §3 without ``id`` and ``usage``), shared by the vanilla and gate policies."""
