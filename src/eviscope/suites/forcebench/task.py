"""ForceBench's task for the runner: two requests per pair (the calibrated and the raised claim) under
a judge prompt, and contract §6 predictions that ``eviscope score --config forcebench`` reads.

>>> label_schema("generic")["properties"]["label"]["enum"][:2]
['fully_supported', 'partially_supported']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from eviscope.runner.backends.base import ChatRequest
from eviscope.runner.tasks import Part, Row, user_turn
from eviscope.suites.forcebench import prompts as judge_prompts


def label_schema(judge: str) -> dict[str, Any]:
    """The output schema of ForceBench judge prompt ``judge``: ``{"label": <one of its labels>}``."""
    return {
        "title": f"forcebench_{judge}",
        "type": "object",
        "properties": {"label": {"type": "string", "enum": list(judge_prompts.label_set(judge))}},
        "required": ["label"],
        "additionalProperties": False,
    }


CLAIMS = (("safe", "calibrated_claim"), ("raised", "raised_claim"))
"""The two requests of a ForceBench pair: (suffix of its label field, row field of its claim)."""


class ForceBenchTask:
    """Two requests per pair under judge prompt ``judge``; ``evaluator`` names the (model, judge) unit."""

    def __init__(self, judge: str, evaluator: str) -> None:
        self.name = "forcebench"
        self.judge = judge
        self.evaluator = evaluator
        self.prompt_id = judge_prompts.prompt_id(judge)
        self.prompt_file = f"eviscope/suites/forcebench/prompts/{self.prompt_id}.txt"
        self.prompt_text = judge_prompts.template(judge)
        self.schema = label_schema(judge)
        self.parser_version = judge_prompts.PARSER_VERSION

    def requests(self, row: Row) -> list[ChatRequest]:
        return [
            ChatRequest(
                f"{row['id']}#{which}",
                user_turn(
                    judge_prompts.render(
                        self.judge, context=row["context"], evidence=row["evidence"], claim=row[field]
                    )
                ),
                self.schema,
            )
            for which, field in CLAIMS
        ]

    def parse(self, text: str) -> str | None:
        return judge_prompts.parse_label(self.judge, text)

    def record(self, row: Row, parts: Sequence[Part]) -> dict[str, Any]:
        record: dict[str, Any] = {"id": row["id"], "evaluator": self.evaluator, "prompt": self.judge}
        for (which, _), part in zip(CLAIMS, parts, strict=True):
            record[f"label_{which}"] = part.parsed
            record[f"raw_{which}"] = part.raw
            record[f"attempts_{which}"] = part.attempts
            record[f"error_{which}"] = part.error
        return record

    def prediction(self, record: Mapping[str, Any]) -> dict[str, Any]:
        keys = ("id", "evaluator", "prompt", "label_safe", "label_raised")
        return {k: record[k] for k in keys}
