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


def _read(tmp_path: Path, name: str, entries: list[dict]):
    (tmp_path / "part.json").write_text(json.dumps({"data": entries}))
    spec = QUESTION_SOURCES[name]
    return load_squad(SourceRef(spec.source.name, str(tmp_path), spec.source.flag, False), spec)


def test_tydi_citation_marks_are_read_out_with_the_answers_moved(tmp_path: Path) -> None:
    # TyDi QA keeps Wikipedia's "[24]" marks in 60% of its passages: they are no part of a sentence,
    # and read in they end the answer's sentence ("in 1907.[24] Former") and tell the source apart.
    context = "Its first team was formed in 1907.[24] Dom Manuel II[2] coached it[note 3] until 1912.[5][6]"
    squad = _read(tmp_path, "tydiqa-goldp-en", [_entry("Georgetown", context, "t1", "1912")])
    fixed = "Its first team was formed in 1907. Dom Manuel II coached it until 1912."
    assert squad.paragraphs[0].context == fixed
    ((text, start),) = squad.questions[0].answers
    assert (text, start) == ("1912", fixed.index("1912"))


def test_mlqa_sentences_without_a_space_after_the_full_stop_are_read_as_two(tmp_path: Path) -> None:
    # A third of MLQA's paragraphs run sentences together ("India.The disease"), which reads them as
    # one sentence: no window of the passage could be cut there.
    from eviscope.core.sentences import sentence_spans

    context = "Poe died in 1849.Poe and his works influenced literature.The Raven appeared in 1845."
    squad = _read(tmp_path, "mlqa-en-dev", [_entry("Poe", context, "m1", "The Raven")])
    fixed = "Poe died in 1849. Poe and his works influenced literature. The Raven appeared in 1845."
    assert squad.paragraphs[0].context == fixed
    assert len(sentence_spans(fixed)) == 3
    assert squad.questions[0].answers == (("The Raven", fixed.index("The Raven")),)


def test_squad_dev_is_read_as_it_is(tmp_path: Path) -> None:
    # v1 and v1.1 keep their rows: SQuAD's own citation marks are left as they are.
    squad = _read(tmp_path, "squad-dev", [_entry("Tesla", "He left in 1878.[3]", "d1", "1878")])
    assert squad.paragraphs[0].context == "He left in 1878.[3]"


def test_a_two_paragraph_article_of_a_new_source_is_typed(tmp_path: Path) -> None:
    # xl's insufficient row shows one related passage and its copy: an article of two paragraphs
    # (most of TyDi QA's and MLQA's that have more than one) can give a quartet, so spaCy types it.
    from eviscope.builders.eviscope.eligibility import typed_paragraphs

    squad = _read(
        tmp_path,
        "tydiqa-goldp-en",
        [
            _entry("Neon", "Neon was found in 1898 by Ramsay.", "t1", "1898"),
            _entry("Neon", "Neon glows red in a lamp.", "t2", "red"),
            _entry("Argon", "Argon was found in 1894.", "t3", "1894"),
        ],
    )
    assert typed_paragraphs(squad) == frozenset({0, 1})


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


def test_xl_draws_from_the_sources_it_can_audit_and_reports_each(built_dataset: Path) -> None:
    from eviscope.builders.eviscope.configs import MIN_SOURCE_QUARTETS

    rows = _rows(built_dataset, "eviscope-xl")
    quartets = {row["quartet_id"]: row["source"] for row in rows}
    # 350 at seed 13 from the three sources that give enough to audit alone (390 before issue 32's ninth
    # to twelfth reads' rules); issue 32 asks for 500, which these sources do not reach under its rules
    # (the card and the docs say where each source's questions are lost).
    assert len(quartets) >= 300
    per_source = Counter(quartets.values())
    report = json.loads((built_dataset / "build_report.json").read_text())["eviscope"]
    xl = report["configs"]["eviscope-xl"]
    assert xl["per_source"] == {source: per_source[source] for source in LICENCES}
    # A source that gives too few quartets for its own audit to mean anything gives none, and the report
    # says how many it would have given: TyDi QA and MLQA, whose articles are mostly one passage.
    left_out = xl["sources_left_out"]
    assert set(left_out) == {"tydiqa-goldp-en", "mlqa-en-dev"}, left_out
    assert all(0 < entry["quartets"] < MIN_SOURCE_QUARTETS for entry in left_out.values())
    assert set(per_source) == set(LICENCES) - set(left_out)
    # Every source drawn is audited alone, on a held-out half of at least half the minimum, and no
    # evidence-blind feature is more than 5 points above the majority rate on its rows.
    for key in ("shortcut_audit", "surface_audit"):
        audits = xl[key]["per_source"]
        assert set(audits) == set(per_source), key
        for source, audit in audits.items():
            assert audit["held_out_quartets"] >= MIN_SOURCE_QUARTETS // 2, (key, source)
            assert audit["majority"]["all_rows"] == 0.5, (key, source)
    for source, audit in xl["shortcut_audit"]["per_source"].items():
        assert audit["max_gain_multi_document"] <= 5.0, source
    assert set(xl["shortcut_audit_per_source"]) == set(per_source)
    assert set(report["sources"]) == set(LICENCES)
    # Each source says why its other questions are not eligible, and the counts add up to what it holds.
    for source in report["sources"].values():
        assert sum(source["rejected"].values()) + source["eligible_questions"] == source["questions_scanned"]


def test_run_time_context_reads_each_rows_own_source(built_dataset: Path, squad_path: Path) -> None:
    # `eviscope run --contextualize` gives each document its article's neighbouring paragraphs: a row
    # of SQuAD-shifts finds them in SQuAD-shifts, not in SQuAD dev (which has no such article).
    from eviscope.suites.eviscope.row_context import contextualize_from_squad

    rows = [row for row in _rows(built_dataset, "eviscope-xl") if row["source"] == "squadshifts-new-wiki"]
    out, recorded = contextualize_from_squad(rows[:8], str(squad_path))
    assert set(recorded["sources"]) == {"squadshifts-new-wiki"}
    assert recorded["with_neighbours"] > 0
    assert [row["id"] for row in out] == [row["id"] for row in rows[:8]]
