"""The one wait for a server (``eviscope.release.processes.wait_until_up``) that the release check,
the Space tests, the real-model tests and the Space benchmarks start their servers with."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from eviscope.release.processes import NotAnswering, free_port, wait_until_up


@contextmanager
def serving(status: int) -> Iterator[str]:
    """A local server answering every GET with ``status``; yields its URL."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(status)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/health"
    finally:
        server.shutdown()
        server.server_close()


def test_a_server_answering_200_is_up() -> None:
    with serving(200) as url:
        wait_until_up(url, lambda: True, 10)


def test_an_http_error_is_said_at_once_naming_the_path() -> None:
    with serving(500) as url, pytest.raises(NotAnswering, match=r"^GET /health answered 500$") as caught:
        wait_until_up(url, lambda: True, 60)
    assert not caught.value.exited


def test_a_process_that_is_gone_is_said_before_any_request() -> None:
    with pytest.raises(NotAnswering, match=r"^exited$") as caught:
        wait_until_up(f"http://127.0.0.1:{free_port()}/", lambda: False, 60)
    assert caught.value.exited


def test_nothing_listening_is_tried_again_until_the_time_is_up() -> None:
    url = f"http://127.0.0.1:{free_port()}/"  # refused: nothing listens on a free port
    with pytest.raises(NotAnswering, match=r"^no answer on GET / within 0.3 s$"):
        wait_until_up(url, lambda: True, 0.3, interval_s=0.05)
