"""What a run asks of the model per row, how a reply is read, and what it writes.

A :class:`Task` is what a benchmark asks of the runner. An :class:`EviScopeTask` makes one request
per row under a policy and writes SPEC §3 predictions; ForceBench's task lives in its own package
(:mod:`eviscope.forcebench.task`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from eviscope.runner import policies
from eviscope.runner.backends.base import ChatRequest
from eviscope.runner.parsing import parse_answer
from eviscope.runner.schemas import ANSWER_SCHEMA

Row = Mapping[str, Any]


@dataclass(frozen=True)
class Part:
    """The outcome of one request of a row: the parsed value (None if unreadable) and the last reply."""

    parsed: Any
    raw: str
    attempts: int
    error: str | None = None
    truncated: bool = False
    """The last reply was cut by the token limit."""


class Task(Protocol):
    """The protocol :func:`eviscope.runner.execute.run_rows` drives."""

    name: str
    prompt_id: str
    prompt_file: str
    prompt_text: str
    schema: dict[str, Any]

    def requests(self, row: Row) -> list[ChatRequest]: ...

    def parse(self, text: str) -> Any:
        """The parsed reply, or None when it cannot be read."""
        ...

    def record(self, row: Row, parts: Sequence[Part]) -> dict[str, Any]:
        """The journal record of a row (without ``usage``), from its parts in request order."""
        ...

    def prediction(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """The predictions-file line of a journal record."""
        ...


def user_turn(content: str) -> list[dict[str, str]]:
    """The messages of a one-turn chat."""
    return [{"role": "user", "content": content}]


class EviScopeTask:
    """One request per row under policy ``vanilla`` or ``gate``."""

    name = "eviscope"

    def __init__(self, policy: str) -> None:
        self.policy = policy
        self.prompt_id = policies.prompt_id(policy)
        self.prompt_file = f"eviscope/runner/prompts/{self.prompt_id}.txt"
        self.prompt_text = policies.template(policy)
        self.schema = ANSWER_SCHEMA

    def requests(self, row: Row) -> list[ChatRequest]:
        return [ChatRequest(row["id"], user_turn(policies.render(self.policy, row)), self.schema)]

    def parse(self, text: str) -> dict[str, Any] | None:
        return parse_answer(text)

    def record(self, row: Row, parts: Sequence[Part]) -> dict[str, Any]:
        [part] = parts
        fields = part.parsed or {"action": None, "answer": None, "citations": None, "quotes": None}
        return {"id": row["id"], **fields, "raw": part.raw, "attempts": part.attempts, "error": part.error}

    def prediction(self, record: Mapping[str, Any]) -> dict[str, Any]:
        keys = ("id", "action", "answer", "citations", "quotes", "usage")
        return {k: record[k] for k in keys}
