"""Staging: one folder per hub repository of the release, written from the checkout and the built data.

For a namespace ``ORG`` the release is five repositories, staged under ``STAGE/<type>s/<name>``:

- ``datasets/ORG/eviscope``: the dataset card (restricted to releasable configs), the Parquet data of
  every releasable config, and ``eval.yaml``, which registers the dataset as a hub benchmark;
- ``spaces/ORG/eviscope_metric`` and ``spaces/ORG/forcebench``: the metric modules as metric Spaces, so
  that ``evaluate.load("ORG/eviscope_metric")`` finds ``eviscope_metric.py``;
- ``spaces/ORG/eviscope-browser``: the Gradio Space, set to read ``ORG/eviscope`` and to record
  results in ``ORG/eviscope-results``;
- ``datasets/ORG/eviscope-results``: the results repository the Space writes to (its card).

Every ``requirements.txt`` names the released package as ``eviscope[space] @ PACKAGE_SPEC``; every Space
card declares its ``python_version`` and ``sdk_version`` (checked by :mod:`eviscope.release.runtime`).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from huggingface_hub import DatasetCard, DatasetCardData, SpaceCard
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from eviscope import DISTRIBUTION, __version__
from eviscope.core.errors import EviScopeError
from eviscope.core.layout import split_path
from eviscope.core.registry import benchmarks
from eviscope.release.eval_results import eval_yaml

DATASET_NAME = "eviscope"
RESULTS_NAME = "eviscope-results"
BROWSER_NAME = "eviscope-browser"


def metrics() -> list[str]:
    """Each benchmark's metric folder under ``metrics/`` (its :class:`~eviscope.core.registry.Metric`);
    each becomes the metric Space of the same name, loaded with ``evaluate.load("ORG/NAME")``. The
    module file is named after the folder (evaluate's rule), and ``eviscope_metric.py`` rather than
    ``eviscope.py``: a Space's folder comes first on ``sys.path``, so a file named ``eviscope.py``
    would shadow the package it scores with."""
    return [b.metric.folder for b in benchmarks() if b.metric is not None]


MANIFEST = "release.json"
"""Beside the repo folders: marks the folder as a stage, and holds the plan once validated."""

_LOCAL_LOAD = re.compile(r'(load_dataset\()"dataset"(,[^\n]*\))[ \t]*(?:#[^\n]*)?')
"""The card's usage example on the local folder (and its comment), which becomes the hub repo id."""

_BENCHMARK_DESCRIPTION = (
    "Paired counterfactual evidence diagnostics for grounded question answering: each SQuAD question "
    "is shown with sufficient, noisy, insufficient and conflicting evidence, and a grounded system must "
    "answer citing the support, abstain, or flag the conflict. ForceBench pairs test whether citation "
    "evaluators notice a claim that says more than its cited passage. Score with the metric Spaces "
    "{metrics}."
)

_RESULTS_BODY = """
# EviScope results

Submissions recorded by the EviScope Space [{browser}](https://huggingface.co/spaces/{browser}) on the
benchmark [{dataset}](https://huggingface.co/datasets/{dataset}): one JSON file per submission,
`<config>/<submission id>.json`, holding the config, the system name, the time, every metric, and
the validated predictions (kept for paired comparisons). Each submission is one commit.

Predictions quote passages of the benchmark, which are CC BY-SA 4.0 (SQuAD, from Wikipedia); the
results keep that licence.
"""


@dataclass(frozen=True)
class StagedRepo:
    """One hub repository staged in ``folder``."""

    repo_id: str
    repo_type: str
    """``dataset`` or ``space``."""
    kind: str
    """``benchmark``, ``metric``, ``browser`` or ``results``: which checks apply."""
    folder: Path
    space_sdk: str | None = None

    @property
    def label(self) -> str:
        """The repository as the hub's URLs name it: ``datasets/ORG/eviscope``."""
        return f"{self.repo_type}s/{self.repo_id}"


@dataclass(frozen=True)
class Release:
    """Every staged repository of one namespace, and the dataset configs released."""

    namespace: str
    stage_dir: Path
    repos: tuple[StagedRepo, ...]
    configs: tuple[str, ...]

    def repo(self, kind: str) -> StagedRepo:
        """The first staged repository of ``kind``."""
        return next(repo for repo in self.repos if repo.kind == kind)


def default_package_spec(namespace: str) -> str:
    """Where the Spaces install the package from unless told: the tag of this version on GitHub.

    >>> default_package_spec("acme")
    'git+https://github.com/acme/eviscope@v0.1.0'
    """
    return f"git+https://github.com/{namespace}/eviscope@v{__version__}"


def requirement_line(package_spec: str, extras: str = "") -> str:
    """The requirement that installs the released package, e.g. ``eviscope[space] @ git+https://…``.

    >>> requirement_line("git+https://github.com/acme/eviscope@v0.1.0", "space")
    'eviscope[space] @ git+https://github.com/acme/eviscope@v0.1.0'
    """
    line = f"eviscope{f'[{extras}]' if extras else ''} @ {package_spec}"
    try:
        requirement = Requirement(line)
    except InvalidRequirement as err:
        raise EviScopeError(f"--package-spec {package_spec!r} is not a URL pip can install: {err}") from None
    if not requirement.url:
        raise EviScopeError(f"--package-spec {package_spec!r} is not a URL pip can install")
    return line


def stage_release(
    namespace: str,
    *,
    source_root: Path,
    dataset_dir: Path,
    stage_dir: Path,
    configs: Iterable[str],
    package_spec: str,
) -> Release:
    """Write every repository of the release under ``stage_dir`` (emptied first) and describe them.

    The repositories come in push order: the datasets before the Spaces that read them.

    ``source_root`` is the checkout whose ``metrics/`` and ``spaces/eviscope/`` are released;
    ``dataset_dir`` the folder ``eviscope build`` wrote; ``configs`` the releasable configs.
    """
    configs = tuple(configs)
    _check_namespace(namespace)
    requirement_line(package_spec)  # refuse a spec pip cannot install before writing anything
    _prepare(stage_dir)
    (stage_dir / MANIFEST).write_text(
        json.dumps({"namespace": namespace, "version": __version__, "package_spec": package_spec}) + "\n",
        encoding="utf-8",
    )
    dataset_id = f"{namespace}/{DATASET_NAME}"
    results_id = f"{namespace}/{RESULTS_NAME}"
    names = metrics()
    metric_ids = [f"{namespace}/{name}" for name in names]

    benchmark = StagedRepo(dataset_id, "dataset", "benchmark", stage_dir / "datasets" / DATASET_NAME)
    _stage_dataset(benchmark.folder, dataset_dir, configs, dataset_id, metric_ids)
    browser_id = f"{namespace}/{BROWSER_NAME}"
    results = StagedRepo(results_id, "dataset", "results", stage_dir / "datasets" / RESULTS_NAME)
    _stage_results(results.folder, dataset_id, browser_id)
    repos = [benchmark, results]
    for name, repo_id in zip(names, metric_ids, strict=True):
        repo = StagedRepo(repo_id, "space", "metric", stage_dir / "spaces" / name, space_sdk="gradio")
        _stage_metric(repo.folder, source_root / "metrics" / name, package_spec)
        repos.append(repo)
    browser = StagedRepo(browser_id, "space", "browser", stage_dir / "spaces" / BROWSER_NAME, "gradio")
    _stage_browser(browser.folder, source_root / "spaces" / "eviscope", dataset_id, results_id, package_spec)
    repos.append(browser)
    return Release(namespace, stage_dir, tuple(repos), configs)


def _check_namespace(namespace: str) -> None:
    if not re.fullmatch(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?", namespace):
        raise EviScopeError(f"--namespace {namespace!r} is not a hub user or organization name")


def _prepare(stage_dir: Path) -> None:
    """Empty ``stage_dir`` when it is a previous stage (or empty); refuse any other folder."""
    if stage_dir.exists():
        if any(stage_dir.iterdir()) and not (stage_dir / MANIFEST).is_file():
            raise EviScopeError(
                f"{stage_dir} is not empty and holds no {MANIFEST}: choose a new --stage folder"
            )
        shutil.rmtree(stage_dir)
    stage_dir.mkdir(parents=True)


def _stage_dataset(
    folder: Path, dataset_dir: Path, configs: tuple[str, ...], dataset_id: str, metric_ids: list[str]
) -> None:
    card_path = dataset_dir / "README.md"
    if not card_path.is_file():
        raise EviScopeError(f"{card_path}: no dataset card; run `eviscope build` first")
    missing = [c for c in configs if not split_path(dataset_dir, c).is_file()]
    if missing:
        raise EviScopeError(
            f"{dataset_dir}: no built data for {', '.join(missing)}; run: eviscope build {' '.join(missing)}"
        )
    card = DatasetCard.load(card_path)
    for key in ("configs", "dataset_info", "provenance"):
        entries = card.data.get(key) or []
        card.data[key] = [entry for entry in entries if entry.get("config_name") in configs]
    card.text = _LOCAL_LOAD.sub(rf'\1"{dataset_id}"\2', card.text)
    folder.mkdir(parents=True)
    (folder / "README.md").write_text(str(card), encoding="utf-8")
    for config in configs:
        target = split_path(folder, config)
        target.parent.mkdir(parents=True)
        shutil.copyfile(split_path(dataset_dir, config), target)
    description = _BENCHMARK_DESCRIPTION.format(metrics=" and ".join(metric_ids))
    (folder / "eval.yaml").write_text(eval_yaml(configs, description), encoding="utf-8")


def _stage_metric(folder: Path, source: Path, package_spec: str) -> None:
    if not (source / f"{source.name}.py").is_file():
        raise EviScopeError(f"{source}: no metric module {source.name}.py; run from the repository root")
    _copy_tree(source, folder, skip={"requirements.txt"})
    requirements = _requirements(source / "requirements.txt", package_spec, extras="space")
    (folder / "requirements.txt").write_text(requirements, encoding="utf-8")


def _stage_browser(folder: Path, source: Path, dataset_id: str, results_id: str, package_spec: str) -> None:
    if not (source / "app.py").is_file():
        raise EviScopeError(f"{source}: no app.py; run from the repository root")
    folder.mkdir(parents=True)
    card = SpaceCard.load(source / "README.md")
    card.data["datasets"] = [dataset_id, results_id]
    (folder / "README.md").write_text(str(card), encoding="utf-8")
    shutil.copyfile(source / "app.py", folder / "eviscope_space.py")
    (folder / "app.py").write_text(_launcher(dataset_id, results_id), encoding="utf-8")
    requirements = _requirements(source / "requirements.txt", package_spec, extras="space")
    (folder / "requirements.txt").write_text(requirements, encoding="utf-8")


def _launcher(dataset_id: str, results_id: str) -> str:
    """The browser Space's ``app.py``: the repository's app, defaulting to the released repos."""
    return f'''"""The EviScope Space as released: rows from {dataset_id}, results in {results_id}.

Written by ``eviscope release``. Space variables of the same names override these defaults; recording
results needs an ``HF_TOKEN`` secret that may write to {results_id}.
"""

import os

os.environ.setdefault("EVISCOPE_SPACE_DATASET", {json.dumps(dataset_id)})
os.environ.setdefault("EVISCOPE_SPACE_RESULTS_REPO", {json.dumps(results_id)})
os.environ.setdefault("GRADIO_SERVER_NAME", "0.0.0.0")

from eviscope_space import main  # noqa: E402  (the repository's spaces/eviscope/app.py)

main()
'''


def _stage_results(folder: Path, dataset_id: str, browser_id: str) -> None:
    folder.mkdir(parents=True)
    data = DatasetCardData(
        license="cc-by-sa-4.0", pretty_name="EviScope results", tags=["eviscope", "leaderboard"]
    )
    card = DatasetCard(
        f"---\n{data.to_yaml()}\n---\n{_RESULTS_BODY.format(dataset=dataset_id, browser=browser_id)}"
    )
    (folder / "README.md").write_text(str(card), encoding="utf-8")


def _requirements(source: Path, package_spec: str, extras: str) -> str:
    """``source`` without comments and without its ``eviscope`` line, led by the installable spec."""
    kept: list[str] = []
    for line in source.read_text(encoding="utf-8").splitlines():
        text = re.split(r"(?:^|\s)#", line, maxsplit=1)[0].strip()
        if not text:
            continue
        if not text.startswith("-") and canonicalize_name(Requirement(text).name) == DISTRIBUTION:
            continue
        kept.append(text)
    return "\n".join([requirement_line(package_spec, extras), *kept]) + "\n"


def _copy_tree(source: Path, target: Path, skip: set[str]) -> None:
    """Copy the files of ``source`` (not caches, not hidden files, not ``skip``) into ``target``."""
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source)
        if not path.is_file() or path.name in skip:
            continue
        if any(part.startswith(".") or part == "__pycache__" for part in relative.parts):
            continue
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target / relative)
