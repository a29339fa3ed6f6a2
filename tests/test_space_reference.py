"""The reference runs committed for the Space (eviscope.space.reference): scored at start as a
submission would be, on the rows they were run on, and left off other rows."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from eviscope.core.layout import PREDICTIONS_FILE
from eviscope.space.data import RowSource
from eviscope.space.reference import INDEX, MANIFEST, REFERENCE_DIR, reference_records
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.scoring import score

INDEXED = json.loads((REFERENCE_DIR / INDEX).read_text(encoding="utf-8"))["results"]


def test_each_committed_reference_is_scored_as_its_run_and_dated_when_it_finished(
    built_dataset: Path,
) -> None:
    source = RowSource(built_dataset)
    records = reference_records(source.configs(), source.rows)
    assert records and [(r["config"], r["system"]) for r in records] == [
        (e["config"], e["system"]) for e in INDEXED
    ]
    assert {r["config"] for r in records} == {"eviscope-v1.1", "forcebench"}
    assert [r["run"] for r in INDEXED if r["config"] == "eviscope-v1.1"] == [
        "eviscope-v1.1/smollm2-vanilla",
        "eviscope-v1.1/smollm2-gate",
    ]
    for record, entry in zip(records, INDEXED, strict=True):
        run = REFERENCE_DIR / entry["run"]
        manifest = json.loads((run / MANIFEST).read_text(encoding="utf-8"))
        assert manifest["status"] == "complete" and record["submitted_at"] == manifest["finished_at"]
        lines = (run / PREDICTIONS_FILE).read_text(encoding="utf-8").splitlines()
        if entry["config"] == "eviscope-v1.1":
            expected = score(load_rows(entry["config"], built_dataset), run / PREDICTIONS_FILE).overall
            assert record["result"]["joint_success"] == pytest.approx(expected["joint_success"])
            assert record["result"]["n_rows"] == len(lines) == 160
        else:  # a seeded sample of pairs, scored on the pairs it holds
            assert entry["subset"] and len(record["predictions"]) == len(lines)


def test_a_reference_is_left_off_rows_it_was_not_run_on(built_dataset: Path, caplog) -> None:
    source = RowSource(built_dataset)
    with caplog.at_level(logging.INFO, logger="eviscope.space.reference"):
        records = reference_records(["forcebench"], lambda config: source.rows(config)[:-4])
    assert records == [] and any(entry["config"] == "forcebench" for entry in INDEXED)
    assert "scored on other rows than those served" in caplog.text


def test_a_reference_is_left_off_a_row_redrawn_under_the_same_id(tmp_path: Path, caplog) -> None:
    from eviscope_fixtures import hand_predictions, hand_rows, write_jsonl

    from eviscope.runner.manifest import rows_sha256
    from eviscope.space.reference import ids_sha256
    from eviscope.suites.eviscope.task import EviScopeTask

    rows = hand_rows()
    run = tmp_path / "eviscope-v1.1" / "hand"
    run.mkdir(parents=True)
    write_jsonl(run / PREDICTIONS_FILE, hand_predictions())
    entry = {"config": "eviscope-v1.1", "system": "hand", "run": "eviscope-v1.1/hand"}
    (tmp_path / INDEX).write_text(
        json.dumps({"results": [{**entry, "ids_sha256": ids_sha256(r["id"] for r in rows)}]})
    )
    manifest = {"model": "m", "policy": "vanilla", "finished_at": "2026-12-02T00:00:00+00:00"}
    fingerprint = {"rows": {"sha256": rows_sha256(EviScopeTask("vanilla"), rows)}}
    (run / MANIFEST).write_text(json.dumps({**manifest, **fingerprint}))
    redrawn = [{**rows[0], "question": "Where did the other event happen?"}, *rows[1:]]
    assert [r["system"] for r in reference_records(["eviscope-v1.1"], lambda c: rows, tmp_path)] == ["hand"]
    with caplog.at_level(logging.INFO, logger="eviscope.space.reference"):
        assert reference_records(["eviscope-v1.1"], lambda c: redrawn, tmp_path) == []
        (run / MANIFEST).write_text(json.dumps(manifest))  # a run of an older eviscope
        assert reference_records(["eviscope-v1.1"], lambda c: rows, tmp_path) == []
    assert "'hand' left off eviscope-v1.1: its manifest asked other rows than those served" in caplog.text
    assert "its manifest records no fingerprint (rows.sha256)" in caplog.text
