"""Evidence contextualization of EviScope rows: title and neighbours, the leak guard on the real
built rows, `eviscope build --contextualize` and `eviscope run --contextualize`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from runner_fixtures import chat_server

from eviscope.cli import main
from eviscope.core.normalize import contains
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.leaks import leak
from eviscope.suites.eviscope.row_context import TRANSFORM, contextualize_from_squad


def _context_lines(text: str) -> dict[str, str]:
    """The labelled parts a contextualized text starts with (Title, Before, After); a SQuAD
    paragraph may hold line breaks, so parts are split at the labels."""
    head, _, _ = text.rpartition("\nEvidence: ")
    return dict(part.split(": ", 1) for part in re.split(r"\n(?=(?:Title|Before|After): )", head))


@pytest.fixture(scope="module")
def rows_and_context(built_dataset: Path, squad_path: Path) -> tuple[list[dict], list[dict], dict]:
    rows = load_rows("eviscope-v1.1", built_dataset)
    contextualized, record = contextualize_from_squad(rows, str(squad_path))
    return rows, contextualized, record


def test_contextualized_documents_carry_title_and_neighbours_and_keep_ids(rows_and_context) -> None:
    rows, contextualized, record = rows_and_context
    neighboured = 0
    for row, new in zip(rows, contextualized, strict=True):
        assert {k: v for k, v in new.items() if k != "documents"} == {
            k: v for k, v in row.items() if k != "documents"
        }
        for doc, ctx in zip(row["documents"], new["documents"], strict=True):
            assert ctx["doc_id"] == doc["doc_id"] and ctx["title"] == doc["title"]
            assert ctx["text"].endswith(f"\nEvidence: {doc['text']}")
            lines = _context_lines(ctx["text"])
            assert lines["Title"] == doc["title"]
            neighboured += bool(lines.keys() & {"Before", "After"})
    assert neighboured > 0.8 * sum(len(row["documents"]) for row in rows)
    assert record["transform"] == TRANSFORM and record["squad_checksum"].startswith("sha256:")
    texts: dict[str, str] = {}
    for row in contextualized:  # one doc id, one text, as the build requires
        for doc in row["documents"]:
            assert texts.setdefault(doc["doc_id"], doc["text"]) == doc["text"]


def test_no_neighbour_shown_with_a_row_holds_its_gold_answer(rows_and_context) -> None:
    _, contextualized, record = rows_and_context
    assert record["without_neighbours"], "on the real rows some neighbours hold the answer: the guard fires"
    guarded = set(record["without_neighbours"])
    for row in contextualized:
        for doc in row["documents"]:
            lines = _context_lines(doc["text"])
            for near in (lines.get("Before", ""), lines.get("After", "")):
                assert not any(contains(near, alias) for alias in row["answers"]), (row["id"], doc["doc_id"])
                same_article = doc["title"] == row["title"]
                assert not (near and leak(row["question"], row["answers"], near, same_article)), row["id"]
            if doc["doc_id"] in guarded:
                assert lines.keys() == {"Title"}
    insufficient = [row for row in contextualized if row["variant"] == "insufficient"]
    for row in insufficient:  # the leak: no insufficient row became answerable from its documents
        assert not any(contains(doc["text"], alias) for doc in row["documents"] for alias in row["answers"])


def test_build_contextualize_writes_a_separate_dataset_with_the_same_rows(
    built_dataset: Path, squad_path: Path, tmp_path: Path, rows_and_context
) -> None:
    out = tmp_path / "dataset-contextualized"
    argv = ["build", "eviscope-v1.1", "--contextualize", "--squad", str(squad_path), "--out", str(out)]
    assert main(argv) == 0
    _, contextualized, record = rows_and_context
    assert load_rows("eviscope-v1.1", out) == contextualized
    report = json.loads((out / "build_report.json").read_text())
    assert report["eviscope"]["configs"]["eviscope-v1.1"]["contextualization"]["without_neighbours"] == list(
        record["without_neighbours"]
    )
    assert "# EviScope, contextualized" in (out / "README.md").read_text()
    assert main(["build", "forcebench", "--contextualize", "--out", str(out)]) == 2


def test_run_contextualize_shows_context_and_records_it_in_the_manifest(
    built_dataset: Path, squad_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    with chat_server() as server:
        argv = ["run", "--backend", "openai", "--base-url", server["url"], "--model", "m", "--limit", "4",
                "--dataset", str(built_dataset), "--out", str(out)]  # fmt: skip
        assert main([*argv, "--contextualize", "--squad", str(squad_path)]) == 0
        prompts = [body["messages"][-1]["content"] for body in server["bodies"]]
        assert len(prompts) == 4 and all("Title: " in p and "\nEvidence: " in p for p in prompts)
        assert any("Before: " in p for p in prompts)
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["contextualize"]["transform"] == TRANSFORM
        assert manifest["contextualize"]["squad"] == str(squad_path)
        assert main(argv) == 2  # the same folder without --contextualize is another run: refused
