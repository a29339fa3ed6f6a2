"""Blind review sheets of conflict passages and the agreement of filled sheets (`eviscope review`)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from eviscope_fixtures import quartet, write_dataset

from eviscope.cli import main
from eviscope.core.errors import EviScopeError
from eviscope.suites.eviscope.review import CRITERIA, agreement, conflict_sheet, read_sheet, write_sheet

ROWS = [row for n in range(1, 7) for row in quartet(n, str(1900 + n), str(1950 + n))]


def _articles(n: int) -> list[str]:
    """Article ``n``: its support paragraph between a dated, a numbered and an undated paragraph."""
    return [
        f"The town of {n} was founded in 1890. Its people farmed.",
        f"Intro {n}. The event number {n} happened in {1900 + n} after long delays. More text.",
        f"Nobody came back. Three bridges were built later. The mayor of {n} resigned in 1930.",
    ]


ARTICLES = {f"Article {n}": _articles(n) for n in range(1, 7)}


def _squad_file(path: Path) -> Path:
    data = [
        {"title": title, "paragraphs": [{"context": text, "qas": []} for text in paragraphs]}
        for title, paragraphs in ARTICLES.items()
    ]
    path.write_text(json.dumps({"data": data, "version": "1.1"}), encoding="utf-8")
    return path


def test_the_sheet_is_blind_and_holds_the_edited_sentence() -> None:
    items = conflict_sheet(ROWS)
    assert [item["item"] for item in items] == list(range(1, 7))
    assert {item["id"] for item in items} == {f"q{n}-conflicting" for n in range(1, 7)}
    for item in items:
        n = int(item["id"][1:].split("-")[0])
        assert item["edited"] == f"The event number {n} happened in {1950 + n} after long delays."
        assert item["original"] == f"The event number {n} happened in {1900 + n} after long delays."
        assert all(item[c] == "" for c in CRITERIA)
    # No gold labels on the sheet: neither the expected action nor which passage is the conflict.
    assert not {"expected_action", "conflict_answer", "conflicting_doc_ids"} & set(items[0])


def test_the_sheet_puts_the_whole_article_at_hand(tmp_path: Path) -> None:
    # The reader checks the edit against the article: the edited passage, the article's other dated
    # or numbered sentences (not the support's, not the undated ones) and the whole article.
    items = conflict_sheet(ROWS, articles={"squad-dev": ARTICLES})
    item = next(i for i in items if i["id"] == "q2-conflicting")
    assert item["passage"] == "Intro 2. The event number 2 happened in 1952 after long delays. More text."
    assert item["article_sentences"] == [
        (1, "The town of 2 was founded in 1890."),
        (3, "Three bridges were built later."),
        (3, "The mayor of 2 resigned in 1930."),
    ]
    files = write_sheet(items, tmp_path / "sheet", {"squad-dev": ARTICLES})
    sheet = files.markdown.read_text()
    assert "- [¶1] The town of 2 was founded in 1890." in sheet
    assert "Nobody came back." not in sheet
    assert "Article 2" in files.articles.read_text() and "Nobody came back." in files.articles.read_text()
    # The fingerprint is that of the text marked, so marks made without the article still hold.
    assert (
        item["fingerprint"] == next(i for i in conflict_sheet(ROWS) if i["id"] == item["id"])["fingerprint"]
    )
    with pytest.raises(
        EviScopeError, match="row q1-conflicting: article 'Article 1' is not in the squad-dev source"
    ):
        conflict_sheet(ROWS, articles={})


def test_the_edited_sentence_is_whole_across_abbreviations() -> None:
    row = {**ROWS[3], "documents": [dict(doc) for doc in ROWS[3]["documents"]]}
    conflict = next(doc for doc in row["documents"] if doc["doc_id"] in row["conflicting_doc_ids"])
    conflict["text"] = "They came first. They were licensed by St. George's Church in 1951. Later, more."
    row["support_spans"] = [
        {**row["support_spans"][0], "text": "They were licensed by St. George's Church in 1901."}
    ]
    row["conflict_answer"] = "1951"
    (item,) = conflict_sheet([row])
    assert item["edited"] == "They were licensed by St. George's Church in 1951."


def test_a_sample_depends_on_each_question_not_on_the_other_rows() -> None:
    three = {item["id"] for item in conflict_sheet(ROWS, sample=3, seed=5)}
    fewer = {
        item["id"] for item in conflict_sheet([r for r in ROWS if r["quartet_id"] != "q1"], sample=3, seed=5)
    }
    assert len(three) == len(fewer) == 3
    assert three - {"q1-conflicting"} <= fewer
    with pytest.raises(EviScopeError, match="--sample 9 is more than the 6 conflicting rows"):
        conflict_sheet(ROWS, sample=9)


def _fill(path: Path, marks: dict[str, tuple[str, str, str]]) -> None:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row.update(zip(CRITERIA, marks.get(row["id"], ("yes", "yes", "yes")), strict=True))
    _write(path, rows)


def _write(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_filled_sheets_give_counts_passes_and_kappa(tmp_path: Path) -> None:
    a = write_sheet(conflict_sheet(ROWS), tmp_path / "a").csv
    b = write_sheet(conflict_sheet(ROWS, seed=3), tmp_path / "b").csv
    _fill(a, {"q1-conflicting": ("no", "no", "yes"), "q2-conflicting": ("yes", "no", "yes")})
    _fill(b, {"q1-conflicting": ("no", "yes", "yes"), "q2-conflicting": ("yes", "no", "yes")})
    report = agreement({"a": read_sheet(a), "b": read_sheet(b)})
    assert report["sheets"]["a"] == {
        "items": 6,
        "same_type": 5,
        "believable": 4,
        "fluent": 6,
        "pass": 4,
        "failed_ids": ["q1-conflicting", "q2-conflicting"],
    }
    pair = report["pairs"]["a vs b"]
    assert pair["items"] == 6
    assert pair["same_type"] == {"agreement": 1.0, "kappa": 1.0}
    assert pair["believable"]["agreement"] == pytest.approx(5 / 6, abs=1e-4)
    assert pair["believable"]["kappa"] == pytest.approx(0.5714, abs=1e-4)


def test_an_unfilled_mark_names_its_item(tmp_path: Path) -> None:
    sheet = write_sheet(conflict_sheet(ROWS), tmp_path / "sheet").csv
    with pytest.raises(EviScopeError, match=r"item 1 \(q\d-conflicting\): same_type is '', not yes/no"):
        read_sheet(sheet)


def test_a_repeated_item_is_refused_not_overwritten(tmp_path: Path) -> None:
    """Two lines marking one id: the second would silently replace the first reader's marks."""
    sheet = write_sheet(conflict_sheet(ROWS), tmp_path / "sheet").csv
    _fill(sheet, {})
    with sheet.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    _write(sheet, [*rows, {**rows[0], "same_type": "no"}])
    with pytest.raises(
        EviScopeError, match=rf"sheet\.csv:{len(rows) + 2}: id '{rows[0]['id']}' appears twice"
    ):
        read_sheet(sheet)
    sheet.write_text("item,id\n1,q1-conflicting\n", encoding="utf-8")
    with pytest.raises(EviScopeError, match=r"sheet\.csv: not a review sheet; missing columns same_type"):
        read_sheet(sheet)


def test_review_commands_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dataset = write_dataset(tmp_path / "ds", "eviscope-v1.1", ROWS)
    out = tmp_path / "sheets" / "eviscope-v1.1-conflicts"  # a dot in the name is not a suffix
    squad = ["--squad", str(_squad_file(tmp_path / "squad.json"))]
    args = ["review", "conflicts", "--config", "eviscope-v1.1", "--dataset", str(dataset), "--out", str(out)]
    assert main([*args, *squad]) == 0
    sheet, markdown = (
        tmp_path / "sheets" / "eviscope-v1.1-conflicts.csv",
        tmp_path / "sheets" / "eviscope-v1.1-conflicts.md",
    )
    assert markdown.read_text().count("**Edited:**") == 6
    assert markdown.read_text().count("**The article's other sentences with a date or a number:**") == 6
    assert (tmp_path / "sheets" / "eviscope-v1.1-conflicts.articles.md").exists()
    _fill(sheet, {"q3-conflicting": ("yes", "yes", "no")})
    assert main(["review", "agreement", str(sheet)]) == 0
    assert "pass 5/6" in capsys.readouterr().out
    assert main(["review", "agreement", str(tmp_path / "missing.csv")]) == 2
    assert "cannot read sheet" in capsys.readouterr().err


def test_marks_of_a_passage_that_changed_are_refused_as_stale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = tmp_path / "v11"  # no dot: the sheet is v11.csv
    built = write_dataset(tmp_path / "ds", "eviscope-v1.1", ROWS)
    squad = ["--squad", str(_squad_file(tmp_path / "squad.json"))]
    args = ["review", "conflicts", "--config", "eviscope-v1.1", "--dataset", str(built), "--out", str(sheet)]
    assert main([*args, *squad]) == 0
    _fill(sheet.with_suffix(".csv"), {})
    check = ["review", "agreement", str(sheet.with_suffix(".csv")), "--config", "eviscope-v1.1"]
    assert main([*check, "--dataset", str(built)]) == 0
    assert "pass 6/6" in capsys.readouterr().out
    # A rebuild that edits q2's conflict passage differently: its mark no longer holds.
    rows = [
        row for n in range(1, 7) for row in quartet(n, str(1900 + n), str(1960 + n if n == 2 else 1950 + n))
    ]
    rebuilt = write_dataset(tmp_path / "ds2", "eviscope-v1.1", rows)
    assert main([*check, "--dataset", str(rebuilt)]) == 2
    assert (
        "1 marked item(s) are not conflict passages of eviscope-v1.1 as built now" in capsys.readouterr().err
    )
    # A sheet without fingerprints cannot be checked.
    with sheet.with_suffix(".csv").open(newline="", encoding="utf-8") as handle:
        old = [{k: v for k, v in row.items() if k != "fingerprint"} for row in csv.DictReader(handle)]
    _write(tmp_path / "old.csv", old)
    assert (
        main(
            [
                "review",
                "agreement",
                str(tmp_path / "old.csv"),
                "--config",
                "eviscope-v1.1",
                "--dataset",
                str(built),
            ]
        )
        == 2
    )
    assert "has no fingerprint column" in capsys.readouterr().err
