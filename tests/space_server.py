"""Start and stop the EviScope Space (``spaces/eviscope/app.py``) on a free local port, for tests.

``SpaceServer`` runs the app as a fresh process (about 10 s to import gradio and the library).
``SpaceForks`` pays that once: a parent process imports the app module, then forks a new Space
process, which runs the app's ``main``, for every ``start`` (a second or two), so that tests can
kill and restart the Space many times.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from module_files import load_file

from eviscope.release.processes import NotAnswering, alive, free_port, wait_until_up

REPO = Path(__file__).resolve().parents[1]
APP = REPO / "spaces" / "eviscope" / "app.py"
START_TIMEOUT_S = 120


def load_app() -> ModuleType:
    """``spaces/eviscope/app.py`` as a module (``main(argv, block=False)`` serves in this process)."""
    return load_file(APP, "eviscope_space_app")


def _environment() -> dict[str, str]:
    return {
        **os.environ,
        "GRADIO_ANALYTICS_ENABLED": "False",
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "MPLBACKEND": "Agg",
    }


def _wait_until_up(url: str, alive: Callable[[], bool], log: Path, stop: Callable[[], None]) -> None:
    try:
        wait_until_up(url, alive, START_TIMEOUT_S, interval_s=0.2, request_s=2)
    except NotAnswering as err:
        stop()
        raise RuntimeError(f"the Space {err}:\n{log.read_text(errors='replace')}") from None


class SpaceServer:
    """One running app process: ``url``, and its log for failure messages."""

    def __init__(self, dataset: Path, results: Path, log: Path, env: dict[str, str] | None = None) -> None:
        """``env``: variables to set for the app besides the offline ones (``TMPDIR``, limits…)."""
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.log = log
        env = {**_environment(), **(env or {})}
        args = [sys.executable, str(APP), "--dataset", str(dataset), "--results", str(results)]
        with log.open("ab") as out:
            self.process = subprocess.Popen(
                [*args, "--host", "127.0.0.1", "--port", str(self.port)], env=env, stdout=out, stderr=out
            )
        self._wait()

    def _wait(self) -> None:
        _wait_until_up(self.url, lambda: self.process.poll() is None, self.log, self.stop)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Forked:
    """A process forked by :class:`SpaceForks`: ``pid``, ``alive()``, ``kill()`` (SIGKILL)."""

    def __init__(self, pid: int, log: Path) -> None:
        self.pid = pid
        self.log = log

    def alive(self) -> bool:
        return alive(self.pid)

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Send ``sig`` (by default SIGKILL: no cleanup at all) and wait until the process is gone."""
        try:
            os.kill(self.pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + 30
        while self.alive():
            if time.monotonic() > deadline:
                raise RuntimeError(f"process {self.pid} did not exit after signal {sig}")
            time.sleep(0.01)

    def kill_after(self, seconds: float) -> None:
        """SIGKILL ``seconds`` after now."""
        time.sleep(seconds)
        self.kill()


class ForkedSpace(Forked):
    """A forked Space process, serving on ``url``."""

    def __init__(self, pid: int, port: int, log: Path) -> None:
        super().__init__(pid, log)
        self.port = port
        self.url = f"http://127.0.0.1:{port}/"

    def stop(self) -> None:
        self.kill(signal.SIGTERM)


class SpaceForks:
    """A parent that has imported ``spaces/eviscope/app.py`` once and forks a Space per :meth:`start`.

    Each forked process runs the app's ``main`` over ``dataset`` and the given results folder, just
    as ``python spaces/eviscope/app.py`` would, writing its output to ``log``. The forks are children
    of the parent (which reaps them), so a test can SIGKILL one and start another on the same folder
    in a second or two.
    """

    def __init__(self, dataset: Path, log: Path) -> None:
        self.dataset = dataset
        self.log = log
        self.children: list[Forked] = []
        with log.open("ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, __file__, "--fork-server"],
                env=_environment(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=out,
            )
        self._call(["ping"])

    def _call(self, command: list[str]) -> str:
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        stdin.write((json.dumps(command) + "\n").encode())
        stdin.flush()
        answer = stdout.readline().decode().strip()
        if not answer:
            raise RuntimeError(f"the fork server exited:\n{self.log.read_text(errors='replace')}")
        return answer

    def start(self, results: Path, log: Path | None = None) -> ForkedSpace:
        """A new Space process over ``results``, once its page answers."""
        log = log or self.log
        port = free_port()
        args = ["--dataset", str(self.dataset), "--results", str(results)]
        args += ["--host", "127.0.0.1", "--port", str(port)]
        pid = int(self._call(["start", str(log), *args]))
        space = ForkedSpace(pid, port, log)
        self.children.append(space)
        _wait_until_up(space.url, space.alive, log, space.kill)
        return space

    def writer(self, results: Path, prefix: str, size: int, log: Path | None = None) -> Forked:
        """A process that adds results ``{prefix}-0``, ``{prefix}-1``, … of config ``prefix`` (each
        with ``size`` bytes of predictions) to a ``LocalResultStore`` over ``results``, one after
        the other, until it is killed: a write is under way most of the time it lives."""
        log = log or self.log
        pid = int(self._call(["write", str(log), str(results), prefix, str(size)]))
        process = Forked(pid, log)
        self.children.append(process)
        return process

    def close(self) -> None:
        for space in self.children:
            space.kill()
        if self.process.stdin:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout:
            self.process.stdout.close()


def _die_with_parent() -> None:
    """Linux: SIGKILL this process when its parent (the fork server) exits, so no Space outlives a
    test run that was itself killed."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _write_forever(results: str, prefix: str, size: str) -> None:
    """Add results ``{prefix}-0``, ``{prefix}-1``, … to config ``prefix``, each holding one
    prediction of ``size`` bytes (cheap to encode, long to write), until killed."""
    from eviscope.space.leaderboard import LocalResultStore

    store = LocalResultStore(results)
    predictions = [{"id": "row-0", "text": "x" * int(size)}]
    i = 0
    while True:
        system = f"{prefix}-{i}"
        store.add(
            {
                "id": system,
                "config": prefix,
                "system": system,
                "submitted_at": f"2026-01-01T00:00:00 {i:06d}",
                "result": {"bytes": int(size)},
                "predictions": predictions,
            }
        )
        i += 1


def _fork_server() -> None:
    """Import the app once, then answer each line on stdin, ``["start", LOG, *APP_ARGS]`` or
    ``["write", LOG, RESULTS, PREFIX, SIZE]``, with the pid of a forked process that runs the Space
    or ``_write_forever``; exit at the end of stdin."""
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # whatever else is printed goes to the log, not into the answers
    app = load_app()  # gradio and the whole library, once, before any fork

    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # forked Spaces are reaped as they exit
    for line in sys.stdin:
        command = json.loads(line)
        if command[0] == "ping":
            print("pong", file=answers, flush=True)
            continue
        log, argv = command[1], command[2:]
        pid = os.fork()
        if pid == 0:  # the Space process
            code = 1
            try:
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                _die_with_parent()
                answers.close()
                out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
                os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
                os.dup2(out, 1)
                os.dup2(out, 2)
                if command[0] == "write":
                    _write_forever(*argv)
                else:
                    app.main(argv)
                code = 0
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else 1
            except BaseException:
                import traceback

                traceback.print_exc()
            finally:
                os._exit(code)
        print(pid, file=answers, flush=True)


if __name__ == "__main__" and sys.argv[1:] == ["--fork-server"]:
    _fork_server()
