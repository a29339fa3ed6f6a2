"""The Space's results store: atomic, exactly-once records across processes; the hub store alike;
incomplete files left out, unfinished writes swept, failed writes one error line."""

from __future__ import annotations

import errno
import json
import logging
import multiprocessing
import os
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from eviscope.core.errors import EviScopeError
from eviscope.space.leaderboard import (
    TEMP_PREFIX,
    TEMP_SUFFIX,
    HubResultStore,
    LocalResultStore,
    ResultStore,
)


def record(system: str, content: str = "x") -> dict[str, Any]:
    return {
        "id": f"{system}-{content}",
        "config": "c",
        "system": system,
        "submitted_at": "2026-01-01T00:00:00",
        "result": {"joint_success": 0.5},
        "predictions": [{"id": "q01-sufficient", "action": "answer"}],
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
    fresh = open_store()  # a restart reads it back: a summary in memory, the whole record on demand
    summary = {k: v for k, v in record("a").items() if k != "predictions"}
    assert fresh.records("c") == [summary]
    assert fresh.full(summary) == record("a")
    assert open_store().records("other-config") == []


def test_incomplete_files_are_left_out_and_unfinished_writes_swept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """What a crash (or a hand edit) can leave: a cut-short file, a file without every field, one
    under another submission's name, and temporary files; none is a result, none breaks the board."""
    store = LocalResultStore(tmp_path)
    assert store.add(record("kept"))
    folder = tmp_path / "c"
    full = json.dumps(record("cut")).encode()
    (folder / "cut-x.json").write_bytes(full[: len(full) // 2])
    (folder / "fields-x.json").write_text(json.dumps({**record("fields"), "result": None}))
    (folder / "renamed-x.json").write_text(json.dumps(record("other")))
    (folder / "list-x.json").write_text("[1, 2]")
    (folder / "bytes-x.json").write_bytes(b"\xff\xfe")
    unfinished = folder / f"{TEMP_PREFIX}0123{TEMP_SUFFIX}"
    unfinished.write_bytes(full[:10])
    (folder / ".hidden.json").write_text(json.dumps(record("hidden")))
    with caplog.at_level(logging.WARNING, logger="eviscope.space.leaderboard"):
        assert [r["system"] for r in store.records("c")] == ["kept"]
        assert [r["system"] for r in store.records("c")] == ["kept"]
    assert sum("is not a complete result" in m for m in caplog.messages) == 5  # once per file

    reopened = LocalResultStore(tmp_path)  # a restart sweeps the unfinished write
    assert not unfinished.exists()
    assert [r["system"] for r in reopened.records("c")] == ["kept"]
    assert reopened.add(record("cut")) is True  # the same upload again replaces the cut-short file
    assert [r["system"] for r in reopened.records("c")] == ["cut", "kept"]
    assert json.loads((folder / "cut-x.json").read_bytes()) == record("cut")


def test_sweep_waits_for_no_writer(tmp_path: Path) -> None:
    """An unfinished write of a live writer (holding the lock) is not swept."""
    LocalResultStore(tmp_path).add(record("a"))
    unfinished = tmp_path / "c" / f"{TEMP_PREFIX}live{TEMP_SUFFIX}"
    unfinished.write_bytes(b"{")
    with FileLock(tmp_path / ".lock"):
        LocalResultStore(tmp_path)
    assert unfinished.exists()
    LocalResultStore(tmp_path)
    assert not unfinished.exists()


def test_incomplete_records_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="field 'predictions'"):
        LocalResultStore(tmp_path).add({**record("a"), "predictions": None})
    with pytest.raises(ValueError, match="cannot name a file"):
        LocalResultStore(tmp_path).add({**record("a"), "id": "../escape"})
    assert not (tmp_path / "c").exists()


def _failing(code: int) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        raise OSError(code, os.strerror(code), "/secret/server/path")

    return call


@pytest.mark.parametrize(
    ("call", "code", "reason"),
    [
        ("open", errno.EROFS, "the results folder is read-only (EROFS)"),
        ("open", errno.EACCES, "the results folder is not writable (EACCES)"),
        ("fsync", errno.ENOSPC, "the results disk is full (ENOSPC)"),
        ("replace", errno.EIO, "input/output error (EIO)"),
    ],
)
def test_a_failed_write_is_one_line_and_records_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, call: str, code: int, reason: str
) -> None:
    store = LocalResultStore(tmp_path)
    store.add(record("a"))
    before = sorted(p.name for p in (tmp_path / "c").iterdir())
    real_open = os.open
    if call == "open":  # only the result's own file: the lock opens as before

        def open_(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
            if str(path).endswith(TEMP_SUFFIX):
                raise OSError(code, os.strerror(code), str(path))
            return real_open(path, flags, *args, **kwargs)

        monkeypatch.setattr(os, "open", open_)
    else:
        monkeypatch.setattr(os, call, _failing(code))
    with pytest.raises(EviScopeError) as failure:
        store.add(record("b"))
    monkeypatch.undo()
    assert str(failure.value) == (
        f"could not record the submission: {reason}; nothing was recorded. "
        "Try again later, or tell the Space's maintainers."
    )
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == before  # no temporary file left
    assert [r["system"] for r in LocalResultStore(tmp_path).records("c")] == ["a"]
    assert store.add(record("b")) is True  # and the store works once the disk does


def test_a_lock_held_too_long_is_one_line(tmp_path: Path) -> None:
    store = LocalResultStore(tmp_path, lock_timeout=0.2)
    with (
        FileLock(tmp_path / ".lock"),
        pytest.raises(EviScopeError, match=r"stayed busy .* nothing was recorded"),
    ):
        store.add(record("a"))
    assert store.records("c") == []


def test_a_failed_hub_commit_is_one_line(tmp_path: Path) -> None:
    hub = FakeHub(tmp_path)

    def refuse(path_or_fileobj: bytes, path_in_repo: str, **kwargs: Any) -> None:
        raise OSError("503 Server Error: Service Unavailable for url: https://huggingface.co/api/x\nmore")

    hub.upload_file = refuse  # type: ignore[method-assign]
    with pytest.raises(EviScopeError) as failure:
        HubResultStore("o/r", api=hub).add(record("a"))
    message = str(failure.value)
    assert "\n" not in message and "OSError: 503 Server Error" in message
    assert "submitting the same file again is safe" in message


def test_a_reference_result_is_listed_and_compared_but_never_written(tmp_path: Path) -> None:
    store = LocalResultStore(tmp_path)
    reference = {**record("smollm2 vanilla (reference)"), "submitted_at": "2025-12-31T00:00:00"}
    store.add_reference(reference)
    assert store.add(record("mine")) is True
    assert [r["system"] for r in store.records("c")] == ["smollm2 vanilla (reference)", "mine"]
    assert "predictions" not in store.records("c")[0]
    assert store.full(store.records("c")[0]) == reference  # what a comparison reads
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == ["mine-x.json"]
    with pytest.raises(EviScopeError, match="already has a result"):
        store.add(record("smollm2 vanilla (reference)", "other file"))
    with pytest.raises(ValueError, match="field 'result'"):
        store.add_reference({**reference, "result": None})
