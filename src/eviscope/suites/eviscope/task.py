"""EviScope's task: one request per row under a policy, read by the tolerant parser, written as
contract §3 predictions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from eviscope.runner.backends.base import ChatRequest
from eviscope.runner.tasks import Part, Row, user_turn
from eviscope.suites.eviscope import policies
from eviscope.suites.eviscope.parsing import PARSER_VERSION, parse_answer
from eviscope.suites.eviscope.schemas import ANSWER_SCHEMA, answer_schema


class EviScopeTask:
    """One request per row under policy ``vanilla`` or ``gate``."""

    name = "eviscope"

    def __init__(self, policy: str) -> None:
        self.policy = policy
        self.prompt_id = policies.prompt_id(policy)
        self.prompt_file = f"eviscope/suites/eviscope/prompts/{self.prompt_id}.txt"
        self.prompt_text = policies.template(policy)
        self.schema = ANSWER_SCHEMA
        self.parser_version = PARSER_VERSION

    def requests(self, row: Row) -> list[ChatRequest]:
        """One request whose schema names the row's doc ids (``self.schema`` is its template)."""
        schema = answer_schema([d["doc_id"] for d in row["documents"]])
        return [ChatRequest(row["id"], user_turn(policies.render(self.policy, row)), schema)]

    def parse(self, text: str) -> dict[str, Any] | None:
        return parse_answer(text)

    def record(self, row: Row, parts: Sequence[Part]) -> dict[str, Any]:
        [part] = parts
        fields = part.parsed or {"action": None, "answer": None, "citations": None, "quotes": None}
        return {"id": row["id"], **fields, "raw": part.raw, "attempts": part.attempts, "error": part.error}

    def prediction(self, record: Mapping[str, Any]) -> dict[str, Any]:
        keys = ("id", "action", "answer", "citations", "quotes", "usage")
        return {k: record[k] for k in keys}
