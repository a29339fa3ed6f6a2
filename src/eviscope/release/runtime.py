"""The runtime check: each staged Space started the way the Hub starts it, and used through its API.

For every staged Space (the metric Spaces and the browser Space):

1. the Python its card declares (``python_version``; the Hub's default, 3.10, when it declares none:
   https://huggingface.co/docs/hub/spaces-config-reference) is found on this machine (``PATH``,
   pyenv, uv); a version that is not here is a problem that says so;
2. a fresh virtual environment of that Python gets exactly the Space's ``requirements.txt``, with the
   package built from the checkout standing in for the ``eviscope @ URL`` line, and the Gradio SDK
   of the card (``gradio[oauth]==sdk_version``), as the Hub installs them;
3. the Space's files are copied into a folder named ``app``, as the Hub's checkout
   (``/home/user/app``), and ``python app.py`` starts there with the Hub's variables (``SYSTEM``,
   ``SPACE_ID``, ``GRADIO_SERVER_NAME``/``PORT``);
4. ``GET /`` must answer 200, and one real call goes through ``gradio_client`` in the Space's own
   environment (:mod:`eviscope.release.probe`): ``/compute`` on each metric Space, compared with
   the module loaded here; ``/browse`` and ``/submit`` on the browser Space;
5. each metric is loaded with ``evaluate.load("ORG/NAME")`` through evaluate's hub path, with
   ``HF_ENDPOINT`` pointed at a local server that serves the staged Space folders as the Hub's
   ``/spaces/ORG/NAME/resolve/main/FILE`` URLs.

Environments are cached under ``cache_dir`` keyed by the Python version, the requirements (the
package line with its extras, not its URL), the SDK and the package's own dependencies; a cached
environment gets the freshly built package reinstalled (``--no-deps``) before each check.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from huggingface_hub import SpaceCard
from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from eviscope import DISTRIBUTION
from eviscope.core.errors import EviScopeError
from eviscope.core.layout import SPLIT, split_path
from eviscope.core.registry import benchmarks
from eviscope.release.stage import Release, StagedRepo

HUB_DEFAULT_PYTHON = "3.10"
"""The Python a Space runs on when its card declares no ``python_version`` (Spaces config reference)."""

HUB_CHECKOUT = "app"
"""The Hub clones a Space into ``/home/user/app`` and runs ``python app.py`` there."""

START_TIMEOUT_S = 180
PROBE_TIMEOUT_S = 300
INSTALL_TIMEOUT_S = 1200

ENVIRONMENT_READY = ".eviscope-ready"
"""Written into a cached environment once its install finished; one without it is rebuilt."""

_OWN_MODULES = ("eviscope",)
"""Top-level packages a Space's own files must not shadow."""


@dataclass
class RuntimeReport:
    """What the runtime check found: problems (one line each, starting with the repo) and what ran."""

    problems: list[str] = field(default_factory=list)
    passed: list[str] = field(default_factory=list)
    """One line per check that passed: the Space, its Python, what answered."""


@dataclass(frozen=True)
class Runtime:
    """Where the check builds and caches: the package wheel, the environments, the scratch folder."""

    wheel: Path
    cache_dir: Path
    work_dir: Path
    log: Callable[[str], None] = lambda line: None


def default_cache_dir(environ: os._Environ[str] | dict[str, str] = os.environ) -> Path:
    """``$EVISCOPE_CACHE/space-envs``, else ``$XDG_CACHE_HOME/eviscope/space-envs``, else ``~/.cache/…``.

    >>> default_cache_dir({"EVISCOPE_CACHE": "/tmp/c"})
    PosixPath('/tmp/c/space-envs')
    """
    if environ.get("EVISCOPE_CACHE"):
        return Path(environ["EVISCOPE_CACHE"]) / "space-envs"
    base = Path(environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "eviscope" / "space-envs"


def build_wheel(root: Path, out_dir: Path) -> Path:
    """The package of the checkout ``root`` as a wheel in ``out_dir`` (what the Spaces install)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--quiet",
            "--wheel-dir",
            str(out_dir),
            str(root),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    wheels = sorted(out_dir.glob("eviscope-*.whl"))
    if done.returncode != 0 or not wheels:
        raise EviScopeError(f"building the package from {root} failed: {_last_line(done.stderr)}")
    return wheels[-1]


def wheel_metadata(wheel: Path) -> tuple[str, list[str]]:
    """The wheel's ``Requires-Python`` and its ``Requires-Dist`` lines (the cache key holds them)."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        text = archive.read(name).decode("utf-8")
    requires_python = re.search(r"^Requires-Python: (.+)$", text, flags=re.MULTILINE)
    return (
        requires_python.group(1).strip() if requires_python else "",
        re.findall(r"^Requires-Dist: (.+)$", text, flags=re.MULTILINE),
    )


def find_python(version: str) -> Path | None:
    """An interpreter of ``version`` (``3.12`` or ``3.12.1``) on this machine: ``pythonX.Y`` on
    ``PATH``, a pyenv version, or one uv manages; None when there is none."""
    major_minor = ".".join(version.split(".")[:2])
    candidates: list[Path] = []
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    if pyenv.is_dir():
        candidates += sorted(pyenv.glob(f"{version}*/bin/python{major_minor}"), reverse=True)
    for found in (shutil.which(f"python{major_minor}"), shutil.which("python3")):
        if found:
            candidates.append(Path(found))
    uv = shutil.which("uv")
    if uv:
        done = subprocess.run([uv, "python", "find", version], capture_output=True, text=True, check=False)
        if done.returncode == 0 and done.stdout.strip():
            candidates.append(Path(done.stdout.strip()))
    for candidate in candidates:
        found = _python_version(candidate)
        if found == version or found.startswith(version + "."):
            return candidate
    return None


def _python_version(python: Path) -> str:
    try:
        done = subprocess.run(
            [str(python), "-c", "import platform; print(platform.python_version())"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def space_requirements(repo: StagedRepo, card: SpaceCard, wheel: Path) -> tuple[list[str], list[str]]:
    """What the Hub would install for ``repo``: its requirement lines with the package's URL replaced
    by ``wheel``, then the card's Gradio SDK. Also the same lines with the wheel's path left out
    (the cache key)."""
    lines, keyed = [], []
    for line in (repo.folder / "requirements.txt").read_text(encoding="utf-8").splitlines():
        text = re.split(r"(?:^|\s)#", line, maxsplit=1)[0].strip()
        if not text:
            continue
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            lines.append(text)
            keyed.append(text)
            continue
        if canonicalize_name(requirement.name) == DISTRIBUTION:
            extras = f"[{','.join(sorted(requirement.extras))}]" if requirement.extras else ""
            lines.append(f"eviscope{extras} @ {wheel.resolve().as_uri()}")
            keyed.append(f"eviscope{extras} @ LOCAL")
        else:
            lines.append(text)
            keyed.append(text)
    if card.data.get("sdk") == "gradio" and card.data.get("sdk_version"):
        sdk = f"gradio[oauth]=={card.data['sdk_version']}"
        lines.append(sdk)
        keyed.append(sdk)
    return lines, keyed


def check_runtime(release: Release, runtime: Runtime) -> RuntimeReport:
    """Start every staged Space of ``release`` as the Hub would and call it; load every metric
    through evaluate's hub path."""
    report = RuntimeReport()
    inputs = _metric_inputs(release, runtime.work_dir)
    with _staged_hub(release) as endpoint:
        for repo in release.repos:
            if repo.repo_type != "space":
                continue
            try:
                lines = _check_space(repo, release, runtime, inputs, endpoint)
            except _SpaceProblem as problem:
                report.problems.append(f"{repo.label}/{problem}")
            else:
                report.passed += lines
    return report


class _SpaceProblem(Exception):
    """One problem with a Space; its text starts with the file at fault."""


def _check_space(
    repo: StagedRepo,
    release: Release,
    runtime: Runtime,
    inputs: dict[str, Path],
    endpoint: str,
) -> list[str]:
    card = SpaceCard.load(repo.folder / "README.md")
    declared = str(card.data.get("python_version") or "")
    python_version = declared or HUB_DEFAULT_PYTHON
    python = find_python(python_version)
    if python is None:
        raise _SpaceProblem(
            f"README.md: python_version {python_version}"
            + ("" if declared else " (the Hub's default: the card declares none)")
            + " is not installed on this machine, so the Space cannot be started as the Hub would "
            "(install it, e.g. with pyenv or uv)"
        )
    version = _python_version(python)
    lines, keyed = space_requirements(repo, card, runtime.wheel)
    requires_python = wheel_metadata(runtime.wheel)[0]
    try:
        if requires_python and Version(version) not in SpecifierSet(requires_python):
            # pip refuses the same way, but only after resolving everything else (minutes)
            raise _SpaceProblem(
                "requirements.txt: pip would refuse it: Package 'eviscope' requires a different Python: "
                f"{version} not in {requires_python!r}"
            )
        venv = _environment(python, version, lines, keyed, runtime)
        runtime.log(f"starting {repo.label} (Python {version}) as the Hub would")
        return _start_and_call(repo, release, runtime, inputs, endpoint, venv, version)
    except _SpaceProblem as problem:
        hints = (
            []
            if declared
            else [f"README.md declares no python_version, so the Hub runs Python {HUB_DEFAULT_PYTHON}"]
        )
        hints += _shadowing(repo)
        raise _SpaceProblem(f"{problem}" + "".join(f" ({hint})" for hint in hints)) from None


def _start_and_call(
    repo: StagedRepo,
    release: Release,
    runtime: Runtime,
    inputs: dict[str, Path],
    endpoint: str,
    venv: Path,
    version: str,
) -> list[str]:
    home = runtime.work_dir / repo.repo_id.replace("/", "--")
    app = home / HUB_CHECKOUT
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(repo.folder, app)
    port = _free_port()
    env = _space_env(venv, repo, port, home)
    if repo.kind == "browser":
        env["EVISCOPE_SPACE_DATASET"] = str(release.repo("benchmark").folder.resolve())
        env["EVISCOPE_SPACE_RESULTS_REPO"] = ""
        env["EVISCOPE_SPACE_RESULTS"] = str(home / "results")
    passed = []
    with _running(venv, app, env, port) as url:
        passed.append(f"{repo.label}: Python {version}, GET / 200")
        if repo.kind == "metric":
            result = _probe(venv, env, ["compute", url, str(inputs[repo.repo_id])], repo, "/compute")
            _same(result, _expected(repo, inputs[repo.repo_id]), "/compute")
            passed.append(f"{repo.label}: /compute through gradio_client equals the staged module")
        else:
            passed.append(_check_browser(venv, env, url, repo, release, runtime))
    if repo.kind == "metric":
        hub_env = {**env, "HF_ENDPOINT": endpoint}
        hub_env.pop("HF_HUB_OFFLINE", None)
        load = f'evaluate.load("{repo.repo_id}")'
        result = _probe(venv, hub_env, ["hub-load", repo.repo_id, str(inputs[repo.repo_id])], repo, load)
        _same(result, _expected(repo, inputs[repo.repo_id]), load)
        passed.append(f"{repo.label}: {load} through evaluate's hub path computes the same")
    return passed


def _shadowing(repo: StagedRepo) -> list[str]:
    """Files of the Space that shadow a package it imports (its folder comes first on ``sys.path``)."""
    return [
        f"{path.name} shadows the {path.stem} package; rename it"
        for path in sorted(repo.folder.iterdir())
        if (path.stem if path.suffix == ".py" else path.name) in _OWN_MODULES
    ]


def _environment(python: Path, version: str, lines: list[str], keyed: list[str], runtime: Runtime) -> Path:
    dependencies = wheel_metadata(runtime.wheel)[1]
    key = hashlib.sha256(json.dumps([version, keyed, sorted(dependencies)]).encode()).hexdigest()[:16]
    venv = runtime.cache_dir / f"py{version}-{key}"
    pip = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check"]
    if not (venv / ENVIRONMENT_READY).is_file():
        shutil.rmtree(venv, ignore_errors=True)
        runtime.log(f"creating a Python {version} environment for {len(lines)} requirements in {venv}")
        _run([str(python), "-m", "venv", str(venv)], "creating the virtual environment")
        requirements = venv / "requirements.txt"
        requirements.write_text("\n".join(lines) + "\n", encoding="utf-8")
        _run([*pip, "install", "--quiet", "-r", str(requirements)], "pip install -r requirements.txt")
        (venv / ENVIRONMENT_READY).write_text("\n".join(keyed) + "\n", encoding="utf-8")
    else:
        runtime.log(f"reusing the Python {version} environment {venv}")
    _run(
        [*pip, "install", "--quiet", "--no-deps", "--force-reinstall", str(runtime.wheel)],
        "installing the package built from the checkout",
    )
    return venv


def _run(command: list[str], what: str) -> None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise _SpaceProblem(f"requirements.txt: {what} took over {INSTALL_TIMEOUT_S} s") from None
    if done.returncode != 0:
        raise _SpaceProblem(f"requirements.txt: {what} failed: {_last_line(done.stderr or done.stdout)}")


def _last_line(text: str) -> str:
    """The last line that says something (pip's error), without its ``ERROR:`` prefix."""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("WARNING")]
    return re.sub(r"^ERROR: ", "", lines[-1]) if lines else "no output"


def _space_env(venv: Path, repo: StagedRepo, port: int, home: Path) -> dict[str, str]:
    """The variables a Space starts with (a clean set: nothing of this process's environment leaks in)."""
    return {
        "PATH": f"{venv / 'bin'}{os.pathsep}/usr/local/bin{os.pathsep}/usr/bin{os.pathsep}/bin",
        "HOME": str(home),
        "HF_HOME": str(home / "hf"),
        "LANG": "C.UTF-8",
        "SYSTEM": "spaces",
        "SPACE_ID": repo.repo_id,
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "GRADIO_SERVER_PORT": str(port),
        "GRADIO_ANALYTICS_ENABLED": "False",
        "HF_HUB_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "MPLBACKEND": "Agg",
        "PYTHONUNBUFFERED": "1",
    }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def _running(venv: Path, app: Path, env: dict[str, str], port: int) -> Iterator[str]:
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
                raise _SpaceProblem(f"app.py: exited with {process.returncode}: {_last_error(log)}")
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    if response.status == 200:
                        break
            except urllib.error.HTTPError as err:
                raise _SpaceProblem(f"app.py: GET / answered {err.code}: {_last_error(log)}") from None
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise _SpaceProblem(
                    f"app.py: no answer on GET / within {START_TIMEOUT_S} s: {_last_error(log)}"
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


def _last_error(log: Path) -> str:
    """The Space log's last line that names an error (else its last line)."""
    lines = [
        line.strip()
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines()
        if line.strip()
    ]
    errors = [line for line in lines if re.match(r"^\w*(Error|Exception)\b", line)]
    return (errors or lines or ["no output"])[-1][:300]


def _probe(venv: Path, env: dict[str, str], args: list[str], repo: StagedRepo, what: str) -> Any:
    scratch = Path(env["HOME"]) / "probe"
    scratch.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(
            [str(venv / "bin" / "python"), "-m", "eviscope.release.probe", *args],
            cwd=scratch,
            env=env,
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise _SpaceProblem(f"app.py: {what} took over {PROBE_TIMEOUT_S} s") from None
    if done.returncode != 0:
        file = f"{repo.repo_id.split('/')[1]}.py" if what == "hub load" else "app.py"
        raise _SpaceProblem(f"{file}: {what} failed: {_last_error_text(done.stderr)}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _last_error_text(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if re.match(r"^[\w.]*(Error|Exception)\b", line)]
    return (errors or lines or ["no output"])[-1][:300]


def _metric_inputs(release: Release, work_dir: Path) -> dict[str, Path]:
    """One input file per metric Space: predictions and references from the staged data."""
    import pyarrow.parquet as pq

    staged = release.repo("benchmark").folder
    by_folder = {b.metric.folder: (b, b.metric) for b in benchmarks() if b.metric is not None}
    work_dir.mkdir(parents=True, exist_ok=True)
    inputs = {}
    for repo in release.repos:
        if repo.kind != "metric":
            continue
        bench, metric = by_folder[repo.folder.name]
        rows = pq.read_table(split_path(staged, metric.config)).to_pylist()
        example = bench.metric_example(rows)
        predictions, references = example["predictions"], example["references"]
        path = work_dir / f"{repo.repo_id.replace('/', '--')}-inputs.json"
        path.write_text(json.dumps({"predictions": predictions, "references": references}), encoding="utf-8")
        inputs[repo.repo_id] = path
    return inputs


def _expected(repo: StagedRepo, inputs: Path) -> Any:
    """What the staged module computes on ``inputs`` in this process, as JSON would carry it."""
    import evaluate

    module_file = next(p for p in repo.folder.glob("*.py") if p.name != "app.py")
    document = json.loads(inputs.read_text(encoding="utf-8"))
    result = evaluate.load(str(module_file)).compute(
        predictions=document["predictions"], references=document["references"]
    )
    return json.loads(json.dumps(result))


def _same(got: Any, expected: Any, what: str) -> None:
    if got != expected:
        differing = sorted(k for k in expected if got.get(k) != expected[k]) if isinstance(got, dict) else []
        raise _SpaceProblem(
            f"app.py: {what} differs from the staged module computed here"
            + (f" ({', '.join(differing[:5])})" if differing else "")
        )


def _check_browser(
    venv: Path, env: dict[str, str], url: str, repo: StagedRepo, release: Release, runtime: Runtime
) -> str:
    import pyarrow.parquet as pq

    from eviscope.suites.eviscope.reference_systems import oracle

    config = "eviscope-v1.1"
    rows = pq.read_table(release.repo("benchmark").folder / "data" / config / f"{SPLIT}.parquet").to_pylist()
    predictions = runtime.work_dir / "browser-oracle.jsonl"
    predictions.write_text("".join(json.dumps(p) + "\n" for p in oracle(rows)), encoding="utf-8")
    result = _probe(venv, env, ["browser", url, config, str(predictions)], repo, "/browse and /submit")
    if result["browse_rows"] != len(rows):
        raise _SpaceProblem(
            f"app.py: /browse showed {result['browse_rows']} rows of {config}, the staged data has {len(rows)}"
        )
    if not str(result["submit_status"]).startswith("Recorded"):
        raise _SpaceProblem(f"app.py: /submit did not record the oracle: {result['submit_status']}")
    return f"{repo.label}: /browse shows {len(rows)} rows of {config}; /submit recorded the oracle"


class _StagedHubHandler(http.server.SimpleHTTPRequestHandler):
    """Serves ``/spaces/ORG/NAME/resolve/main/FILE`` from the staged Space folders (404 otherwise)."""

    spaces: dict[str, Path] = {}  # noqa: RUF012  (set per server class below)

    def translate_path(self, path: str) -> str:
        match = re.fullmatch(r"/spaces/([^/]+/[^/]+)/resolve/main/([^?#]+)(?:[?#].*)?", path)
        folder = self.spaces.get(match.group(1)) if match else None
        if folder is None or ".." in match.group(2).split("/"):
            return str(Path("/nonexistent") / "missing")
        return str(folder / match.group(2))

    def log_message(self, format: str, *args: Any) -> None:
        return


@contextmanager
def _staged_hub(release: Release) -> Iterator[str]:
    """A local server that answers evaluate's hub URLs for the staged Spaces; yields its endpoint."""
    handler = type(
        "Handler",
        (_StagedHubHandler,),
        {
            "spaces": {
                repo.repo_id: repo.folder.resolve() for repo in release.repos if repo.repo_type == "space"
            }
        },
    )
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
