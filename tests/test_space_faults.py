"""The Space under faults: killed mid-submission, and a results folder that cannot be written.

- **Kill trials.** The Space is SIGKILLed at seeded random moments of a submission (upload,
  scoring, the result write, the report plots, the reply), then restarted on the same results
  folder: every file there is a complete result or a leftover temporary file that is never listed
  (and is swept at the start), the leaderboard shows exactly the complete results, the killed
  submission landed once or not at all, and submitting it again works. The Space processes are
  forked from one parent that imported the app (``SpaceForks``), so each restart takes a second
  instead of ten. A second set of trials kills processes that do nothing but write large results,
  so that most kills land inside a write.
- **Unwritable results.** A read-only results folder or a full disk gives the submitter one error
  line, records nothing, and the Space keeps serving. Root ignores permissions, so the folder is
  made read-only (``EROFS``) or full (new files are backed by ``/dev/full``: ``ENOSPC``) by
  patching ``os`` calls on paths under the results folder in a Space served in this process; a
  non-root run also tries a real ``chmod``.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("gradio", reason="gradio is not installed (the Space): pip install -e '.[space]'")
pytest.importorskip("gradio_client", reason="gradio_client is not installed: pip install -e '.[dev]'")

from fault_injection import make_full, make_read_only, snapshot
from gradio_client import Client, handle_file
from gradio_client.exceptions import AppError
from space_load import write_uploads
from space_server import SpaceForks, load_app

from eviscope.release.processes import free_port
from eviscope.space.leaderboard import TEMP_PREFIX, TEMP_SUFFIX, LocalResultStore

CONFIG = "eviscope-v1.1"
SEED = 20260501
SPACE_TRIALS = 6
WRITER_TRIALS = 20


@pytest.fixture(scope="module")
def uploads(built_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_uploads(built_dataset, tmp_path_factory.mktemp("fault-predictions"), CONFIG)


@pytest.fixture(scope="module")
def forks(built_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SpaceForks]:
    """One parent that has imported the app, forking the Space (and writer) processes to kill."""
    server = SpaceForks(built_dataset, tmp_path_factory.mktemp("forks") / "forks.log")
    try:
        yield server
    finally:
        server.close()


def entries(results: Path, config: str) -> dict[str, list[dict[str, Any]]]:
    """The results on disk by system; fails on any file that is neither a complete result nor a
    temporary file of a write that was cut short."""
    out: dict[str, list[dict[str, Any]]] = {}
    folder = results / config
    for path in sorted(folder.iterdir()) if folder.is_dir() else []:
        if path.name.startswith(TEMP_PREFIX) and path.name.endswith(TEMP_SUFFIX):
            continue
        assert path.suffix == ".json" and not path.name.startswith("."), f"stray file {path.name}"
        record = json.loads(path.read_bytes())  # complete: parses, and holds every field
        assert record["id"] == path.stem and record["config"] == config
        assert isinstance(record["result"], dict) and isinstance(record["predictions"], list)
        out.setdefault(record["system"], []).append(record)
    return out


def temporaries(results: Path) -> list[Path]:
    return sorted(results.glob(f"*/{TEMP_PREFIX}*{TEMP_SUFFIX}"))


def board_systems(client: Client) -> list[str]:
    """The submitted systems on the leaderboard (not the reference lines it always shows)."""
    table = client.predict(CONFIG, "", "system", api_name="/leaderboard")[0]
    kind = table["headers"].index("kind")
    return [line[0] for line in table["data"] if line[kind] == "submission"]


def submit(client: Client, system: str, upload: Path) -> tuple[str, float]:
    start = time.perf_counter()
    status = client.predict(CONFIG, system, handle_file(upload), api_name="/submit")[0]
    return status, time.perf_counter() - start


# --- Kill trials ------------------------------------------------------------------------------------


def test_space_killed_mid_submission_keeps_a_consistent_leaderboard(
    forks: SpaceForks, uploads: dict[str, Path], tmp_path: Path
) -> None:
    """SIGKILL the Space at seeded random shares (0–1.25) of a submission's round trip, restart it
    on the same folder, check the folder and the board, and submit the killed one again."""
    rng = random.Random(SEED)
    results = tmp_path / "results"
    upload = uploads["lexical"]
    client: Client | None = None
    outcomes: list[tuple[float, bool, int]] = []
    try:
        space = forks.start(results, tmp_path / "space.log")
        client = Client(space.url, verbose=False)
        status, latency = submit(client, "before the kills", upload)
        assert status.startswith("Recorded")
        expected = {"before the kills"}
        # Seeded random moments, one in each of SPACE_TRIALS equal slices of 0–1.25 round trips
        # (upload and scoring early on, the write and the report plots later, then the reply).
        width = 1.25 / SPACE_TRIALS
        fractions = [rng.uniform(k * width, (k + 1) * width) for k in range(SPACE_TRIALS)]
        rng.shuffle(fractions)
        for trial, fraction in enumerate(fractions):
            system = f"killed {trial}"
            job = client.submit(CONFIG, system, handle_file(upload), api_name="/submit")
            time.sleep(fraction * latency)
            space.kill()
            with contextlib.suppress(Exception):
                job.result(timeout=10)
            client.close()

            on_disk = entries(results, CONFIG)
            assert all(len(records) == 1 for records in on_disk.values()), on_disk.keys()
            landed = system in on_disk
            assert set(on_disk) - {system} == expected
            left = len(temporaries(results))
            outcomes.append((fraction, landed, left))

            space = forks.start(results, tmp_path / "space.log")  # restart on the same folder
            client = Client(space.url, verbose=False)
            assert temporaries(results) == []  # swept at start
            assert sorted(board_systems(client)) == sorted(on_disk)  # each complete result, once
            status, latency = submit(client, system, upload)  # submitting again works
            assert status.startswith("This file was already recorded" if landed else "Recorded"), status
            expected.add(system)
            on_disk = entries(results, CONFIG)
            assert set(on_disk) == expected and all(len(r) == 1 for r in on_disk.values())
        assert sorted(board_systems(client)) == sorted(expected)
        assert not any(path.name.startswith(".") for path in (results / CONFIG).iterdir())
    finally:
        if client is not None:
            client.close()


def test_writers_killed_mid_write_leave_complete_results_and_no_stale_lock(
    forks: SpaceForks, tmp_path: Path
) -> None:
    """Processes that write 4 MB results back to back, SIGKILLed at seeded random moments: each
    result file is complete, they are ``0..k-1`` with no gap, and the next store sweeps the write
    that was cut short and takes the lock at once (a stale one would time out)."""
    rng = random.Random(SEED)
    results = tmp_path / "results"
    for trial in range(WRITER_TRIALS):
        config = f"w{trial}"
        forks.writer(results, config, 4 * 2**20, tmp_path / "writers.log").kill_after(rng.uniform(0.02, 0.2))
        on_disk = entries(results, config)
        assert sorted(on_disk) == sorted(f"{config}-{i}" for i in range(len(on_disk)))
        assert all(len(r["predictions"][0]["text"]) == r["result"]["bytes"] for [r] in on_disk.values())
        store = LocalResultStore(results, lock_timeout=5)
        assert temporaries(results) == []
        assert [r["system"] for r in store.records(config)] == [f"{config}-{i}" for i in range(len(on_disk))]
        extra = {
            "id": "after",
            "config": config,
            "system": "after",
            "submitted_at": "2027",
            "result": {},
            "predictions": [],
        }
        assert store.add(extra) is True


# --- Unwritable results folder ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(built_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Client, Path]]:
    """The app served in this process (so that its ``os`` calls can be patched), with one result."""
    results = tmp_path_factory.mktemp("fault-results")
    argv = ["--dataset", str(built_dataset), "--results", str(results), "--port", str(free_port())]
    demo = load_app().main(argv, block=False)
    try:
        yield Client(demo.local_url, verbose=False), results
    finally:
        demo.close()


FAULTS = {
    "read-only": (make_read_only, "the results folder is read-only (EROFS)"),
    "full-disk": (make_full, "the results disk is full (ENOSPC)"),
}


@pytest.mark.parametrize("fault", [*FAULTS, "chmod"])
def test_unwritable_results_give_one_error_line_record_nothing_and_the_space_keeps_serving(
    served: tuple[Client, Path], uploads: dict[str, Path], monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    client, results = served
    if "first" not in board_systems(client):  # the store's lock and config folder exist, as in use
        assert submit(client, "first", uploads["oracle"])[0].startswith("Recorded")
    folder = str(results.resolve())
    if fault == "chmod":
        if os.geteuid() == 0:
            pytest.skip(
                "run as root, which ignores file modes: chmod is tried only as another user (the read-only and full-disk cases simulate it)"
            )
        modes = {p: p.stat().st_mode for p in (results, *results.iterdir()) if p.is_dir()}
        for path in modes:
            path.chmod(0o555)

        def undo() -> None:
            for path, mode in modes.items():
                path.chmod(mode)

        expected = "the results folder is not writable (EACCES)"
    else:
        make, expected = FAULTS[fault]
        make(monkeypatch, folder)
        undo = monkeypatch.undo
    system = f"during {fault}"
    before = snapshot(results)
    try:
        with pytest.raises(AppError) as failure:
            submit(client, system, uploads["lexical"])
        message = str(failure.value).strip()
        assert message == (
            f"could not record the submission: {expected}; nothing was recorded. "
            "Try again later, or tell the Space's maintainers."
        )
        assert snapshot(results) == before  # nothing partial, no temporary file left
        assert system not in board_systems(client)  # and the Space still serves
    finally:
        undo()
    status, _ = submit(client, system, uploads["lexical"])  # writable again: the same submission lands
    assert status.startswith(f"Recorded **{system}**")
    assert system in board_systems(client)
