"""`eviscope forcebench baselines|sheet|agreement|adjudicate` and `eviscope score --config forcebench`
on hand-built rows."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from forcebench_fixtures import sample_rows

from eviscope.builders.parquet_split import write_split
from eviscope.cli import main
from eviscope.suites.forcebench.rows import FORCEBENCH_FEATURES, read_rows


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    write_split(tmp_path / "dataset", "forcebench", sample_rows(), FORCEBENCH_FEATURES)
    return tmp_path / "dataset"


def test_baselines_print_json_and_write_predictions_and_plots(dataset: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "runs"
    assert main(["forcebench", "baselines", "--dataset", str(dataset), "--out", str(out), "--json"]) == 0
    results = json.loads(capsys.readouterr().out)
    presence = results["per_evaluator"]["baseline/citation_presence"]
    assert (presence["mvr"], presence["fs"]) == (1.0, 0.0)
    assert len(results["evaluators"]) == 5
    assert results["n"] == 5 * len(sample_rows())
    for png in ("mvr_fs.png", "axis_heatmap.png"):
        assert (out / "report" / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    lines = (out / "predictions.jsonl").read_text().splitlines()
    assert len(lines) == results["n"]
    assert (
        main(
            [
                "score",
                str(out / "predictions.jsonl"),
                "--config",
                "forcebench",
                "--dataset",
                str(dataset),
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out) == results


def test_missing_rows_give_one_line_error(tmp_path: Path, capsys) -> None:
    assert main(["forcebench", "baselines", "--dataset", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "eviscope build forcebench" in err


def test_annotation_round_trip_through_the_cli(dataset: Path, tmp_path: Path, capsys) -> None:
    sheet = tmp_path / "sheet.csv"
    assert main(["forcebench", "sheet", str(sheet), "--dataset", str(dataset)]) == 0
    capsys.readouterr()
    with sheet.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        header, rows = reader.fieldnames, list(reader)

    def fill(path: Path, reject: set[int]) -> Path:
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=header)
            writer.writeheader()
            for i, row in enumerate(rows):
                decision = "reject_not_force_gap" if i in reject else "accept_force_gap"
                writer.writerow({**row, "annotation_decision": decision})
        return path

    a, b = fill(tmp_path / "a.csv", {0}), fill(tmp_path / "b.csv", {0, 1})
    adjudication = tmp_path / "adj.csv"
    assert (
        main(
            [
                "forcebench",
                "agreement",
                str(a),
                str(b),
                "--adjudication",
                str(adjudication),
                "--dataset",
                str(dataset),
                "--json",
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report["to_adjudicate"] == 1
    with adjudication.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        adj_header, listed = reader.fieldnames, list(reader)
    listed[0]["adjudication_decision"] = "accept_force_gap"
    with adjudication.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=adj_header)
        writer.writeheader()
        writer.writerows(listed)
    out = tmp_path / "settled"
    assert (
        main(
            [
                "forcebench",
                "adjudicate",
                str(a),
                str(b),
                str(adjudication),
                "--dataset",
                str(dataset),
                "--out",
                str(out),
                "--eval-per-axis",
                "2",
                "--json",
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    settled = read_rows(out)
    assert report["flow"]["Candidate rows entering double annotation"] == 10
    assert report["flow"]["Accepted after adjudication and quality control"] == 9
    assert len(settled) == report["flow"]["Final headline evaluation set after locality filter"] == 9
    assert report["annotation_status"] == {"annotated": 8, "adjudicated": 1}
    assert {r["annotation_status"] for r in settled} == {"annotated", "adjudicated"}
