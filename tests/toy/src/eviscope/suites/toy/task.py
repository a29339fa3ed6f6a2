"""What the runner (and the harness tasks) ask of a model for a toy row, and how a reply reads."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from eviscope.runner.backends.base import ChatRequest
from eviscope.runner.tasks import Part

SCHEMA = {"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]}


def question(row: Mapping[str, Any]) -> str:
    return f'What is {row["a"]} + {row["b"]}? Reply with JSON {{"sum": N}}.'


def parse(text: str) -> int | None:
    """The ``sum`` of a reply; None when the reply holds none."""
    try:
        value = json.loads(text)["sum"]
    except (ValueError, KeyError, TypeError):
        return None
    return value if isinstance(value, int) else None


class ToyTask:
    name = "toy"
    prompt_id = "toy.v1"
    prompt_file = "src/eviscope/suites/toy/task.py"
    parser_version = "toy/1"
    prompt_text = "What is {a} + {b}?"
    schema = SCHEMA

    def requests(self, row: Mapping[str, Any]) -> list[ChatRequest]:
        return [ChatRequest(row["id"], [{"role": "user", "content": question(row)}], self.schema)]

    def parse(self, text: str) -> int | None:
        return parse(text)

    def record(self, row: Mapping[str, Any], parts: Sequence[Part]) -> dict[str, Any]:
        [part] = parts
        return {"id": row["id"], "sum": part.parsed, "raw": part.raw}

    def prediction(self, record: Mapping[str, Any]) -> dict[str, Any]:
        return {"id": record["id"], "sum": record["sum"]}
