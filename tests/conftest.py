"""Shared fixtures: the real SQuAD dev file and the EviScope configs built from it once per session."""

from __future__ import annotations

import ast
import os
import shutil
import sys
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from hub_server import FakeHub

    from eviscope.release.stage import Release

REPO = Path(__file__).resolve().parents[1]
TOY = REPO / "tests" / "toy"
"""The toy benchmark's files (``tests/test_toy_benchmark.py``), where a new benchmark's would stand."""


def _source(variable: str, default: str, what: str) -> Path:
    path = Path(os.environ.get(variable, REPO.parent / default))
    if not path.exists():
        pytest.skip(f"{what} not found at {path}; set {variable} to a copy")
    return path


QUESTION_SOURCES: dict[str, tuple[str, str]] = {
    "EVISCOPE_SQUAD_TRAIN": ("shared/data/squad/train-part", "SQuAD v1.1 train part"),
    "EVISCOPE_TYDIQA_GOLDP_EN": ("shared/data/tydiqa-goldp-en", "TyDi QA GoldP English"),
    "EVISCOPE_SQUADSHIFTS_NEW_WIKI": ("shared/data/squadshifts-new-wiki", "SQuAD-shifts New Wikipedia"),
    "EVISCOPE_MLQA_EN_DEV": ("shared/data/mlqa-en-dev", "MLQA English dev"),
}
"""EviScope's question sources beside SQuAD dev: variable, default under the checkout's parent, name."""


@pytest.fixture(scope="session")
def question_sources() -> Iterator[dict[str, Path]]:
    """EviScope's other question sources (each ``$EVISCOPE_<NAME>``, else its ``../shared/data`` folder),
    exported for the session so that every build finds them as a user's does."""
    found = {
        variable: _source(variable, default, what) for variable, (default, what) in QUESTION_SOURCES.items()
    }
    before = {variable: os.environ.get(variable) for variable in found}
    os.environ.update({variable: str(path) for variable, path in found.items()})
    yield found
    for variable, value in before.items():
        if value is None:
            os.environ.pop(variable, None)
        else:
            os.environ[variable] = value


@pytest.fixture(scope="session")
def squad_path(question_sources: dict[str, Path]) -> Path:
    """The SQuAD v1.1 dev file (``$EVISCOPE_SQUAD``, else ``../shared/data/squad/dev-v1.1.json``); the
    other question sources are found with it (:func:`question_sources`)."""
    return _source("EVISCOPE_SQUAD", "shared/data/squad/dev-v1.1.json", "SQuAD v1.1 dev")


@pytest.fixture(scope="session")
def attributionbench_path() -> Path:
    """The AttributionBench folder (``$EVISCOPE_ATTRIBUTIONBENCH``, else ``../shared/data/...``)."""
    return _source(
        "EVISCOPE_ATTRIBUTIONBENCH", "shared/data/attribution/attributionbench", "AttributionBench"
    )


@pytest.fixture(scope="session")
def built_dataset(
    squad_path: Path, attributionbench_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A dataset repo folder: the committed card, and every releasable config built from the real sources."""
    from eviscope.cli import main

    out = tmp_path_factory.mktemp("dataset")
    shutil.copy(REPO / "dataset" / "README.md", out / "README.md")
    args = ["build", "--squad", str(squad_path), "--attributionbench", str(attributionbench_path)]
    assert main([*args, "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="session")
def tiny_model(built_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny random-weight model (``eviscope tiny-model``), its tokenizer trained on EviScope prompts."""
    from eviscope.runner.tiny_model import build_tiny_model
    from eviscope.suites.eviscope.dataset import load_rows
    from eviscope.suites.eviscope.policies import render

    rows = load_rows("eviscope-v1.1", built_dataset)
    corpus = [render("vanilla", row) for row in rows] + [
        '{"action": "answer", "citations": [], "quotes": []}'
    ]
    return build_tiny_model(tmp_path_factory.mktemp("tiny-model"), corpus)


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    """The local fake Hub (``tests/hub_server.py``), with the suite's offline switch lifted for it.
    Files go over the LFS protocol, not Xet. A test file that needs repos or a token in it overrides
    this fixture by a ``hub`` fixture of its own that takes this one."""
    import huggingface_hub
    from hub_server import FakeHub

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_DISABLE_XET", True)
    fake = FakeHub()
    fake.start()
    yield fake
    fake.stop()


@pytest.fixture(scope="module")
def release(built_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Release:
    """The release staged from the built dataset (``eviscope release --stage``), once per module."""
    from release_fixtures import stage

    return stage(built_dataset, tmp_path_factory.mktemp("release") / "stage")


_NOT_COLLECTED: dict[str, list[str]] = {}
"""Modules of src/ and builders/ whose doctests were not collected: top-level imports not installed."""


def _missing_imports(path: Path) -> list[str]:
    """The top-level packages ``path`` imports at module level that are not installed here."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return []
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names |= {alias.name.partition(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.partition(".")[0])
    return sorted(n for n in names if n not in sys.stdlib_module_names and find_spec(n) is None)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """``--doctest-modules`` skips a library module whose optional extra is not installed (gradio for
    the Space, torch for a backend, spaCy for the builders) instead of failing to collect it."""
    if collection_path.resolve().is_relative_to(
        TOY
    ):  # the toy benchmark's files, laid out as in a checkout: its
        return True  # package imports as eviscope.suites.toy only where test_toy_benchmark puts it
    if collection_path.suffix != ".py" or "tests" in collection_path.parts:
        return None
    missing = _missing_imports(collection_path)
    if missing:
        _NOT_COLLECTED[str(collection_path)] = missing
        return True
    return None


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _NOT_COLLECTED:
        extras = sorted({name for names in _NOT_COLLECTED.values() for name in names})
        terminalreporter.write_line(
            f"doctests of {len(_NOT_COLLECTED)} modules not collected: {', '.join(extras)} not installed"
        )
