"""What a run asks of the model per row, how a reply is read, and what it writes.

A :class:`Task` is what a benchmark asks of the runner; each benchmark's package holds its own
(:mod:`eviscope.suites.eviscope.task`, :mod:`eviscope.suites.forcebench.task`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from eviscope.runner.backends.base import ChatRequest

Row = Mapping[str, Any]

RETRY_INSTRUCTION = (
    "Your reply could not be read. Reply again with one JSON object only, in exactly the format "
    "asked for above, and no other text."
)
"""The user turn appended (after the unreadable reply) when a reply is retried."""


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
    parser_version: str
    """Recorded in the manifest: the parser that read the replies, and its version."""

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
