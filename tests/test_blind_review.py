"""The blind review of question-irrelevant edits mixed with conflicts (`eviscope review irrelevant-edits`),
and each row's article found in its own question source."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from eviscope_fixtures import write_dataset

from eviscope.cli import main
from eviscope.core.errors import EviScopeError
from eviscope.suites.eviscope.blind_review import (
    BLIND_CRITERIA,
    blind_agreement,
    blind_sheet,
    read_blind_sheet,
    sheet_keys,
    write_blind_sheet,
)
from eviscope.suites.eviscope.rows import EXPECTED_ACTION, VARIANTS, row_id

N = 8


def _article(n: int) -> list[str]:
    return [
        f"The town of {n} was founded in 1890. Its people farmed.",
        f"Intro {n}. The event number {n} happened in {1900 + n} after 3 long delays. More text.",
        f"Nobody came back. Three bridges were built later. The mayor of {n} resigned in 1930.",
    ]


ARTICLES = {"squad-dev": {f"Article {n}": _article(n) for n in range(1, N + 1)}}


def _xl_quartet(n: int, source: str = "squad-dev") -> list[dict[str, Any]]:
    """Quartet ``q<n>`` in ``eviscope-xl``'s balanced layout: the conflict passage changes the year the
    question asks for; the noisy row's copy of the support changes the count of delays, and the
    insufficient row's copy of the related passage the count of bridges."""
    title, (_, support, related) = f"Article {n}", _article(n)
    related = related.rsplit(" The mayor", 1)[0]

    def doc(key: str, text: str, doc_title: str = title) -> dict[str, str]:
        return {"doc_id": f"{key}{n}", "title": doc_title, "text": text}

    docs = {
        "sup": doc("sup", support),
        "con": doc("con", support.replace(str(1900 + n), str(1950 + n)).replace(" More text.", "")),
        "sup_copy": doc("copy", support.replace("3 long", "4 long").replace(" More text.", "")),
        "rel": doc("rel", related),
        "rel_copy": doc("relcopy", related.replace("Three", "Four")),
        "other": doc("other", f"Unrelated passage {n} about rivers.", "Other A"),
    }
    shown = {
        "sufficient": ["sup"],
        "noisy": ["other", "sup_copy", "sup"],
        "insufficient": ["rel_copy", "other", "rel"],
        "conflicting": ["con", "sup", "other"],
    }
    sentence = f"The event number {n} happened in {1900 + n} after 3 long delays."
    rows = []
    for variant in VARIANTS:
        supporting = {"sufficient": ["sup"], "noisy": ["sup", "copy"]}.get(variant, ["sup"])
        rows.append(
            {
                "id": row_id(f"q{n}", variant),
                "quartet_id": f"q{n}",
                "variant": variant,
                "question": f"When did event {n} happen?",
                "source_id": f"{source}-{n}",
                "source": source,
                "source_license": "CC BY-SA 4.0",
                "title": title,
                "documents": [docs[k] for k in shown[variant]],
                "answers": [str(1900 + n)],
                "expected_action": EXPECTED_ACTION[variant],
                "answerable": EXPECTED_ACTION[variant] == "answer",
                "supporting_doc_ids": [] if variant == "insufficient" else [f"{k}{n}" for k in supporting],
                "conflicting_doc_ids": [f"con{n}"] if variant == "conflicting" else [],
                "support_spans": []
                if variant == "insufficient"
                else [{"doc_id": f"sup{n}", "text": sentence}],
                "conflict_answer": str(1950 + n) if variant == "conflicting" else "",
                "near_duplicate": {"sufficient": "none", "conflicting": "conflict"}.get(
                    variant, "irrelevant_edit"
                ),
            }
        )
    return rows


ROWS = [row for n in range(1, N + 1) for row in _xl_quartet(n)]


def test_the_sheet_mixes_irrelevant_edits_with_conflicts_and_says_not_which(tmp_path: Path) -> None:
    items = blind_sheet(ROWS, sample=4, conflicts=2, seed=7, articles=ARTICLES)
    kinds = [item["kind"] for item in items]
    assert sorted(kinds) == ["conflict"] * 2 + ["irrelevant_edit"] * 4
    # One item per quartet, the irrelevant edits half from noisy rows and half from insufficient ones.
    assert len({item["row_id"].split("-")[0] for item in items}) == 6
    variants = sorted(item["row_id"].split("-")[1] for item in items if item["kind"] == "irrelevant_edit")
    assert variants == ["insufficient", "insufficient", "noisy", "noisy"]
    # Each item shows its changed sentence, and the insufficient row's original is the article's text.
    for item in items:
        assert item["original"] != item["edited"] and item["edited_sentence"] in item["edited"]
        assert any(item["original"] in p for p in ARTICLES["squad-dev"][item["title"]])
    relcopy = next(i for i in items if i["row_id"].endswith("insufficient"))
    assert relcopy["original_sentence"].startswith("Three bridges") and relcopy["edited_sentence"].startswith(
        "Four"
    )
    # The same seed draws the same sheet; the written sheet names no row, variant or kind.
    assert [i["id"] for i in blind_sheet(ROWS, 4, 2, 7, ARTICLES)] == [i["id"] for i in items]
    csv_path, markdown, whole = write_blind_sheet(items, tmp_path / "sheet", ARTICLES)
    written = csv_path.read_text() + markdown.read_text()
    for word in ("noisy", "insufficient", "conflicting", "irrelevant_edit", "q1-", "kind", "row_id"):
        assert word not in written
    assert "Nobody came back." in whole.read_text()
    with pytest.raises(
        EviScopeError, match="8 irrelevant edits and 2 conflicts need 10 quartets with both; the config has 8"
    ):
        blind_sheet(ROWS, 8, 2, 7, ARTICLES)


def _fill(
    path: Path, marks: dict[str, tuple[str, str, str, str]], default: dict[str, tuple[str, ...]]
) -> None:
    """Mark every item: ``marks`` by key, else the ``default`` of its kind (the test knows the kinds)."""
    kinds = {key: kind for key, (_, kind) in sheet_keys(ROWS).items()}
    with path.open(newline="", encoding="utf-8") as handle:
        lines = list(csv.DictReader(handle))
    for line in lines:
        line.update(zip(BLIND_CRITERIA, marks.get(line["id"], default[kinds[line["id"]]]), strict=True))
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(lines[0]))
        writer.writeheader()
        writer.writerows(lines)


GOOD = {"irrelevant_edit": ("yes", "yes", "yes", "no"), "conflict": ("yes", "yes", "yes", "yes")}


def test_marks_are_unblinded_against_the_build(tmp_path: Path) -> None:
    items = blind_sheet(ROWS, 4, 2, 7, ARTICLES)
    sheet = write_blind_sheet(items, tmp_path / "a", ARTICLES)[0]
    edit = next(i for i in items if i["kind"] == "irrelevant_edit")
    conflict = next(i for i in items if i["kind"] == "conflict")
    # An irrelevant edit that a reader finds changes the answer fails; so does a conflict that does not.
    _fill(
        sheet, {edit["id"]: ("yes", "yes", "yes", "yes"), conflict["id"]: ("yes", "yes", "yes", "no")}, GOOD
    )
    report = blind_agreement({"a": read_blind_sheet(sheet)}, sheet_keys(ROWS))
    assert report["sheets"]["a"]["irrelevant_edit"] == {
        "items": 4,
        "fluent": 4,
        "believable": 4,
        "stands_alone": 4,
        "changes_answer": 1,
        "pass": 3,
        "failed_ids": [edit["row_id"]],
    }
    assert report["sheets"]["a"]["conflict"]["pass"] == 1
    assert report["sheets"]["a"]["conflict"]["failed_ids"] == [conflict["row_id"]]
    # A rebuild that edits one copy differently leaves its mark stale: refused, not counted.
    rebuilt = [dict(r) for r in ROWS]
    row = next(r for r in rebuilt if r["id"] == edit["row_id"])
    row["documents"] = [
        {**d, "text": d["text"].replace("Four", "Five").replace("4 long", "5 long")} for d in row["documents"]
    ]
    with pytest.raises(EviScopeError, match="1 marked item\\(s\\) are not edits of the config as built now"):
        blind_agreement({"a": read_blind_sheet(sheet)}, sheet_keys(rebuilt))


def test_blind_review_commands_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dataset = write_dataset(tmp_path / "ds", "eviscope-xl", ROWS)
    squad = tmp_path / "squad.json"
    data = [
        {"title": title, "paragraphs": [{"context": c, "qas": []} for c in paragraphs]}
        for title, paragraphs in ARTICLES["squad-dev"].items()
    ]
    squad.write_text(json.dumps({"data": data, "version": "1.1"}), encoding="utf-8")
    out = tmp_path / "read" / "xl-irrelevant"
    common = ["--config", "eviscope-xl", "--dataset", str(dataset)]
    args = ["review", "irrelevant-edits", *common, "--sample", "4", "--conflicts", "2", "--seed", "3"]
    assert main([*args, "--squad", str(squad), "--out", str(out)]) == 0
    assert "6 items (4 irrelevant edits and 2 conflicts" in capsys.readouterr().out
    sheet = out.with_name("xl-irrelevant.csv")
    assert out.with_name("xl-irrelevant.articles.md").exists()
    _fill(sheet, {}, GOOD)
    # Without the build, the sheet cannot say which item is which: one clear line.
    assert main(["review", "agreement", str(sheet)]) == 2
    assert "give --config" in capsys.readouterr().err
    assert main(["review", "agreement", str(sheet), *common]) == 0
    printed = capsys.readouterr().out
    assert "irrelevant_edit: pass 4/4" in printed and "conflict: pass 2/2" in printed


def test_a_conflict_sheet_reads_each_row_in_its_own_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An xl row drawn from SQuAD train has its article there, not in SQuAD dev."""
    rows = [*_xl_quartet(1), *_xl_quartet(2, source="squad-train")]
    dataset = write_dataset(tmp_path / "ds", "eviscope-xl", rows)
    for name, titles in (("dev.json", ["Article 1"]), ("train.json", ["Article 2"])):
        data = [
            {"title": t, "paragraphs": [{"context": c, "qas": []} for c in ARTICLES["squad-dev"][t]]}
            for t in titles
        ]
        (tmp_path / name).write_text(json.dumps({"data": data, "version": "1.1"}), encoding="utf-8")
    monkeypatch.setenv("EVISCOPE_SQUAD_TRAIN", str(tmp_path / "train.json"))
    out = tmp_path / "sheet"
    args = ["review", "conflicts", "--config", "eviscope-xl", "--dataset", str(dataset), "--out", str(out)]
    assert main([*args, "--squad", str(tmp_path / "dev.json")]) == 0
    whole = out.with_name("sheet.articles.md").read_text()
    assert "(question source: squad-train)" in whole and "Nobody came back." in whole
    assert out.with_name("sheet.md").read_text().count("**Edited:**") == 2
