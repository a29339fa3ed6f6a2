"""Helpers for the runner tests: a scripted OpenAI-compatible server on 127.0.0.1, and answers."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ANSWER = json.dumps({"action": "abstain", "answer": "", "citations": [], "quotes": []})

Script = Callable[[dict[str, Any], int], tuple[int, float, str]]
"""(request body, how many times this prompt was seen before) -> (status, delay in s, reply text)."""


def always_ok(body: dict[str, Any], seen: int) -> tuple[int, float, str]:
    return 200, 0.0, ANSWER


@contextmanager
def chat_server(script: Script = always_ok) -> Iterator[dict[str, Any]]:
    """A local chat-completions server; yields ``{"url", "bodies", "set_script"}``."""
    state: dict[str, Any] = {"script": script, "bodies": [], "seen": Counter()}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            key = body["messages"][-1]["content"]
            with lock:
                state["bodies"].append(body)
                seen = state["seen"][key]
                state["seen"][key] += 1
            status, delay, text = state["script"](body, seen)
            time.sleep(delay)
            payload = (
                {
                    "choices": [{"message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 20},
                }
                if status == 200
                else {"error": {"message": "scripted failure"}}
            )
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                if status == 429:
                    self.send_header("Retry-After", "0")
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client timed out and went away

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state["url"] = f"http://127.0.0.1:{server.server_address[1]}/v1"
    state["set_script"] = lambda new: state.__setitem__("script", new)
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def read_jsonl(path: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
