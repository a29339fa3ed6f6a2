"""The one stub OpenAI-compatible chat-completions server, on 127.0.0.1, for tests and benchmarks.

Each reply is decided by callbacks: ``decide`` injects a fault (429, 500, 503, a reply slower than
``timeout_s``, a reset connection, a truncated body), ``script`` scripts (status, delay, text) per
prompt, ``answer`` gives the text of a healthy reply (by default a deterministic parsable answer per
prompt). ``delay_s`` delays every reply, ``max_concurrent`` bounds the requests served at once (the
others wait their turn, as on a busy server), and ``finish_reason`` is that of every healthy reply
(``length`` for a reply cut by the token limit). ``raw`` sends what a hostile server would: its
own status, headers and body bytes, in chunks with a pause between them (a server that trickles),
with or without a ``Content-Length``. Every request is logged.

``benchmarks/runner_http.py`` uses it too: run as a script, it puts this folder on ``sys.path``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import socket
import struct
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Decide = Callable[[str, int, int], str | None]
"""(request key, attempts of that key before this one, requests served before) -> fault or None."""
Script = Callable[[dict[str, Any], int], tuple[int, float, str]]
"""(request body, how many times its last message was seen before) -> (status, delay in s, reply text)."""


@dataclass
class Raw:
    """A reply sent as given: ``chunks`` of the body with ``pause_s`` before each; ``length`` is
    the ``Content-Length`` announced (None: the body's size; -1: none, the connection closes after
    the body)."""

    status: int = 200
    chunks: Iterable[bytes] = ()
    pause_s: float = 0.0
    length: int | None = None
    headers: dict[str, str] = field(default_factory=dict)


RawReply = Callable[[dict[str, Any], dict[str, str], str], Raw | None]
"""(request body, request headers, request path) -> the reply to send, or None for the usual one."""


def chat_body(content: str, usage: Any = None, finish_reason: str = "stop") -> bytes:
    """The JSON body of a chat completion whose ``usage`` is given as is (any JSON text, e.g. ``1e400``)."""
    message = json.dumps({"role": "assistant", "content": content})
    usage_text = usage if isinstance(usage, str) else json.dumps(usage)
    choice = f'{{"message": {message}, "finish_reason": "{finish_reason}"}}'
    return f'{{"choices": [{choice}], "usage": {usage_text}}}'.encode()


def request_key(body: dict[str, Any]) -> str:
    """One logical request (the same messages), whatever attempt it is."""
    return hashlib.sha1(json.dumps(body["messages"], sort_keys=True).encode()).hexdigest()[:16]


def answer_for(body: dict[str, Any]) -> str:
    """A deterministic, parsable answer per prompt, so a row run twice gets the same result."""
    digest = hashlib.sha1(body["messages"][0]["content"].encode()).hexdigest()
    action = ("answer", "abstain", "flag_conflict")[int(digest[:2], 16) % 3]
    return json.dumps({"action": action, "answer": digest[:8], "citations": [], "quotes": []})


class StubServer:
    """Serves ``/v1/chat/completions``; every fault it injects and every request is recorded."""

    FAULTS = ("429", "429-wait", "500", "503", "timeout", "reset", "malformed")

    def __init__(
        self,
        decide: Decide | None = None,
        timeout_s: float = 0.5,
        *,
        script: Script | None = None,
        answer: Callable[[dict[str, Any]], str] = answer_for,
        delay_s: float = 0.0,
        max_concurrent: int | None = None,
        finish_reason: str = "stop",
        raw: RawReply | None = None,
        models: list[dict[str, Any]] | None = None,
    ) -> None:
        self.decide: Decide = decide or (lambda key, seen, served: None)
        self.script = script
        self.answer = answer
        self.timeout_s = timeout_s
        self.delay_s = delay_s
        self.finish_reason = finish_reason
        self.raw = raw
        self.models = models or []
        """What ``GET /v1/models`` lists (``data``)."""
        self.lock = threading.Lock()
        self.slots = (
            threading.BoundedSemaphore(max_concurrent) if max_concurrent else contextlib.nullcontext()
        )
        self.log: list[list[Any]] = []
        """Per request: key, attempts of that key before it, fault, arrival time, reply time."""
        self.bodies: list[dict[str, Any]] = []
        self.seen: Counter[str] = Counter()
        self.seen_last: Counter[str] = Counter()
        self.in_flight = self.most_in_flight = 0
        self.on_request: Callable[[int], None] = lambda served: None
        server = self

        class Handler(BaseHTTPRequestHandler):
            # as real servers (uvicorn, vLLM) do: keep connections alive and send replies at once
            # (no Nagle wait for the client's delayed ACK of the headers before the body goes out)
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                pass

            def finish(self) -> None:
                with contextlib.suppress(OSError, ValueError):
                    super().finish()

            def do_GET(self) -> None:
                if self.path != "/v1/models":
                    self.send_error(404)
                    return
                data = json.dumps({"object": "list", "data": server.models}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                key = request_key(body)
                last = body["messages"][-1]["content"]
                with server.lock:
                    seen, served = server.seen[key], len(server.log)
                    server.seen[key] += 1
                    seen_last = server.seen_last[last]
                    server.seen_last[last] += 1
                    server.bodies.append(body)
                    fault = server.decide(key, seen, served)
                    entry = [key, seen, fault, time.monotonic(), None]
                    server.log.append(entry)
                server.on_request(served + 1)
                with server.slots:
                    with server.lock:
                        server.in_flight += 1
                        server.most_in_flight = max(server.most_in_flight, server.in_flight)
                    try:
                        with contextlib.suppress(OSError):  # the client went away (timed out, or was killed)
                            raw = server.raw and server.raw(body, dict(self.headers), self.path)
                            if raw:
                                self._send_raw(raw, entry)
                            else:
                                self._reply(body, fault, entry, seen_last)
                    finally:
                        with server.lock:
                            server.in_flight -= 1

            def _send_raw(self, raw: Raw, entry: list[Any]) -> None:
                chunks = list(raw.chunks) if raw.length is None else raw.chunks
                length = sum(map(len, chunks)) if raw.length is None else raw.length
                self.send_response(raw.status)
                for name, value in {"Content-Type": "application/json", **raw.headers}.items():
                    self.send_header(name, value)
                if length >= 0:
                    self.send_header("Content-Length", str(length))
                else:
                    self.send_header("Connection", "close")
                    self.close_connection = True
                self.end_headers()
                entry[4] = time.monotonic()
                for chunk in chunks:
                    time.sleep(raw.pause_s)
                    self.wfile.write(chunk)
                    self.wfile.flush()

            def _reply(
                self, body: dict[str, Any], fault: str | None, entry: list[Any], seen_last: int
            ) -> None:
                if fault == "reset":
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()
                    self.close_connection = True
                    return
                status, delay, text = 200, server.delay_s, None
                if server.script is not None:
                    status, delay, text = server.script(body, seen_last)
                if fault == "timeout":
                    delay = server.timeout_s * 2
                time.sleep(delay)
                headers = {"Content-Type": "application/json"}
                if fault == "malformed":
                    data = b'{"choices": [{"message": {"role": "assistant", "content": "{\\"act'
                elif fault is not None and fault != "timeout":
                    status = 429 if fault.startswith("429") else int(fault)
                    data = json.dumps({"error": {"message": f"injected {fault}\nsecond line"}}).encode()
                    headers["Retry-After"] = "1" if fault == "429-wait" else "0"
                elif status == 200:
                    message = {"role": "assistant", "content": server.answer(body) if text is None else text}
                    data = json.dumps(
                        {
                            "choices": [
                                {"index": 0, "message": message, "finish_reason": server.finish_reason}
                            ],
                            "usage": {"prompt_tokens": 100, "completion_tokens": 20},
                        }
                    ).encode()
                else:
                    data = json.dumps({"error": {"message": "scripted failure"}}).encode()
                    if status == 429:
                        headers["Retry-After"] = "0"
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                entry[4] = time.monotonic()
                self.wfile.write(data)

        class Server(ThreadingHTTPServer):
            request_queue_size = 256  # the default 5 drops connections under --concurrency 16
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a reset connection or a killed client: expected here

        self._server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def reset(self) -> None:
        with self.lock:
            self.log.clear()
            self.bodies.clear()
            self.seen.clear()
            self.seen_last.clear()

    @contextlib.contextmanager
    def serving(self) -> Iterator[StubServer]:
        thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._server.shutdown()
            self._server.server_close()


def main() -> None:
    """``python tests/stub_server.py --delay S --max-concurrent C``: serve healthy replies until
    killed, in a process of its own (as a real server is); prints its URL on the first line."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds per reply (default: 0)")
    parser.add_argument("--max-concurrent", type=int, help="requests served at once (default: no bound)")
    args = parser.parse_args()
    server = StubServer(delay_s=args.delay, max_concurrent=args.max_concurrent)
    print(server.url, flush=True)
    server._server.serve_forever()


if __name__ == "__main__":
    main()
