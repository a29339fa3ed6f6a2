"""A model server a test starts on 127.0.0.1 (``transformers serve``, llama-cpp-python's server):
started, waited for, failed with its log's tail when it does not answer, and stopped."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from eviscope.release.processes import NotAnswering, free_port, wait_until_up


@contextmanager
def serving(name: str, command: list[str], log_dir: Path, timeout_s: float) -> Iterator[str]:
    """Run ``command`` (with ``{port}`` in it) on a free port until the block ends; yields its
    base URL (``http://127.0.0.1:PORT/v1``) once ``/v1/models`` answers, or fails the test with the
    tail of its log."""
    port = free_port()
    with (log_dir / "server.log").open("w") as log:
        server = subprocess.Popen(
            [part.format(port=port) for part in command], stdout=log, stderr=subprocess.STDOUT
        )
        url = f"http://127.0.0.1:{port}/v1"
        try:
            try:
                wait_until_up(f"{url}/models", lambda: server.poll() is None, timeout_s, interval_s=1)
            except NotAnswering as err:
                pytest.fail(f"{name}: {err}: {Path(log.name).read_text()[-2000:]}")
            yield url
        finally:
            server.send_signal(signal.SIGTERM)  # uvicorn waits for requests in flight: then SIGKILL
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
