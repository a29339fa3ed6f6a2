"""The Space's annotation sheets kept in the results repo, against the local hub stand-in: committed
as they are written, restored at start, so a restart that loses the Space's disk loses no verdict."""

from __future__ import annotations

from pathlib import Path

import huggingface_hub
import pytest
from eviscope_fixtures import hand_rows
from forcebench_fixtures import sample_rows
from hub_server import FAKE_TOKEN, FakeHub, StoredFile
from huggingface_hub import HfApi

from eviscope.core.errors import EviScopeError
from eviscope.space.annotation import AnnotationStore

RESULTS = "test/eviscope-results"
REPO = f"datasets/{RESULTS}"


@pytest.fixture
def hub(hub: FakeHub) -> FakeHub:
    """The fake Hub holding the results dataset repo the annotations go to."""
    hub.repos[REPO] = {"README.md": StoredFile(b"# results\n", lfs=False)}
    return hub


def _store(hub: FakeHub, disk: Path) -> AnnotationStore:
    api = HfApi(endpoint=hub.url, token=FAKE_TOKEN)
    return AnnotationStore(disk / "results" / "annotations", results_repo=RESULTS, api=api)


def test_sheets_are_committed_as_written_and_survive_a_restart_that_loses_the_disk(
    hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    fb_rows, ev_rows = sample_rows(), hand_rows()
    first = _store(hub, tmp_path / "disk-1")
    first.save("forcebench", "ann-a", fb_rows[0], {"decision": "accept_force_gap", "notes": "clear"}, fb_rows)
    first.save(
        "forcebench",
        "ann-a",
        fb_rows[1],
        {"decision": "reject_not_force_gap", "boundary_type": "ambiguous"},
        fb_rows,
    )
    first.save(
        "eviscope", "ann-b", ev_rows[0], {"action": "answer", "supporting_doc_id": "", "answer": "x"}, ev_rows
    )
    first.mirror.stop()  # what the Space has committed by now (each save triggers a commit at once)

    stored = hub.files(REPO)
    assert sorted(stored) == [
        "README.md",
        "annotations/eviscope/ann-b.csv",
        "annotations/forcebench/ann-a.csv",
    ]
    local = tmp_path / "disk-1" / "results" / "annotations"
    assert stored["annotations/forcebench/ann-a.csv"] == (local / "forcebench" / "ann-a.csv").read_bytes()
    assert all(not commit.create_pr for commit in hub.commits)

    restarted = _store(hub, tmp_path / "disk-2")  # a new, empty disk

    assert restarted.annotators("forcebench") == ["ann-a"] and restarted.annotators("eviscope") == ["ann-b"]
    assert restarted.sheet("forcebench", "ann-a", fb_rows) == first.sheet("forcebench", "ann-a", fb_rows)
    assert list(restarted.sheet("forcebench", "ann-a", fb_rows)) == [fb_rows[0]["id"], fb_rows[1]["id"]]
    restarted.save("forcebench", "ann-a", fb_rows[2], {"decision": "accept_force_gap"}, fb_rows)
    restarted.mirror.stop()
    again = _store(hub, tmp_path / "disk-3")
    assert list(again.sheet("forcebench", "ann-a", fb_rows)) == [r["id"] for r in fb_rows[:3]]  # nothing lost
    again.mirror.stop()


def test_a_results_repo_that_cannot_be_read_at_start_refuses_saves_instead_of_overwriting(
    hub: FakeHub, tmp_path: Path
) -> None:
    hub.repos.pop(REPO)  # not found: the sheets it may hold cannot be restored
    store = _store(hub, tmp_path / "disk")
    rows = sample_rows()

    with pytest.raises(
        EviScopeError, match=f"annotations cannot be saved: the results repo {RESULTS} could not be read"
    ):
        store.save("forcebench", "ann-a", rows[0], {"decision": "accept_force_gap"}, rows)
    assert not any((tmp_path / "disk").rglob("*.csv"))
