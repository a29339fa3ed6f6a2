"""Helpers for the release tests: staging the checkout and the built data, and the command line."""

from __future__ import annotations

import os
from pathlib import Path

from eviscope.core.registry import releasable
from eviscope.release.stage import Release, stage_release
from eviscope.release.validate import Validation, validate

REPO = Path(__file__).resolve().parents[1]
NAMESPACE = "test"
PACKAGE_SPEC = "git+https://example.org/eviscope.git@v0.1.0"
LABELS = (
    "datasets/test/eviscope",
    "datasets/test/eviscope-results",
    "spaces/test/eviscope_metric",
    "spaces/test/forcebench",
    "spaces/test/eviscope-browser",
)
"""Every repository of a release to namespace ``test``, in push order."""


def confquestions_copy() -> Path | None:
    """The ConfQuestions copy the suite is pointed at, if there is one (it only sharpens the checks)."""
    path = Path(os.environ.get("EVISCOPE_CONFQUESTIONS", REPO.parent / "shared" / "data" / "confquestions"))
    return path if (path / "documents").is_dir() else None


def stage(dataset: Path, stage_dir: Path, configs: tuple[str, ...] | None = None) -> Release:
    return stage_release(
        NAMESPACE,
        source_root=REPO,
        dataset_dir=dataset,
        stage_dir=stage_dir,
        configs=configs or tuple(releasable()),
        package_spec=PACKAGE_SPEC,
    )


def check(release: Release, tmp: Path, confquestions: Path | None = None) -> Validation:
    return validate(release, confquestions=confquestions, cache_dir=tmp / "cache")


def release_args(dataset: Path, stage_dir: Path, *more: str) -> list[str]:
    """``eviscope release`` on the checkout and ``dataset``, staging in ``stage_dir``."""
    return [
        "release",
        "--namespace",
        NAMESPACE,
        "--root",
        str(REPO),
        "--dataset",
        str(dataset),
        "--stage",
        str(stage_dir),
        "--package-spec",
        PACKAGE_SPEC,
        *more,
    ]
