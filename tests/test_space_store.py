"""The Space's results store: atomic, exactly-once records across processes; the hub store alike."""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

import pytest

from eviscope.errors import EviScopeError
from eviscope.space.leaderboard import HubResultStore, LocalResultStore, ResultStore


def record(system: str, content: str = "x") -> dict[str, Any]:
    return {
        "id": f"{system}-{content}",
        "config": "c",
        "system": system,
        "submitted_at": "2026-01-01T00:00:00",
    }


def _add_in_process(folder: str, system: str, content: str) -> bool:
    return LocalResultStore(folder).add(record(system, content))


def test_concurrent_processes_each_land_exactly_once(tmp_path: Path) -> None:
    """Eight processes: four different systems, each submitted twice at once; four files, no temp left."""
    jobs = [(str(tmp_path), f"s{i % 4}", "same") for i in range(8)]
    with multiprocessing.get_context("fork").Pool(8) as pool:
        added = pool.starmap(_add_in_process, jobs)
    assert sum(added) == 4
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == [f"s{i}-same.json" for i in range(4)]
    assert [r["system"] for r in LocalResultStore(tmp_path).records("c")] == ["s0", "s1", "s2", "s3"]


class FakeHub:
    """The three ``HfApi`` calls the hub store makes, over a dict of committed files."""

    def __init__(self, tmp: Path) -> None:
        self.files: dict[str, bytes] = {}
        self.tmp = tmp

    def list_repo_files(self, repo_id: str, repo_type: str) -> list[str]:
        return list(self.files)

    def hf_hub_download(self, repo_id: str, filename: str, repo_type: str) -> str:
        path = self.tmp / filename.replace("/", "_")
        path.write_bytes(self.files[filename])
        return str(path)

    def upload_file(self, path_or_fileobj: bytes, path_in_repo: str, **kwargs: Any) -> None:
        self.files[path_in_repo] = path_or_fileobj


@pytest.mark.parametrize("kind", ["local", "hub"])
def test_stores_record_once_refuse_a_taken_name_and_keep_results(kind: str, tmp_path: Path) -> None:
    hub = FakeHub(tmp_path)

    def open_store() -> ResultStore:
        return LocalResultStore(tmp_path / "results") if kind == "local" else HubResultStore("o/r", api=hub)

    store = open_store()
    assert store.add(record("a")) is True
    assert store.add(record("a")) is False  # the same upload again
    with pytest.raises(EviScopeError, match="system name 'a' already has a result on c"):
        store.add(record("a", "other content"))
    assert open_store().records("c") == [record("a")]  # a fresh store (a restart) reads it back
    assert open_store().records("other-config") == []
