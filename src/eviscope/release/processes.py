"""Starting a server as a process and knowing when it answers: a free port, whether a process is
alive, and the wait until ``GET`` answers 200 (:func:`free_port`, :func:`alive`, :func:`wait_until_up`:
one of each for the suite, its benchmarks and its tests), ``python app.py`` in a Space's checkout until ``GET /`` answers 200, the last error line
of its log, and the process group stopped whatever happens."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

START_TIMEOUT_S = 180


class SpaceProblem(Exception):
    """One problem with a Space; its text starts with the file at fault."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now (bound, then closed): for a server to
    start on, or as a port whose connections are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists (another user's process counts; a zombie not yet reaped too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


class NotAnswering(Exception):
    """A server that did not come up; the text says why (``exited``, ``GET / answered 500``, ``no
    answer on GET / within 180 s``)."""

    def __init__(self, reason: str, *, exited: bool = False) -> None:
        super().__init__(reason)
        self.exited = exited
        """Whether its process was gone (the caller knows the exit code, where there is one)."""


def wait_until_up(
    url: str, alive: Callable[[], bool], timeout_s: float, *, interval_s: float = 0.5, request_s: float = 5
) -> None:
    """Return once ``GET url`` answers 200. :class:`NotAnswering` as soon as ``alive()`` is false or
    the server answers an HTTP error, or when ``timeout_s`` pass without an answer; a refused or
    unanswered connection is tried again every ``interval_s``."""
    path = urllib.parse.urlsplit(url).path or "/"
    deadline = time.monotonic() + timeout_s
    while True:
        if not alive():
            raise NotAnswering("exited", exited=True)
        try:
            with urllib.request.urlopen(url, timeout=request_s) as response:
                if response.status == 200:
                    return
        except urllib.error.HTTPError as err:
            raise NotAnswering(f"GET {path} answered {err.code}") from None
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise NotAnswering(f"no answer on GET {path} within {timeout_s:g} s")
        time.sleep(interval_s)


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
        try:
            wait_until_up(url, lambda: process.poll() is None, START_TIMEOUT_S)
        except NotAnswering as err:
            reason = f"exited with {process.returncode}" if err.exited else str(err)
            raise SpaceProblem(
                f"app.py: {reason}: {last_error(log.read_text(encoding='utf-8', errors='replace'))}"
            ) from None
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
