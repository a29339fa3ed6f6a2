"""The release's runtime check, against the real runtime: every staged Space in a fresh virtual
environment of the Python its card declares, with only its requirements, started as ``python app.py``
in a folder named like the Hub's checkout, and called through gradio_client.

The environments are cached (``$EVISCOPE_CACHE/space-envs``, else ``~/.cache/eviscope/space-envs``)
keyed by Python and requirements: the first run installs from PyPI (about 90 s), later runs reuse it.
"""

from __future__ import annotations

import io
import re
import shutil
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import replace
from pathlib import Path

import pytest
from huggingface_hub import SpaceCard
from release_fixtures import LABELS, REPO, release_args

from eviscope.cli import main
from eviscope.release.environments import build_wheel, default_cache_dir, find_python
from eviscope.release.runtime import Runtime, check_runtime
from eviscope.release.stage import Release

DECLARED = str(SpaceCard.load(REPO / "spaces" / "eviscope" / "README.md").data["python_version"])
"""The Python the Space cards declare (the same on all three: ``test_release_stage`` checks it)."""

pytestmark = [
    pytest.mark.network,
    pytest.mark.slow,
    pytest.mark.skipif(
        find_python(DECLARED) is None,
        reason="the Python the Space cards declare is not installed here (pyenv install it to run these)",
    ),
]


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Runtime:
    scratch = tmp_path_factory.mktemp("runtime")
    return Runtime(build_wheel(REPO, scratch / "wheel"), default_cache_dir(), scratch / "spaces")


def test_the_dry_run_starts_every_staged_space_and_loads_every_metric(
    built_dataset: Path, tmp_path: Path
) -> None:
    out, err = io.StringIO(), io.StringIO()
    args = release_args(
        built_dataset, tmp_path / "stage", "--dry-run", "--runtime-cache", str(default_cache_dir())
    )
    with redirect_stdout(out), redirect_stderr(err):
        code = main(args)
    notes = err.getvalue()

    assert code == 0, notes
    assert "all checks passed" in out.getvalue()
    for label in LABELS:
        if label.startswith("spaces/"):
            assert re.search(rf"note: {label}: Python {re.escape(DECLARED)}\.\d+, GET / 200", notes), label
    assert notes.count("/compute through gradio_client equals the staged module") == 2
    for metric in ("test/eviscope_metric", "test/forcebench"):
        assert f'evaluate.load("{metric}") through evaluate\'s hub path computes the same' in notes
    assert "/browse shows 160 rows of eviscope-v1.1; /submit recorded the example predictions" in notes


@pytest.fixture
def broken(release: Release, tmp_path: Path) -> Iterator[Release]:
    """A copy of the staged release, to break one Space of."""
    copy = tmp_path / "release"
    shutil.copytree(release.stage_dir, copy)
    yield replace(
        release,
        stage_dir=copy,
        repos=tuple(replace(r, folder=copy / r.folder.relative_to(release.stage_dir)) for r in release.repos),
    )


def _only(release: Release, repo_id: str) -> Release:
    kept = tuple(r for r in release.repos if r.repo_id == repo_id or r.kind == "benchmark")
    return replace(release, repos=kept)


def test_a_card_without_python_version_fails_as_pip_would_on_the_hub(
    broken: Release, runtime: Runtime
) -> None:
    card_path = broken.repo("metric").folder / "README.md"
    lines = card_path.read_text(encoding="utf-8").splitlines(keepends=True)
    card_path.write_text("".join(x for x in lines if not x.startswith("python_version:")), encoding="utf-8")
    assert SpaceCard.load(card_path).data.get("python_version") is None

    report = check_runtime(_only(broken, broken.repo("metric").repo_id), runtime)

    [problem] = report.problems
    assert problem.startswith(
        "spaces/test/eviscope_metric/requirements.txt: pip would refuse it: Package 'eviscope' requires a "
        "different Python: 3.10."
    )
    assert problem.endswith("(README.md declares no python_version, so the Hub runs Python 3.10)")


def test_a_module_file_that_shadows_the_package_fails_to_start(broken: Release, runtime: Runtime) -> None:
    folder = broken.repo("metric").folder
    (folder / "eviscope_metric.py").rename(folder / "eviscope.py")
    app = folder / "app.py"
    app.write_text(app.read_text().replace('"eviscope_metric.py"', '"eviscope.py"'), encoding="utf-8")

    report = check_runtime(_only(broken, broken.repo("metric").repo_id), runtime)

    [problem] = report.problems
    assert problem.startswith("spaces/test/eviscope_metric/app.py: exited with 1: ")
    assert "'eviscope' is not a package" in problem
    assert problem.endswith("(eviscope.py shadows the eviscope package; rename it)")
