"""One JSON schema per task, enforced by the backends that can (vLLM, OpenAI-compatible servers,
xgrammar for transformers) and checked by the tolerant parser everywhere.

Both EviScope policies use :data:`ANSWER_SCHEMA`; a ForceBench judge uses :func:`label_schema` of its
prompt, whose ``label`` is an enum of that prompt's label set. Lengths and counts are bounded so a
constrained decoder always closes the object within a few hundred tokens.

>>> label_schema("generic")["properties"]["label"]["enum"][:2]
['fully_supported', 'partially_supported']
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from eviscope.forcebench.prompts import label_set
from eviscope.rows import ACTIONS

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
"""The EviScope output (SPEC §3 without ``id`` and ``usage``), shared by the vanilla and gate policies."""


def label_schema(judge: str) -> dict[str, Any]:
    """The output schema of ForceBench judge prompt ``judge``: ``{"label": <one of its labels>}``."""
    return {
        "title": f"forcebench_{judge}",
        "type": "object",
        "properties": {"label": {"type": "string", "enum": list(label_set(judge))}},
        "required": ["label"],
        "additionalProperties": False,
    }


def schema_hash(schema: dict[str, Any]) -> str:
    """SHA-256 of the schema's canonical JSON, recorded in the manifest."""
    return hashlib.sha256(json.dumps(schema, sort_keys=True).encode()).hexdigest()
