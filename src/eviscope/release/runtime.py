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

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from huggingface_hub import SpaceCard
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from eviscope.core.layout import split_path
from eviscope.core.registry import DEFAULT_CONFIG, benchmarks, for_config
from eviscope.release.environments import (
    HUB_DEFAULT_PYTHON,
    environment,
    find_python,
    python_version,
    space_requirements,
    wheel_metadata,
)
from eviscope.release.fake_hub import staged_hub
from eviscope.release.processes import SpaceProblem, free_port, last_error, running
from eviscope.release.stage import Release, StagedRepo

HUB_CHECKOUT = "app"
"""The Hub clones a Space into ``/home/user/app`` and runs ``python app.py`` there."""

PROBE_TIMEOUT_S = 300


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


def check_runtime(release: Release, runtime: Runtime) -> RuntimeReport:
    """Start every staged Space of ``release`` as the Hub would and call it; load every metric
    through evaluate's hub path."""
    report = RuntimeReport()
    inputs = _metric_inputs(release, runtime.work_dir)
    with staged_hub(release) as endpoint:
        for repo in release.repos:
            if repo.repo_type != "space":
                continue
            try:
                lines = _check_space(repo, release, runtime, inputs, endpoint)
            except SpaceProblem as problem:
                report.problems.append(f"{repo.label}/{problem}")
            else:
                report.passed += lines
    return report


def _check_space(
    repo: StagedRepo,
    release: Release,
    runtime: Runtime,
    inputs: dict[str, Path],
    endpoint: str,
) -> list[str]:
    card = SpaceCard.load(repo.folder / "README.md")
    declared = str(card.data.get("python_version") or "")
    wanted = declared or HUB_DEFAULT_PYTHON
    python = find_python(wanted)
    if python is None:
        raise SpaceProblem(
            f"README.md: python_version {wanted}"
            + ("" if declared else " (the Hub's default: the card declares none)")
            + " is not installed on this machine, so the Space cannot be started as the Hub would "
            "(install it, e.g. with pyenv or uv)"
        )
    version = python_version(python)
    lines, keyed = space_requirements(repo, card, runtime.wheel)
    requires_python = wheel_metadata(runtime.wheel)[0]
    try:
        if requires_python and Version(version) not in SpecifierSet(requires_python):
            # pip refuses the same way, but only after resolving everything else (minutes)
            raise SpaceProblem(
                "requirements.txt: pip would refuse it: Package 'eviscope' requires a different Python: "
                f"{version} not in {requires_python!r}"
            )
        venv = environment(python, version, lines, keyed, runtime.wheel, runtime.cache_dir, runtime.log)
        runtime.log(f"starting {repo.label} (Python {version}) as the Hub would")
        return _start_and_call(repo, release, runtime, inputs, endpoint, venv, version)
    except SpaceProblem as problem:
        hints = (
            []
            if declared
            else [f"README.md declares no python_version, so the Hub runs Python {HUB_DEFAULT_PYTHON}"]
        )
        hints += _shadowing(repo)
        raise SpaceProblem(f"{problem}" + "".join(f" ({hint})" for hint in hints)) from None


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
    port = free_port()
    env = _space_env(venv, repo, port, home)
    if repo.kind == "browser":
        env["EVISCOPE_SPACE_DATASET"] = str(release.repo("benchmark").folder.resolve())
        env["EVISCOPE_SPACE_RESULTS_REPO"] = ""
        env["EVISCOPE_SPACE_RESULTS"] = str(home / "results")
    passed = []
    with running(venv, app, env, port) as url:
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
        raise SpaceProblem(f"app.py: {what} took over {PROBE_TIMEOUT_S} s") from None
    if done.returncode != 0:
        file = f"{repo.repo_id.split('/')[1]}.py" if what == "hub load" else "app.py"
        raise SpaceProblem(f"{file}: {what} failed: {last_error(done.stderr)}")
    return json.loads(done.stdout.strip().splitlines()[-1])


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
        raise SpaceProblem(
            f"app.py: {what} differs from the staged module computed here"
            + (f" ({', '.join(differing[:5])})" if differing else "")
        )


def _check_browser(
    venv: Path, env: dict[str, str], url: str, repo: StagedRepo, release: Release, runtime: Runtime
) -> str:
    """``/browse`` shows every staged row of the default config and ``/submit`` records its benchmark's
    example predictions (:meth:`~eviscope.core.registry.Benchmark.metric_example`)."""
    import pyarrow.parquet as pq

    config = DEFAULT_CONFIG
    rows = pq.read_table(split_path(release.repo("benchmark").folder, config)).to_pylist()
    predictions = runtime.work_dir / "browser-example.jsonl"
    example = for_config(config).metric_example(rows)["predictions"]
    predictions.write_text("".join(json.dumps(p) + "\n" for p in example), encoding="utf-8")
    result = _probe(venv, env, ["browser", url, config, str(predictions)], repo, "/browse and /submit")
    if result["browse_rows"] != len(rows):
        raise SpaceProblem(
            f"app.py: /browse showed {result['browse_rows']} rows of {config}, the staged data has {len(rows)}"
        )
    if not str(result["submit_status"]).startswith("Recorded"):
        raise SpaceProblem(
            f"app.py: /submit did not record the example predictions: {result['submit_status']}"
        )
    return (
        f"{repo.label}: /browse shows {len(rows)} rows of {config}; /submit recorded the example predictions"
    )
