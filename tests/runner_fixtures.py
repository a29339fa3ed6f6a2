"""Helpers for the runner tests: the stub server under a script, and answers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from stub_server import Script, StubServer

ANSWER = json.dumps({"action": "abstain", "answer": "", "citations": [], "quotes": []})


def always_ok(body: dict[str, Any], seen: int) -> tuple[int, float, str]:
    return 200, 0.0, ANSWER


@contextmanager
def chat_server(script: Script = always_ok, **options: Any) -> Iterator[dict[str, Any]]:
    """The stub server under ``script``; yields ``{"url", "bodies", "set_script", "server"}``."""
    server = StubServer(script=script, **options)
    with server.serving():
        yield {
            "url": server.url,
            "bodies": server.bodies,
            "set_script": lambda new: setattr(server, "script", new),
            "server": server,
        }


def read_jsonl(path: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
