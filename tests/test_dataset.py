"""``eviscope.suites.eviscope.dataset.load_rows`` reads the folder it is given, even when another folder of the same
name was read before (``datasets`` keys its cache of a local folder on the folder's name)."""

from __future__ import annotations

from pathlib import Path

from eviscope_fixtures import quartet, write_dataset

from eviscope.suites.eviscope.dataset import load_rows

CONFIG = "eviscope-v1.1"


def test_two_folders_with_the_same_name_give_their_own_rows(tmp_path: Path) -> None:
    first = quartet(0, "Paris", "Lyon")
    second = quartet(1, "Oslo", "Bergen") + quartet(2, "Rome", "Milan")
    write_dataset(tmp_path / "a" / "dataset", CONFIG, first)
    write_dataset(tmp_path / "b" / "dataset", CONFIG, second)
    got_first = load_rows(CONFIG, tmp_path / "a" / "dataset")
    got_second = load_rows(CONFIG, tmp_path / "b" / "dataset")
    assert [r["id"] for r in got_first] == [r["id"] for r in first]
    assert [r["id"] for r in got_second] == [r["id"] for r in second]

    write_dataset(tmp_path / "a" / "dataset", CONFIG, second)  # rebuilt in place
    assert [r["id"] for r in load_rows(CONFIG, tmp_path / "a" / "dataset")] == [r["id"] for r in second]
