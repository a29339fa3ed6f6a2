"""Starting a Space as a process and knowing when it answers: a free port, ``python app.py`` in its
checkout until ``GET /`` answers 200, the last error line of its log, and the process group stopped
whatever happens."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

START_TIMEOUT_S = 180


class SpaceProblem(Exception):
    """One problem with a Space; its text starts with the file at fault."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def running(venv: Path, app: Path, env: dict[str, str], port: int) -> Iterator[str]:
    """``python app.py`` in the checkout folder; yields its URL once ``GET /`` answers 200."""
    log = app.parent / "space.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(venv / "bin" / "python"), "app.py"],
            cwd=app,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                raise SpaceProblem(
                    f"app.py: exited with {process.returncode}: {last_error(log.read_text(encoding='utf-8', errors='replace'))}"
                )
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    if response.status == 200:
                        break
            except urllib.error.HTTPError as err:
                raise SpaceProblem(
                    f"app.py: GET / answered {err.code}: {last_error(log.read_text(encoding='utf-8', errors='replace'))}"
                ) from None
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise SpaceProblem(
                    f"app.py: no answer on GET / within {START_TIMEOUT_S} s: {last_error(log.read_text(encoding='utf-8', errors='replace'))}"
                )
            time.sleep(0.5)
        yield url
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def last_error(text: str) -> str:
    """The last line of ``text`` that names an error or exception (else its last line), cut at 300."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if re.match(r"^[\w.]*(Error|Exception)\b", line)]
    return (errors or lines or ["no output"])[-1][:300]
