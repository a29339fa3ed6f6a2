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
    assert [(r["config"], r["system"]) for r in records] == [(e["config"], e["system"]) for e in INDEXED]
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
        records = reference_records(["eviscope-v1.1"], lambda config: source.rows(config)[:-4])
    assert records == []
    assert "scored on other rows than those served" in caplog.text
