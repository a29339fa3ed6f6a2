"""The Hub's evaluation-results formats: the benchmark's ``eval.yaml`` and a model's ``.eval_results/*.yaml``.

Both follow the Hub's documentation, https://huggingface.co/docs/hub/eval-results ("Registering a
Benchmark" and "Adding Evaluation Results"):

- ``eval.yaml`` at the root of the benchmark dataset repo holds ``name``, ``description``,
  ``evaluation_framework`` (the id of the evaluation framework or harness) and ``tasks``, each task
  an ``id``, an optional dataset ``config`` and a ``split``. :class:`EvalYaml` is that schema (no
  other key is allowed); the staged file is written from it and checked against it.
- ``.eval_results/*.yaml`` in a model repo is a list of results, each naming the benchmark
  (``dataset.id``) and one of its tasks (``dataset.task_id``) with a ``value``. They are written and
  read here with huggingface_hub's own ``EvalResultEntry``, ``eval_result_entries_to_yaml`` and
  ``parse_eval_result_entries``.

Each task is one leaderboard on the benchmark's page: each benchmark's ``hub_tasks``
(:class:`~eviscope.core.registry.HubTask`) say which config and which headline metric it ranks.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from huggingface_hub import EvalResultEntry, eval_result_entries_to_yaml, parse_eval_result_entries
from pydantic import BaseModel, ConfigDict, ValidationError

from eviscope import __version__
from eviscope.core.errors import EviScopeError, first_line, os_error
from eviscope.core.layout import SPLIT
from eviscope.core.registry import HubTask, benchmarks, for_config

EVAL_RESULTS_DOC = "https://huggingface.co/docs/hub/eval-results"

EVALUATION_FRAMEWORK = "eviscope"
"""The ``evaluation_framework`` id of ``eval.yaml``: the suite itself (its CLI and metric Spaces). The
Hub knows a framework once it is added to ``EVALUATION_FRAMEWORKS`` in huggingface.js
(``packages/tasks/src/eval.ts``) by a pull request; docs/release.md says how."""

RESULTS_FOLDER = ".eval_results"


def tasks() -> list[HubTask]:
    """Every benchmark's leaderboard tasks, in registry order."""
    return [task for bench in benchmarks() for task in bench.hub_tasks]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class EvalTask(_Strict):
    """A task of ``eval.yaml``: ``id``, optional ``config``, ``split``."""

    id: str
    config: str | None = None
    split: str


class EvalYaml(_Strict):
    """``eval.yaml`` as the Hub's documentation describes it (see the module docstring)."""

    name: str
    description: str
    evaluation_framework: str
    tasks: list[EvalTask]


def eval_yaml(configs: Iterable[str], description: str) -> str:
    """The benchmark's ``eval.yaml``: one task per leaderboard whose config is released."""
    configs = set(configs)
    document = EvalYaml(
        name="EviScope",
        description=description,
        evaluation_framework=EVALUATION_FRAMEWORK,
        tasks=[EvalTask(id=t.id, config=t.config, split=SPLIT) for t in tasks() if t.config in configs],
    )
    return yaml.safe_dump(
        document.model_dump(exclude_none=True), sort_keys=False, allow_unicode=True, width=100
    )


def eval_yaml_problems(text: str) -> list[str]:
    """Why ``text`` is not an ``eval.yaml`` of the documented schema (empty when it is).

    >>> eval_yaml_problems("name: X\\ndescription: Y\\nevaluation_framework: eviscope\\ntasks:\\n- {id: a, split: test}\\n")
    []
    >>> eval_yaml_problems("name: X\\ndescription: Y\\ntasks:\\n- {id: a, name: A, split: test}\\n")
    ['eval.yaml: evaluation_framework: Field required', 'eval.yaml: tasks.0.name: Extra inputs are not permitted']
    """
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as err:
        return [f"eval.yaml: not YAML: {first_line(err)}"]
    try:
        parsed = EvalYaml.model_validate(document)
    except ValidationError as err:
        return [
            f"eval.yaml: {'.'.join(str(part) for part in error['loc']) or 'document'}: {error['msg']}"
            for error in err.errors()
        ]
    ids = [task.id for task in parsed.tasks]
    problems = [] if ids else ["eval.yaml: no tasks"]
    return problems + [
        f"eval.yaml: task id {i!r} appears twice" for i in sorted(set(ids)) if ids.count(i) > 1
    ]


# --- A model's results --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExportedFile:
    """One ``.eval_results`` file: its path in the model repo, its text and what it holds."""

    path_in_repo: str
    text: str
    entries: tuple[EvalResultEntry, ...]


def run_results(run_dir: Path, benchmark: str, dataset_dir: Path) -> list[ExportedFile]:
    """The headline metrics of the finished run in ``run_dir``, scored against ``dataset_dir``, as
    ``.eval_results`` files for the benchmark dataset repo ``benchmark`` (one file per task)."""
    manifest = _manifest(run_dir)
    config = manifest.get("config")
    run_tasks = [task for task in tasks() if task.config == config]
    if not run_tasks:
        known = ", ".join(sorted({t.config for t in tasks()}))
        raise EviScopeError(
            f"{run_dir}/manifest.json: config {config!r} has no leaderboard task (tasks: {known})"
        )
    values = _headline_metrics(run_dir / "predictions.jsonl", config, dataset_dir)
    setup = [manifest.get(k) for k in ("policy", "judge") if manifest.get(k)]
    notes = ", ".join(
        [*(f"{s}" for s in setup), f"eviscope {manifest.get('eviscope_version') or __version__}"]
    )
    suffix = "".join(f"_{s}" for s in setup)
    files = []
    for task in run_tasks:
        entry = EvalResultEntry(
            dataset_id=benchmark,
            task_id=task.id,
            value=round(float(values[task.metric]), 6),
            date=manifest.get("finished_at"),
            notes=notes,
        )
        text = yaml.safe_dump(eval_result_entries_to_yaml([entry]), sort_keys=False, allow_unicode=True)
        files.append(ExportedFile(f"{RESULTS_FOLDER}/eviscope_{task.id}{suffix}.yaml", text, (entry,)))
    return files


def write_results(files: Iterable[ExportedFile], out_dir: Path) -> list[Path]:
    """Write ``files`` under ``out_dir`` (``out_dir/.eval_results/…``); returns their paths."""
    written = []
    for exported in files:
        path = out_dir / exported.path_in_repo
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(exported.text, encoding="utf-8")
        except OSError as err:
            raise os_error(path, err) from None
        written.append(path)
    return written


def push_results(
    files: Iterable[ExportedFile], model_repo: str, *, create_pr: bool, endpoint: str | None
) -> str:
    """Commit ``files`` to the model repo ``model_repo`` (a pull request with ``create_pr``), with
    huggingface_hub's login token; returns the commit's or pull request's URL."""
    from huggingface_hub import CommitOperationAdd, HfApi, get_token
    from huggingface_hub.errors import HfHubHTTPError

    if get_token() is None:
        raise EviScopeError("not logged in to the hub: run `hf auth login` or set HF_TOKEN")
    operations = [CommitOperationAdd(f.path_in_repo, f.text.encode("utf-8")) for f in files]
    try:
        info = HfApi(endpoint=endpoint).create_commit(
            model_repo,
            operations,
            repo_type="model",
            commit_message="Add EviScope evaluation results",
            commit_description=f"Written by `eviscope results export` ({EVAL_RESULTS_DOC}).",
            create_pr=create_pr,
        )
    except (HfHubHTTPError, OSError, ValueError) as err:
        message = first_line(err)
        raise EviScopeError(f"{model_repo}: push failed: {message}") from None
    return info.pr_url or info.commit_url


def read_results(text: str) -> list[EvalResultEntry]:
    """The entries of one ``.eval_results`` file, read with huggingface_hub's parser."""
    data = yaml.safe_load(text)
    if not isinstance(data, list):
        raise EviScopeError("an .eval_results file holds a YAML list of results")
    return parse_eval_result_entries(data)


def _manifest(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "manifest.json"
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EviScopeError(f"{path}: no manifest; --run must be a folder `eviscope run` wrote") from None
    except (OSError, json.JSONDecodeError) as err:
        raise EviScopeError(f"{path}: not readable: {err}") from None
    if manifest.get("status") != "complete":
        raise EviScopeError(
            f"{path}: the run is {manifest.get('status')!r}, not complete; finish it (rerun the same "
            "`eviscope run` command) before exporting"
        )
    return manifest


def _headline_metrics(predictions: Path, config: str, dataset_dir: Path) -> dict[str, Any]:
    """Every overall metric of the run, as its benchmark's scoring names them."""
    bench = for_config(config)
    return bench.score(config, bench.load_rows(config, dataset_dir), predictions, None).metrics
