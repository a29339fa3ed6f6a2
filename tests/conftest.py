"""Shared fixtures: the real SQuAD dev file and the EviScope configs built from it once per session."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _source(variable: str, default: str, what: str) -> Path:
    path = Path(os.environ.get(variable, REPO.parent / default))
    if not path.exists():
        pytest.skip(f"{what} not found at {path}; set {variable} to a copy")
    return path


@pytest.fixture(scope="session")
def squad_path() -> Path:
    """The SQuAD v1.1 dev file (``$EVISCOPE_SQUAD``, else ``../shared/data/squad/dev-v1.1.json``)."""
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
