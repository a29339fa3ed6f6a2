"""Start and stop the EviScope Space (``spaces/eviscope/app.py``) on a free local port, for tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
APP = REPO / "spaces" / "eviscope" / "app.py"
START_TIMEOUT_S = 120


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class SpaceServer:
    """One running app process: ``url``, and its log for failure messages."""

    def __init__(self, dataset: Path, results: Path, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.log = log
        env = {
            **os.environ,
            "GRADIO_ANALYTICS_ENABLED": "False",
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
        }
        args = [sys.executable, str(APP), "--dataset", str(dataset), "--results", str(results)]
        with log.open("ab") as out:
            self.process = subprocess.Popen(
                [*args, "--host", "127.0.0.1", "--port", str(self.port)], env=env, stdout=out, stderr=out
            )
        self._wait()

    def _wait(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"the Space exited with {self.process.returncode}:\n{self.log.read_text()}"
                )
            try:
                with urllib.request.urlopen(self.url, timeout=2):
                    return
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"the Space did not start in {START_TIMEOUT_S} s:\n{self.log.read_text()}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
