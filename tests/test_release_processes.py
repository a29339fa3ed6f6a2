"""The one wait for a server (``eviscope.release.processes.wait_until_up``) that the release check,
the Space tests, the real-model tests and the Space benchmarks start their servers with, here on a
real server process (``python -m http.server``)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from eviscope.release.processes import NotAnswering, alive, free_port, wait_until_up


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``python -m http.server`` over an empty folder on a free port: (process, URL)."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "http.server",
        str(port),
        "--bind",
        "127.0.0.1",
        "--directory",
        str(tmp_path),
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield process, f"http://127.0.0.1:{port}/"
    finally:
        process.kill()
        process.wait()


def test_a_server_is_up_once_it_answers_200(server) -> None:
    process, url = server
    wait_until_up(url, lambda: process.poll() is None, 60, interval_s=0.05)


def test_an_http_error_is_said_at_once_naming_the_path(server) -> None:
    process, url = server
    wait_until_up(url, lambda: process.poll() is None, 60, interval_s=0.05)
    with pytest.raises(NotAnswering, match=r"^GET /health answered 404$") as caught:
        wait_until_up(f"{url}health", lambda: process.poll() is None, 60)
    assert not caught.value.exited


def test_a_process_that_is_gone_is_said_before_any_request(server) -> None:
    process, url = server
    process.kill()
    process.wait()
    with pytest.raises(NotAnswering, match=r"^exited$") as caught:
        wait_until_up(url, lambda: process.poll() is None, 60)
    assert caught.value.exited


def test_nothing_listening_is_tried_again_until_the_time_is_up() -> None:
    url = f"http://127.0.0.1:{free_port()}/"  # refused: nothing listens on a free port
    with pytest.raises(NotAnswering, match=r"^no answer on GET / within 0.3 s$"):
        wait_until_up(url, lambda: True, 0.3, interval_s=0.05)


def test_a_process_is_alive_until_it_is_gone_and_reaped(server) -> None:
    """What the Space's sweep of leftover work folders and the Space tests ask of a pid."""
    process, _ = server
    assert alive(process.pid)
    process.kill()
    process.wait()
    assert not alive(process.pid)
    assert alive(1)  # init: another user's process (or this one's own) counts as alive
