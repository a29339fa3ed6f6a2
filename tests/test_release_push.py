"""Pushing a validated release to a local stand-in for the hub (``HfApi(endpoint=...)``)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import huggingface_hub
import pytest
from hub_server import FAKE_TOKEN, FakeHub, StoredFile
from huggingface_hub import HfApi
from release_fixtures import LABELS, check, release_args, stage

from eviscope.cli import main
from eviscope.release.push import push
from eviscope.release.stage import Release
from eviscope.release.validate import Validation

# huggingface_hub's LFS upload hands httpx a body in a way httpx deprecates; the real hub takes Xet.
pytestmark = pytest.mark.filterwarnings("ignore:Use 'content=<...>':DeprecationWarning")


@pytest.fixture(scope="module")
def validated(built_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Release, Validation]:
    root = tmp_path_factory.mktemp("push")
    release = stage(built_dataset, root / "stage")
    validation = check(release, root)
    assert validation.problems == []
    return release, validation


def _push(hub: FakeHub, validated: tuple[Release, Validation], create_pr: bool = False) -> list:
    release, validation = validated
    api = HfApi(endpoint=hub.url, token=FAKE_TOKEN)
    return list(push(api, release, validation.files, create_pr=create_pr))


def _staged_bytes(repo) -> dict[str, bytes]:
    return {
        p.relative_to(repo.folder).as_posix(): p.read_bytes() for p in repo.folder.rglob("*") if p.is_file()
    }


def test_push_creates_the_repos_and_uploads_every_staged_file(
    hub: FakeHub, validated: tuple[Release, Validation]
) -> None:
    release, _ = validated
    results = _push(hub, validated)

    assert hub.created == list(LABELS)
    assert [(r.repo.label, r.created) for r in results] == [(label, True) for label in LABELS]
    for repo in release.repos:
        assert hub.files(repo.label) == _staged_bytes(repo)
    assert [commit.repo for commit in hub.commits] == list(LABELS)
    parquet = {
        hashlib.sha256(data).hexdigest()
        for path, data in _staged_bytes(release.repo("benchmark")).items()
        if path.endswith(".parquet")
    }
    assert set(hub.lfs_uploads) == parquet  # data goes to LFS storage, text files into git
    assert hub.authorizations == {f"Bearer {FAKE_TOKEN}"}
    assert all(request.startswith("PUT /lfs/") for request in hub.unauthenticated)  # to storage, not the API


def test_a_second_push_uploads_nothing(hub: FakeHub, validated: tuple[Release, Validation]) -> None:
    _push(hub, validated)
    commits, uploads, requests = len(hub.commits), len(hub.lfs_uploads), len(hub.requests)

    results = _push(hub, validated)

    assert (len(hub.commits), len(hub.lfs_uploads)) == (commits, uploads)
    assert all(not r.created and r.commit_url is None and r.pr_url is None for r in results)
    new = hub.requests[requests:]
    assert not [r for r in new if "/commit/" in r or r.startswith("PUT ") or "create" in r]  # no data sent


def test_only_the_files_that_differ_on_the_hub_are_uploaded(
    hub: FakeHub, validated: tuple[Release, Validation]
) -> None:
    _push(hub, validated)
    hub.repos["datasets/test/eviscope"]["data/forcebench/test.parquet"] = StoredFile(b"older data", lfs=True)
    hub.repos["spaces/test/forcebench"]["README.md"] = StoredFile(b"older card", lfs=False)

    results = _push(hub, validated)

    assert [r.repo.label for r in results if r.commit_url] == [
        "datasets/test/eviscope",
        "spaces/test/forcebench",
    ]
    assert [sorted(commit.files) for commit in hub.commits[-2:]] == [
        ["data/forcebench/test.parquet"],
        ["README.md"],
    ]


def test_create_pr_opens_a_pull_request_instead_of_committing(
    hub: FakeHub, validated: tuple[Release, Validation]
) -> None:
    _push(hub, validated)
    hub.repos["spaces/test/eviscope_metric"]["README.md"] = StoredFile(b"older card", lfs=False)

    results = _push(hub, validated, create_pr=True)

    (changed,) = [r for r in results if r.pr_url]
    assert changed.pr_url is not None and changed.pr_url.startswith(
        f"{hub.url}/spaces/test/eviscope_metric/discussions/"
    )
    assert hub.commits[-1].create_pr and list(hub.commits[-1].files) == ["README.md"]
    assert hub.files("spaces/test/eviscope_metric")["README.md"] == b"older card"  # main is untouched


def test_the_push_command_uses_the_login_token_and_never_prints_it(
    hub: FakeHub,
    built_dataset: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("HF_TOKEN", FAKE_TOKEN)

    args = release_args(
        built_dataset, tmp_path / "stage", "--push", "--endpoint", hub.url, "--skip-runtime-check"
    )
    assert main(args) == 0

    out, err = capsys.readouterr()
    assert hub.created == list(LABELS)
    assert hub.authorizations == {f"Bearer {FAKE_TOKEN}"}
    assert all(request.startswith("PUT /lfs/") for request in hub.unauthenticated)
    assert FAKE_TOKEN not in out + err
    for label in LABELS:
        assert f"{label} (created): " in out


def test_push_without_a_login_stops_before_staging(
    hub: FakeHub,
    built_dataset: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_TOKEN_PATH", str(tmp_path / "no-token"))

    assert main(release_args(built_dataset, tmp_path / "stage", "--push", "--endpoint", hub.url)) == 2

    assert "not logged in to the hub: run `hf auth login` or set HF_TOKEN" in capsys.readouterr().err
    assert hub.requests == []
    assert not (tmp_path / "stage").exists()
