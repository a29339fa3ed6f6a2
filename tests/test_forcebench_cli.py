"""`eviscope forcebench baselines|sheet|agreement|adjudicate` and `eviscope score --config forcebench`
on hand-built rows."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from forcebench_fixtures import sample_rows
from PIL import Image

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
    from eviscope.suites.forcebench.baselines import BASELINES, PAIR_BASELINES

    evaluators = len(BASELINES) + len(PAIR_BASELINES)
    assert evaluators == 9  # with the copy detector and edit direction (issue 33)
    assert len(results["evaluators"]) == evaluators
    assert results["n"] == evaluators * len(sample_rows())
    for png, what in (
        ("mvr_fs.png", "MVR–FS plane per evaluator"),
        ("axis_heatmap.png", "MVR per axis and evaluator"),
    ):
        assert Image.open(out / "report" / png).text["Title"] == f"reference baselines on forcebench: {what}"
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
    sheets = tmp_path / "sheets"
    assert main(["forcebench", "sheet", str(sheets), "--dataset", str(dataset)]) == 0
    capsys.readouterr()

    def fill(name: str, odd: set[int]) -> Path:
        with (sheets / f"pass-{name}.csv").open(newline="", encoding="utf-8") as handle:
            listed = list(csv.DictReader(handle))
        path = tmp_path / f"{name}.csv"
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(listed[0]))
            writer.writeheader()
            for row in listed:
                natural = "no" if int(row["id"][-4:]) in odd else "yes"
                marks = {"q_a_supported": "yes", "q_b_supported": "no", "q_local_on_axis": "yes"}
                writer.writerow({**row, **marks, "q_natural": natural})
        return path

    a, b = fill("A", {0}), fill("B", {0, 1})
    adjudication = tmp_path / "adj.csv"
    argv = ["forcebench", "agreement", str(a), str(b), "--adjudication", str(adjudication)]
    assert main([*argv, "--dataset", str(dataset), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["to_adjudicate"], report["rows"]) == (1, 10)
    with adjudication.open(newline="", encoding="utf-8") as handle:
        listed = list(csv.DictReader(handle))
    assert [r["id"] for r in listed] == ["fb-0001"]
    listed[0].update(
        {
            f"adjudicated_{q}": listed[0][f"a_{q}"]
            for q in ("q_a_supported", "q_b_supported", "q_local_on_axis", "q_natural")
        }
    )
    with adjudication.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(listed[0]))
        writer.writeheader()
        writer.writerows(listed)
    out = tmp_path / "settled"
    argv = ["forcebench", "adjudicate", str(a), str(b), str(adjudication), "--dataset", str(dataset)]
    argv += [
        "--out",
        str(out),
        "--eval-per-axis",
        "1",
        "--annotators",
        "Reader A",
        "Reader B",
        "Lead",
        "--json",
    ]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    settled = read_rows(out)
    assert report["annotators"] == {"pass_a": "Reader A", "pass_b": "Reader B", "adjudicator": "Lead"}
    assert report["flow"]["Candidate rows entering double annotation"] == 10
    assert report["flow"]["Accepted after adjudication (contrast pairs)"] == 9  # fb-0000: not natural
    assert report["rejected"] == ["fb-0000"] and len(settled) == 9
    assert report["annotation_status"] == {"adjudicated": 9}
    assert (
        sum(r["split"] == "eval" for r in settled)
        == 5
        == report["flow"]["Final headline contrast pairs after the locality filter"]
    )
    marks = tmp_path / "annotation.marks.csv"
    argv = ["forcebench", "marks", str(a), str(b), str(adjudication), "--dataset", str(dataset)]
    assert main([*argv, "--out", str(marks), "--annotators", "reader-A", "reader-B", "adjudicator"]) == 0
    assert capsys.readouterr().out == f"Wrote the marks of 10 candidates to {marks}\n"
    text = marks.read_text(encoding="utf-8")
    assert all(row["evidence"] not in text and row["raised_claim"] not in text for row in sample_rows())
    changed = [dict(row) for row in sample_rows()]
    changed[3]["calibrated_claim"] += " Indeed."
    write_split(tmp_path / "redrafted", "forcebench", changed, FORCEBENCH_FEATURES)
    assert (
        main(
            [
                *argv[:-1],
                str(tmp_path / "redrafted"),
                "--out",
                str(tmp_path / "m2.csv"),
                "--annotators",
                "x",
                "y",
                "z",
            ]
        )
        == 0
    )
    assert "1 of them were read on other text than" in capsys.readouterr().out


def test_score_reports_the_eval_split_as_the_headline(tmp_path: Path, capsys) -> None:
    rows = [{**row, "split": "eval" if n < 6 else "pool"} for n, row in enumerate(sample_rows())]
    write_split(tmp_path / "dataset", "forcebench", rows, FORCEBENCH_FEATURES)
    runs = tmp_path / "runs"
    base = ["--dataset", str(tmp_path / "dataset"), "--json"]
    assert main(["forcebench", "baselines", "--out", str(runs), *base]) == 0
    baselines = json.loads(capsys.readouterr().out)
    assert (baselines["split"], baselines["n"]) == ("eval", 9 * 6)  # the eval rows only, by default
    assert main(["forcebench", "baselines", "--split", "all", "--out", str(tmp_path / "all"), *base]) == 0
    capsys.readouterr()
    assert main(["score", str(tmp_path / "all" / "predictions.jsonl"), "--config", "forcebench", *base]) == 0
    scored = json.loads(capsys.readouterr().out)
    assert (scored["split"], scored["n"], scored["set_aside"]) == ("eval", 9 * 6, 9 * 4)
    assert scored["per_evaluator"] == baselines["per_evaluator"]
    assert scored["all_rows"]["n"] == 9 * 10
    assert main(["score", str(runs / "predictions.jsonl"), "--config", "forcebench", *base[:2]]) == 0
    out = capsys.readouterr().out
    assert "the eval split (headline)" in out
    assert "0 predictions on pool rows set aside; every row: not scored" in out


def test_a_later_round_sheets_and_reads_only_the_rows_no_mark_settles(tmp_path: Path, capsys) -> None:
    rows = sample_rows()
    for row in rows[:6]:
        row["annotation_status"] = "adjudicated"
    write_split(tmp_path / "dataset", "forcebench", rows, FORCEBENCH_FEATURES)
    dataset, sheets = tmp_path / "dataset", tmp_path / "sheets"
    assert main(["forcebench", "sheet", str(sheets), "--dataset", str(dataset), "--drafted"]) == 0
    assert "Wrote 4 candidates" in capsys.readouterr().out
    with (sheets / "pass-A.csv").open(newline="", encoding="utf-8") as handle:
        listed = list(csv.DictReader(handle))
    assert sorted(r["id"] for r in listed) == sorted(r["id"] for r in rows[6:])
    filled = tmp_path / "A.csv"
    with filled.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(listed[0]))
        writer.writeheader()
        marks = {"q_a_supported": "yes", "q_b_supported": "no", "q_local_on_axis": "yes", "q_natural": "yes"}
        writer.writerows({**row, **marks} for row in listed)
    argv = ["forcebench", "agreement", str(filled), str(filled), "--adjudication", str(tmp_path / "adj.csv")]
    argv += ["--dataset", str(dataset), "--json"]
    assert main([*argv, "--drafted"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == 4
    assert main(argv) == 2  # without --drafted every row must be marked
    assert "no marks for ids fb-0000" in capsys.readouterr().err
