"""EviScope's question sources beside SQuAD dev: one reader for them all, every row naming its source and
licence, ``eviscope-xl`` drawing from each."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
from test_build_cli import _build, _one_line_error

from eviscope.core.sources import SourceRef
from eviscope.suites.eviscope.squad_source import QUESTION_SOURCES, load_squad

LICENCES = {
    "squad-dev": "CC BY-SA 4.0",
    "squad-train": "CC BY-SA 4.0",
    "tydiqa-goldp-en": "Apache-2.0",
    "squadshifts-new-wiki": "CC BY 4.0",
    "mlqa-en-dev": "CC BY-SA 3.0",
}


def _rows(built_dataset: Path, config: str) -> list[dict]:
    return pq.read_table(built_dataset / "data" / config / "test.parquet").to_pylist()


def _entry(title: str, context: str, qid: str, answer: str) -> dict:
    start = context.index(answer)
    qa = {"id": qid, "question": f"What of {title}?", "answers": [{"text": answer, "answer_start": start}]}
    return {"title": title, "paragraphs": [{"context": context, "qas": [qa]}]}


def test_a_folder_of_json_files_is_one_source_whose_shared_titles_are_one_article(tmp_path: Path) -> None:
    # TyDi QA GoldP ships a train and a dev file, and gives each question its own entry under a title
    # that other entries repeat: read as one source, the passages of one title are one article, and
    # a passage given twice is one paragraph (else a row could show the same text twice).
    (tmp_path / "b_train.json").write_text(
        json.dumps(
            {
                "data": [
                    _entry("Oxygen", "Oxygen was found in 1774.", "t1", "1774"),
                    _entry("Oxygen", "It is element 8.", "t2", "element 8"),
                ]
            }
        )
    )
    (tmp_path / "a_dev.json").write_text(
        json.dumps(
            {
                "data": [
                    _entry("Oxygen", "It is element 8.", "d1", "8"),
                    _entry("Neon", "Neon was found in 1898.", "d2", "1898"),
                ]
            }
        )
    )
    spec = QUESTION_SOURCES["tydiqa-goldp-en"]
    squad = load_squad(SourceRef(spec.source.name, str(tmp_path), "--tydiqa-goldp-en", False), spec)
    assert [(p.title, p.context) for p in squad.paragraphs] == [
        ("Oxygen", "It is element 8."),
        ("Oxygen", "Oxygen was found in 1774."),
        ("Neon", "Neon was found in 1898."),
    ]
    assert [(q.id, q.paragraph, q.source) for q in squad.questions] == [
        ("d1", 0, "tydiqa-goldp-en"),
        ("t2", 0, "tydiqa-goldp-en"),
        ("t1", 1, "tydiqa-goldp-en"),
        ("d2", 2, "tydiqa-goldp-en"),
    ]
    assert (squad.name, squad.license) == ("tydiqa-goldp-en", "Apache-2.0")


def test_a_missing_question_source_is_one_line_naming_it_and_how_to_point(
    squad_path: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "no-tydiqa"
    line = _one_line_error(
        _build(
            "eviscope-xl",
            "--squad",
            str(squad_path),
            "--tydiqa-goldp-en",
            str(missing),
            "--out",
            str(tmp_path / "out"),
        )
    )
    assert "TyDi QA GoldP English" in line and str(missing) in line
    assert "--tydiqa-goldp-en PATH or EVISCOPE_TYDIQA_GOLDP_EN=PATH" in line


def test_every_row_names_its_source_and_licence(built_dataset: Path) -> None:
    for config in ("eviscope-v1", "eviscope-v1.1", "eviscope-xl"):
        for row in _rows(built_dataset, config):
            assert row["source_license"] == LICENCES[row["source"]], row["id"]
    assert {row["source"] for row in _rows(built_dataset, "eviscope-v1")} == {"squad-dev"}


def test_xl_draws_from_the_sources_and_reports_each(built_dataset: Path) -> None:
    rows = _rows(built_dataset, "eviscope-xl")
    quartets = {row["quartet_id"]: row["source"] for row in rows}
    assert len(quartets) >= 400  # 409 at seed 13; issue 32 asks for 500 (not reached: the card says so)
    per_source = Counter(quartets.values())
    # TyDi QA gives no quartet once every quartet needs a copy of a related passage (few of its articles
    # have three paragraphs); every other source gives some
    assert set(per_source) == set(LICENCES) - {"tydiqa-goldp-en"}, per_source
    report = json.loads((built_dataset / "build_report.json").read_text())["eviscope"]
    assert report["configs"]["eviscope-xl"]["per_source"] == {
        source: per_source[source] for source in LICENCES
    }
    # The evidence-blind audit is reported per source too, each over that source's rows alone (a source
    # of a quartet or two leaves no held-out half to score).
    audits = report["configs"]["eviscope-xl"]["shortcut_audit_per_source"]
    assert set(audits) == set(LICENCES)
    for source, audit in audits.items():
        assert set(audit["features"]) == set(report["configs"]["eviscope-xl"]["shortcut_audit"]["features"])
        if per_source[source] >= 10:
            assert audit["majority"]["all_rows"] == 0.5, source
    assert set(report["sources"]) == set(LICENCES)


def test_run_time_context_reads_each_rows_own_source(built_dataset: Path, squad_path: Path) -> None:
    # `eviscope run --contextualize` gives each document its article's neighbouring paragraphs: a row
    # of SQuAD-shifts finds them in SQuAD-shifts, not in SQuAD dev (which has no such article).
    from eviscope.suites.eviscope.row_context import contextualize_from_squad

    rows = [row for row in _rows(built_dataset, "eviscope-xl") if row["source"] == "squadshifts-new-wiki"]
    out, recorded = contextualize_from_squad(rows[:8], str(squad_path))
    assert set(recorded["sources"]) == {"squadshifts-new-wiki"}
    assert recorded["with_neighbours"] > 0
    assert [row["id"] for row in out] == [row["id"] for row in rows[:8]]
