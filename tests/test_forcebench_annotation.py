"""The annotation round trip on a fixture of sheets: export, two sheets in, kappa, adjudication, split."""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest
from forcebench_fixtures import sample_rows

from eviscope.core.errors import EviScopeError
from eviscope.suites.forcebench.annotation import (
    ANNOTATION_FIELDS,
    apply_adjudication,
    cap_axes,
    cohen_kappa,
    construction_flow,
    export_sheet,
    flow_table,
    locality_filter,
    read_adjudication_sheet,
    read_sheet,
    stratified_split,
    write_adjudication_sheet,
)

ACC, REJ, ND = "accept_force_gap", "reject_not_force_gap", "needs_discussion"
# Row decisions of the two annotators on the ten sample rows.
DECISIONS_A = [ACC, ACC, ACC, REJ, REJ, ND, ACC, ACC, ACC, ACC]
DECISIONS_B = [ACC, ACC, REJ, REJ, ACC, ND, ACC, ACC, ACC, ACC]


def _fill(
    sheet: Path, out: Path, decisions: list[str], edits: dict[int, dict[str, str]] | None = None
) -> Path:
    with sheet.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        header, rows = reader.fieldnames, list(reader)
    for i, row in enumerate(rows):
        row["annotation_decision"] = decisions[i]
        for name, value in (edits or {}).get(i, {}).items():
            row[f"annotation_{name}"] = value
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=header)
        writer.writeheader()
        writer.writerows(rows)
    return out


@pytest.fixture
def sheets(tmp_path: Path) -> tuple[list[dict], Path, Path]:
    rows = sample_rows()
    blank = export_sheet(rows, tmp_path / "sheet.csv")
    a = _fill(blank, tmp_path / "a.csv", DECISIONS_A, {6: {"severity": "3"}})
    b = _fill(blank, tmp_path / "b.csv", DECISIONS_B, {6: {"severity": "1"}, 7: {"repair": "Say 'may'."}})
    return rows, a, b


def test_the_exported_sheet_has_every_row_and_empty_annotation_fields(tmp_path: Path) -> None:
    rows = sample_rows()
    with export_sheet(rows, tmp_path / "s.csv").open(newline="", encoding="utf-8") as handle:
        read = list(csv.DictReader(handle))
    assert [r["id"] for r in read] == [r["id"] for r in rows]
    assert all(r[name] == "" for r in read for name in ANNOTATION_FIELDS)
    assert read[0]["calibrated_claim"] == rows[0]["calibrated_claim"]


def test_kappa_matches_the_hand_computed_value(sheets: tuple[list[dict], Path, Path]) -> None:
    rows, a, b = sheets
    # observed agreement 8/10; marginals A: 7 acc, 2 rej, 1 nd; B: 7 acc, 2 rej, 1 nd
    # expected agreement (49 + 4 + 1) / 100; kappa = (0.8 - 0.54) / (1 - 0.54) = 0.26 / 0.46
    assert cohen_kappa(read_sheet(a, rows), read_sheet(b, rows)) == pytest.approx(0.26 / 0.46)


def test_adjudication_round_trip(sheets: tuple[list[dict], Path, Path], tmp_path: Path) -> None:
    rows, a_path, b_path = sheets
    a, b = read_sheet(a_path, rows), read_sheet(b_path, rows)
    adjudication = tmp_path / "adjudication.csv"
    assert write_adjudication_sheet(rows, a, b, adjudication) == 5  # rows 2, 4, 5, 6 (severity), 7 (repair)
    with adjudication.open(newline="", encoding="utf-8") as handle:
        header = csv.DictReader(handle).fieldnames
        handle.seek(0)
        listed = list(csv.DictReader(handle))
    assert [r["id"] for r in listed] == [rows[i]["id"] for i in (2, 4, 5, 6, 7)]
    assert "severity" in listed[3]["reason"] and listed[3]["a_severity"] == "3"
    for r in listed:
        r["adjudication_decision"] = {2: ACC, 4: REJ, 5: "", 6: ACC, 7: ACC}[int(r["id"][-4:])]
    listed[3]["adjudication_severity"] = "3"
    with adjudication.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=header)
        writer.writeheader()
        writer.writerows(listed)

    settled = apply_adjudication(rows, a, b, read_adjudication_sheet(adjudication, rows))
    status = {r["id"]: r["annotation_status"] for r in settled.rows}
    assert settled.rejected == [rows[3]["id"], rows[4]["id"]]
    assert settled.unresolved == [rows[5]["id"]]
    assert status == {
        rows[0]["id"]: "annotated",
        rows[1]["id"]: "annotated",
        rows[2]["id"]: "adjudicated",
        rows[6]["id"]: "adjudicated",
        rows[7]["id"]: "adjudicated",
        rows[8]["id"]: "annotated",
        rows[9]["id"]: "annotated",
    }
    assert next(r for r in settled.rows if r["id"] == rows[6]["id"])["severity"] == 3


def test_bad_sheets_name_file_row_and_field(sheets: tuple[list[dict], Path, Path], tmp_path: Path) -> None:
    rows, a, _ = sheets
    bad = _fill(a, tmp_path / "bad.csv", [*DECISIONS_A[:3], "maybe", *DECISIONS_A[4:]])
    with pytest.raises(EviScopeError, match=r"bad.csv:5: field annotation_decision"):
        read_sheet(bad, rows)
    with pytest.raises(EviScopeError, match=r"a.csv: no annotation for ids fb-extra"):
        read_sheet(a, [*rows, {**rows[0], "id": "fb-extra"}])
    with pytest.raises(EviScopeError, match=r"a.csv:2: id 'fb-0000' is not a candidate row"):
        read_sheet(a, rows[1:])


def _pool(n: int = 60) -> list[dict]:
    rows = []
    for i in range(n):
        row = sample_rows()[i % 10]
        group = "AttributionBench/" + ("HAGRID" if i % 3 else "ExpertQA")
        rows.append({**row, "id": f"fb-{i:04d}", "source": f"{group}:{i}"})
    return rows


def test_split_is_stable_under_reruns_and_shuffled_input() -> None:
    pool = _pool()
    first, rest = stratified_split(pool, per_axis=5, seed=0)
    shuffled = pool[:]
    random.Random(7).shuffle(shuffled)
    assert stratified_split(shuffled, per_axis=5, seed=0) == (first, rest)
    assert stratified_split(pool, per_axis=5, seed=0) == (first, rest)
    assert len(first) == 25 and len(rest) == 35
    for axis in {r["axis"] for r in pool}:
        mine = [r for r in first if r["axis"] == axis]
        # 12 rows per axis: 4 ExpertQA, 8 HAGRID -> quotas 2 (1.67 rounds up) and 3 (3.33)
        assert sorted(r["source"].split(":")[0] for r in mine).count("AttributionBench/ExpertQA") == 2
    assert stratified_split(pool, per_axis=5, seed=1)[0] != first


def test_cap_keeps_the_same_rows_whatever_the_order() -> None:
    pool = _pool()
    capped = cap_axes(pool, 4, seed=0)
    assert len(capped) == 20
    assert cap_axes(list(reversed(pool)), 4, seed=0) == capped


def test_locality_filter_and_flow_table() -> None:
    rows = sample_rows()
    broken = {**rows[0], "id": "fb-bad", "raised_claim": "Smoking causes lung cancer in German adults."}
    kept, removed = locality_filter([*rows, broken])
    assert [r["id"] for r in kept] == [r["id"] for r in rows]
    assert removed == {"fb-bad": ["single_edit", "same_entities_numbers"]}
    table = flow_table(construction_flow(433, 283, 229, 200, 198))
    assert table.splitlines()[2] == "| Candidate rows entering double annotation | 433 |"
    assert table.splitlines()[-1] == "| Final headline evaluation set after locality filter | 198 |"
