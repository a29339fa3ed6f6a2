"""The reference runs committed for the Space (eviscope.space.reference): scored at start as a
submission would be, on the rows they were run on, and left off other rows."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pandas as pd
import pytest

from eviscope.core.layout import PREDICTIONS_FILE
from eviscope.core.tables import round_value
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
    # eviscope-v1.1's SmolLM2 runs were re-run on the v1.1 of issue 32's repairs (docs/reference-results.md);
    # an indexed run on rows no config serves would be left off, and fail above
    assert {r["config"] for r in records} == {"eviscope-v1.1", "forcebench"}
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


def test_the_leaderboard_carries_every_registered_reference_system_and_the_papers_figures_apart(
    built_dataset: Path, tmp_path: Path
) -> None:
    """Issue 35: a reader compares a submission with the reference systems and the papers. The
    leaderboard lists the submissions, then every system of the benchmark's registry (run on the
    served rows and scored as ``eviscope score`` scores it), then the papers' figures with their source."""
    from eviscope.space.leaderboard import leaderboard_table
    from eviscope.space.reference import registry_records, reported_records
    from eviscope.space.submissions import score_submission
    from eviscope.suites.eviscope.reference_systems import SYSTEMS
    from eviscope.suites.forcebench.baselines import BASELINES

    config = "eviscope-v1.1"
    rows = RowSource(built_dataset).rows(config)
    lexical_file = tmp_path / "lexical.jsonl"
    lexical_file.write_text("".join(json.dumps(p) + "\n" for p in SYSTEMS["lexical"](rows)), encoding="utf-8")
    mine = score_submission(config, "mine", lexical_file, rows).record()
    table = leaderboard_table(config, [*reported_records(config), *registry_records(config, rows), mine])
    kinds = ["submission"] + ["reference"] * len(SYSTEMS) + ["reported (paper)"] * 6
    assert table["kind"].tolist() == kinds
    references = table["system"][1 : 1 + len(SYSTEMS)]
    assert {name.removesuffix(" (reference system)") for name in references} == set(SYSTEMS)

    by_system = table.set_index("system")
    lexical = by_system.loc["lexical (reference system)"]
    expected = score(load_rows(config, built_dataset), lexical_file).overall
    assert (
        lexical["joint success"]
        == round_value(expected["joint_success"])
        == by_system.loc["mine", "joint success"]
    )
    assert lexical["source"] == "eviscope baseline --system lexical, on the rows served"
    qwen = by_system.loc["Qwen2.5 7B Q4_K_M, gate (paper)"]
    assert (qwen["ERS"], qwen["QCS"], qwen["answer accuracy"]) == (0.150, 0.150, 0.738)
    assert pd.isna(qwen["joint success"]) and qwen["source"].startswith("EviScope paper, Table 3")
    assert reported_records("eviscope-xl") == []  # the paper reports v1.1 only

    pairs = RowSource(built_dataset).rows("forcebench")
    board = leaderboard_table(
        "forcebench", [*registry_records("forcebench", pairs), *reported_records("forcebench")]
    )
    evaluators = board["system"][board["kind"] == "reference"].str.removesuffix(" (reference system)")
    assert set(evaluators.str.replace(" ", "_")) == set(BASELINES)
    paper = board.set_index("system").loc["axis ForceCheck (paper)"]
    assert (paper["MVR"], paper["FS"]) == (0.232, 0.248) and "Table 2" in paper["source"]


def test_one_rounding_everywhere_half_up_on_the_figure_as_written() -> None:
    """6 of 160 rows is 0.0375: the report printed 0.037 (``f"{x:.3f}"`` rounds the float just below
    it) where the leaderboard showed 0.038 (numpy's rounding). Reports and leaderboard now agree."""
    from eviscope_fixtures import hand_predictions, hand_rows

    from eviscope.core.tables import format_value, round_value
    from eviscope.space.leaderboard import leaderboard_table
    from eviscope.suites.eviscope.predictions import load_predictions
    from eviscope.suites.eviscope.scoring import score_predictions

    for value, shown in ((0.0375, "0.038"), (0.5125, "0.513"), (0.6625, "0.663"), (0.0125, "0.013")):
        assert format_value(value) == shown == f"{round_value(value):.3f}"
    rows = hand_rows()
    result = score_predictions(rows, load_predictions(hand_predictions(), rows)).to_dict()
    result["answer_accuracy"] = 0.0375
    record = {"id": "x", "config": "eviscope-v1.1", "system": "s", "submitted_at": "", "result": result}
    line = leaderboard_table("eviscope-v1.1", [{**record, "predictions": []}]).iloc[0]
    assert f"{line['answer accuracy']:.3f}" == format_value(0.0375) == "0.038"
