"""The blind two-pass sheets, agreement and adjudication (issue 24), with synthetic marks made here."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from forcebench_fixtures import sample_rows

from eviscope.builders.forcebench.entry import annotation_lines
from eviscope.core.errors import EviScopeError
from eviscope.suites.forcebench.sheets import (
    MARKS_COLUMNS,
    QUESTIONS,
    SHEET_COLUMNS,
    agreement,
    apply_marks,
    read_adjudication,
    read_marks,
    read_marks_file,
    settle,
    verdict,
    write_adjudication,
    write_marks,
    write_sheets,
)

YES = dict.fromkeys(QUESTIONS, True)


def _rows() -> list[dict]:
    """Ten sample contrast pairs; the last four made controls."""
    rows = sample_rows()
    for row in rows[6:]:
        row["pair_type"] = "licensed"
    return rows


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _fill(blank: Path, out: Path, marks: dict[str, dict[str, bool]]) -> Path:
    rows = _read(blank)
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow({**row, **{f"q_{q}": "yes" if v else "no" for q, v in marks[row["id"]].items()}})
    return out


def _gold(row: dict) -> dict[str, bool]:
    """The marks of a reader who agrees with the draft."""
    return {**YES, "b_supported": row["pair_type"] == "licensed"}


def test_the_sheets_hold_every_candidate_blind_in_two_orders(tmp_path: Path) -> None:
    rows = _rows()
    written = write_sheets(rows, tmp_path)
    assert [p.name for p in written] == ["pass-A.csv", "INSTRUCTIONS-A.md", "pass-B.csv", "INSTRUCTIONS-B.md"]
    a, b = _read(tmp_path / "pass-A.csv"), _read(tmp_path / "pass-B.csv")
    assert list(a[0]) == list(SHEET_COLUMNS)
    assert not {"pair_type", "split", "rationale", "repair"} & set(SHEET_COLUMNS)
    assert sorted(r["id"] for r in a) == sorted(r["id"] for r in b) == sorted(r["id"] for r in rows)
    assert [r["id"] for r in a] != [r["id"] for r in b]
    by_id = {row["id"]: row for row in rows}
    for sheet_row in a:
        row = by_id[sheet_row["id"]]
        assert sheet_row["evidence"] == row["evidence"]  # the passage in full
        assert (sheet_row["claim_a"], sheet_row["claim_b"]) == (row["calibrated_claim"], row["raised_claim"])
        assert all(sheet_row[f"q_{q}"] == "" for q in QUESTIONS)
    guide = (tmp_path / "INSTRUCTIONS-A.md").read_text(encoding="utf-8")
    assert all(text in guide for text in QUESTIONS.values()) and "Rows number 10." in guide


def test_a_readers_verdict_follows_the_four_questions() -> None:
    assert verdict(YES) == "licensed"
    assert verdict({**YES, "b_supported": False}) == "contrast"
    for question in ("a_supported", "local_on_axis", "natural"):
        assert verdict({**YES, question: False}) == "reject"


def test_kappa_of_the_verdicts_matches_the_hand_computed_value(tmp_path: Path) -> None:
    rows = _rows()
    write_sheets(rows, tmp_path)
    a_marks = {row["id"]: _gold(row) for row in rows}
    b_marks = dict(a_marks)
    b_marks[rows[0]["id"]] = {**YES, "natural": False}  # contrast -> reject
    b_marks[rows[9]["id"]] = {**YES, "b_supported": False}  # licensed -> contrast
    a = read_marks(_fill(tmp_path / "pass-A.csv", tmp_path / "a.csv", a_marks), rows)
    b = read_marks(_fill(tmp_path / "pass-B.csv", tmp_path / "b.csv", b_marks), rows)
    report = agreement(a, b)
    # A: 6 contrast, 4 licensed; B: 6 contrast, 3 licensed, 1 reject; 8 of 10 agree
    # p_e = (6*6 + 4*3 + 0*1) / 100 = 0.48; kappa = (0.8 - 0.48) / 0.52
    assert report["kappa_verdict"] == pytest.approx(0.32 / 0.52)
    assert (report["agreement_verdict"], report["disagreements"]) == (0.8, 2)
    assert report["kappa_per_question"]["a_supported"] is None  # everyone said yes: kappa undefined


def test_adjudication_settles_disagreements_and_draws_the_split(tmp_path: Path) -> None:
    rows = _rows()
    write_sheets(rows, tmp_path)
    a_marks = {row["id"]: _gold(row) for row in rows}
    b_marks = dict(a_marks)
    b_marks[rows[0]["id"]] = {**YES, "natural": False}
    b_marks[rows[9]["id"]] = {**YES, "b_supported": False}
    b_marks[rows[8]["id"]] = {**YES, "b_supported": False}
    a_marks[rows[1]["id"]] = {**YES, "a_supported": False}  # A rejects row 1, B calls it a contrast
    a = read_marks(_fill(tmp_path / "pass-A.csv", tmp_path / "a.csv", a_marks), rows)
    b = read_marks(_fill(tmp_path / "pass-B.csv", tmp_path / "b.csv", b_marks), rows)
    sheet = tmp_path / "adjudication.csv"
    assert write_adjudication(rows, a, b, sheet) == 4
    listed = _read(sheet)
    assert {r["id"] for r in listed} == {rows[i]["id"] for i in (0, 1, 8, 9)}
    assert "pair_type" not in listed[0]
    decided = {
        rows[0]["id"]: _gold(rows[0]),
        rows[8]["id"]: {**YES, "b_supported": False},
        rows[1]["id"]: None,
    }
    with sheet.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(listed[0]))
        writer.writeheader()
        for r in listed:
            marks = decided.get(r["id"], _gold(rows[9]))
            if marks is not None:
                r.update({f"adjudicated_q_{q}": "yes" if v else "no" for q, v in marks.items()})
            writer.writerow(r)
    settled = settle(rows, a, b, read_adjudication(sheet, rows), cap=51, eval_per_axis=1)
    lines = sheet.read_text(encoding="utf-8").splitlines()
    (tmp_path / "twice.csv").write_text("\n".join([*lines, lines[1]]) + "\n", encoding="utf-8")
    with pytest.raises(EviScopeError, match=r"twice.csv:\d+: id '[\w-]+' appears twice"):
        read_adjudication(tmp_path / "twice.csv", rows)  # a second verdict never overwrites the first
    kept = {r["id"]: r for r in settled.rows}
    assert settled.unresolved == [rows[1]["id"]]  # left open by the adjudicator
    assert settled.rejected == [rows[8]["id"]]  # a control the adjudicator found unwarranted
    assert rows[0]["id"] in kept and rows[9]["id"] in kept
    assert {r["annotation_status"] for r in settled.rows} == {"adjudicated"}
    evaluation = [r for r in settled.rows if r["split"] == "eval"]
    # one contrast pair per axis, and every kept control
    assert sorted(r["axis"] for r in evaluation if r["pair_type"] == "contrast") == sorted(
        {r["axis"] for r in rows[:6] if r["id"] != rows[1]["id"]}
    )
    assert {r["id"] for r in evaluation if r["pair_type"] == "licensed"} == {rows[i]["id"] for i in (6, 7, 9)}
    assert {r["split"] for r in settled.rows} == {"eval", "pool"}


def test_bad_marks_name_file_row_and_column(tmp_path: Path) -> None:
    rows = _rows()
    write_sheets(rows, tmp_path)
    marks = {row["id"]: _gold(row) for row in rows}
    filled = _fill(tmp_path / "pass-A.csv", tmp_path / "a.csv", marks)
    text = filled.read_text(encoding="utf-8").splitlines()
    text[3] = text[3].replace(",yes,", ",maybe,", 1)
    (tmp_path / "bad.csv").write_text("\n".join(text) + "\n", encoding="utf-8")
    with pytest.raises(EviScopeError, match=r"bad.csv:4: column q_\w+: 'maybe' is not yes or no"):
        read_marks(tmp_path / "bad.csv", rows)
    with pytest.raises(EviScopeError, match=r"a.csv: no marks for ids fb-extra"):
        read_marks(filled, [*rows, {**rows[0], "id": "fb-extra"}])
    with pytest.raises(EviScopeError, match=r"a.csv:\d+: id 'fb-0000' is not a candidate row"):
        read_marks(filled, rows[1:])
    with pytest.raises(EviScopeError, match=r"pass-B.csv: not a ForceBench sheet; missing columns id"):
        (tmp_path / "pass-B.csv").write_text("item\n1\n", encoding="utf-8")
        read_marks(tmp_path / "pass-B.csv", rows)


def _annotated(tmp_path: Path, rows: list[dict]) -> tuple[Path, Path, Path]:
    """Filled sheets A and B that disagree on row 0 and row 9, and the adjudication settling both."""
    write_sheets(rows, tmp_path)
    a_marks = {row["id"]: _gold(row) for row in rows}
    b_marks = {
        **a_marks,
        rows[0]["id"]: {**YES, "natural": False},
        rows[9]["id"]: {**YES, "b_supported": False},
    }
    a = _fill(tmp_path / "pass-A.csv", tmp_path / "a.csv", a_marks)
    b = _fill(tmp_path / "pass-B.csv", tmp_path / "b.csv", b_marks)
    sheet = tmp_path / "adjudication.csv"
    write_adjudication(rows, read_marks(a, rows), read_marks(b, rows), sheet)
    listed = _read(sheet)
    with sheet.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(listed[0]))
        writer.writeheader()
        for r in listed:  # the adjudicator sides with A on row 0 and with B on row 9
            marks = _gold(rows[0]) if r["id"] == rows[0]["id"] else {**YES, "b_supported": False}
            writer.writerow({**r, **{f"adjudicated_q_{q}": "yes" if v else "no" for q, v in marks.items()}})
    return a, b, sheet


def test_the_marks_file_settles_the_rows_as_the_sheets_do_and_holds_no_text(tmp_path: Path) -> None:
    rows = _rows()
    a, b, sheet = _annotated(tmp_path, rows)
    out = tmp_path / "annotation.marks.csv"
    assert write_marks(rows, a, b, sheet, ("reader-A", "reader-B", "adjudicator"), out) == len(rows)
    lines = _read(out)
    assert list(lines[0]) == list(MARKS_COLUMNS)
    text = out.read_text(encoding="utf-8")
    for row in rows:
        for name in ("context", "evidence", "calibrated_claim", "raised_claim"):
            assert row[name] not in text
    assert [line["adjudicator"] for line in lines if line["adjudicator"]] == ["adjudicator"] * 2
    applied = apply_marks(rows, read_marks_file(out))
    by_sheets = settle(rows, read_marks(a, rows), read_marks(b, rows), read_adjudication(sheet, rows))
    assert applied.rows == by_sheets.rows  # the same rows, statuses and splits as from the sheets
    assert applied.report["rejected"] == 1  # row 9: a control B and the adjudicator found unwarranted
    assert applied.report["stale"] == []
    assert applied.report["agreement"]["disagreements"] == 2


def test_a_row_changed_since_it_was_read_stays_drafted_and_the_build_says_so(tmp_path: Path) -> None:
    rows = _rows()
    out = tmp_path / "annotation.marks.csv"
    write_marks(rows, *_annotated(tmp_path, rows), ("reader-A", "reader-B", "adjudicator"), out)
    redrafted = [dict(row) for row in rows]
    redrafted[2]["raised_claim"] += " Really."
    redrafted.append({**rows[3], "id": "fb-new"})
    applied = apply_marks(redrafted, read_marks_file(out))
    by_id = {r["id"]: r for r in applied.rows}
    for row_id in (rows[2]["id"], "fb-new"):
        assert (by_id[row_id]["annotation_status"], by_id[row_id]["split"]) == ("drafted", "pool")
    assert applied.report["stale"] == [rows[2]["id"]] and applied.report["unread"] == 1
    assert by_id[rows[4]["id"]]["annotation_status"] == "adjudicated"
    lines = annotation_lines({**applied.report, "marks": out.name})
    assert any(line.startswith("warning: 1 drafts changed since they were read (fb-") for line in lines)
    assert any(line.startswith("warning: 1 drafts no reader has marked") for line in lines)


def test_a_second_round_adds_its_marks_to_the_first_and_replaces_the_rows_read_again(
    tmp_path: Path,
) -> None:
    rows = _rows()
    out = tmp_path / "annotation.marks.csv"
    write_marks(rows, *_annotated(tmp_path, rows), ("reader-A", "reader-B", "adjudicator"), out)
    first = {line["id"]: line for line in _read(out)}
    redrafted = [dict(row) for row in rows]
    redrafted[2]["raised_claim"] += " Really."
    redrafted.append({**rows[3], "id": "fb-new"})
    again = [redrafted[2], redrafted[-1]]
    second = tmp_path / "second"
    second.mkdir()
    write_sheets(again, second)
    gold = {row["id"]: _gold(row) for row in again}
    a, b = (_fill(second / f"pass-{x}.csv", second / f"{x}.csv", gold) for x in "AB")
    write_adjudication(again, read_marks(a, again), read_marks(b, again), second / "adjudication.csv")
    readers = ("reader-C", "reader-D", "adjudicator-2")
    assert write_marks(again, a, b, second / "adjudication.csv", readers, out, earlier=out) == 11
    lines = {line["id"]: line for line in _read(out)}
    assert {i: lines[i] for i in first if i != rows[2]["id"]} == {
        i: first[i] for i in first if i != rows[2]["id"]
    }
    assert [lines[i]["reader_a"] for i in (rows[2]["id"], "fb-new")] == ["reader-C", "reader-C"]
    applied = apply_marks(redrafted, read_marks_file(out))
    assert applied.report["stale"] == [] and applied.report["unread"] == 0
    write_marks(again, a, b, second / "adjudication.csv", readers, out)  # without: this round only
    assert [line["id"] for line in _read(out)] == sorted([rows[2]["id"], "fb-new"])


def test_a_bad_marks_file_names_line_and_column(tmp_path: Path) -> None:
    rows = _rows()
    out = tmp_path / "annotation.marks.csv"
    write_marks(rows, *_annotated(tmp_path, rows), ("reader-A", "reader-B", "adjudicator"), out)
    lines = out.read_text(encoding="utf-8").splitlines()
    (tmp_path / "bad.csv").write_text("\n".join([*lines[:3], lines[3].replace(",yes,", ",maybe,", 1)]) + "\n")
    with pytest.raises(EviScopeError, match=r"bad.csv:4: column a_q_\w+: 'maybe' is not yes or no"):
        read_marks_file(tmp_path / "bad.csv")
    (tmp_path / "twice.csv").write_text("\n".join([*lines, lines[1]]) + "\n")
    with pytest.raises(EviScopeError, match=r"twice.csv:\d+: id 'fb-\d+' appears twice"):
        read_marks_file(tmp_path / "twice.csv")
