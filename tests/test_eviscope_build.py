"""The EviScope configs as built from the real SQuAD v1.1 dev file: every invariant of contract §2."""

from __future__ import annotations

import functools
import json
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from datasets import Dataset, load_dataset
from datasets.exceptions import NonMatchingSplitsSizesError
from huggingface_hub import DatasetCard

from eviscope.builders.eviscope.answer_forms import answer_form
from eviscope.builders.eviscope.believability import RULES
from eviscope.builders.eviscope.conflict_lints import (
    LINTS,
    ConflictCase,
    cue_sentence_spans,
    run_lints,
    substituted_phrase,
    without_cue_sentences,
)
from eviscope.builders.eviscope.quartets import question_key
from eviscope.builders.eviscope.rules import DECLARED, card_sections
from eviscope.cli import main
from eviscope.core.normalize import contains, norm
from eviscope.core.sources import resolve
from eviscope.suites.eviscope.leaks import holds_alias, leak
from eviscope.suites.eviscope.rows import EVISCOPE_FEATURES, EXPECTED_ACTION, VARIANTS
from eviscope.suites.eviscope.squad_source import Squad, load_squad

REPO = Path(__file__).resolve().parents[1]

CONFIGS = ("eviscope-v1", "eviscope-v1.1", "eviscope-xl")


def _load(folder: Path, config: str, cache: Path) -> Dataset:
    return load_dataset(str(folder), config, split="test", cache_dir=str(cache))


@pytest.fixture(scope="module")
def configs(built_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Dataset]:
    cache = tmp_path_factory.mktemp("hf-cache")
    return {config: _load(built_dataset, config, cache) for config in CONFIGS}


@pytest.fixture(scope="module")
def report(built_dataset: Path) -> dict:
    return json.loads((built_dataset / "build_report.json").read_text())["eviscope"]


def test_v11_loads_offline_with_160_rows_and_the_spec_features(configs: dict[str, Dataset]) -> None:
    rows = configs["eviscope-v1.1"]
    assert rows.num_rows == 160
    assert rows.features == EVISCOPE_FEATURES


def test_sizes_of_every_config(configs: dict[str, Dataset]) -> None:
    assert configs["eviscope-v1"].num_rows == 160
    # eviscope-xl draws every quartet its sources allow: 350 at seed 13 (317 before an irrelevant edit could
    # change a value of another kind, 390 before the rules of issue 32's ninth to twelfth blind reads) from
    # the three sources that give enough quartets to be audited alone (TyDi QA's 14 and MLQA's 12 do not;
    # issue 32 asks for 500, which these sources do not reach under its rules: the card says so).
    quartets = len(set(configs["eviscope-xl"]["quartet_id"]))
    assert configs["eviscope-xl"].num_rows == 4 * quartets
    assert quartets >= 300


@pytest.mark.parametrize("config", CONFIGS)
def test_quartets_have_four_variants_with_expected_actions(configs: dict[str, Dataset], config: str) -> None:
    by_quartet: dict[str, list[dict]] = defaultdict(list)
    for row in configs[config]:
        by_quartet[row["quartet_id"]].append(row)
        assert row["id"] == f"{row['quartet_id']}-{row['variant']}"
        assert row["expected_action"] == EXPECTED_ACTION[row["variant"]]
        assert row["answerable"] == (row["expected_action"] == "answer")
        assert row["conflict_answer"] == "" or row["variant"] == "conflicting"
    for rows in by_quartet.values():
        assert sorted(r["variant"] for r in rows) == sorted(VARIANTS)
        assert len({(r["question"], r["source_id"], tuple(r["answers"])) for r in rows}) == 1


@pytest.mark.parametrize("config", CONFIGS)
def test_per_article_cap_and_distinct_base_questions(configs: dict[str, Dataset], config: str) -> None:
    cap = 30 if config == "eviscope-xl" else 3
    bases = {row["quartet_id"]: (row["title"], row["source_id"]) for row in configs[config]}
    assert max(Counter(title for title, _ in bases.values()).values()) <= cap
    assert len({source for _, source in bases.values()}) == len(bases)


@pytest.mark.parametrize("config", CONFIGS)
def test_documents_and_gold_ids(configs: dict[str, Dataset], config: str) -> None:
    for row in configs[config]:
        ids = [d["doc_id"] for d in row["documents"]]
        count = {"sufficient": 1, "noisy": 3, "insufficient": 3, "conflicting": 2}[row["variant"]]
        if config == "eviscope-xl" and row["variant"] == "conflicting":
            count = 3  # the balanced layout: the support, the conflict passage and an other-article one
        assert len(ids) == len(set(ids)) == count
        assert set(row["supporting_doc_ids"]) | set(row["conflicting_doc_ids"]) <= set(ids)
        assert (row["variant"] == "insufficient") == (not row["supporting_doc_ids"])
        assert (row["variant"] == "conflicting") == bool(row["conflicting_doc_ids"])


@pytest.mark.parametrize("config", CONFIGS)
def test_no_gold_alias_outside_the_support_in_noisy_and_insufficient(
    configs: dict[str, Dataset], config: str
) -> None:
    for row in configs[config]:
        if row["variant"] in ("noisy", "insufficient"):
            for document in row["documents"]:
                if document["doc_id"] not in row["supporting_doc_ids"]:
                    assert not any(contains(document["text"], a) for a in row["answers"]), row["id"]
        if row["variant"] != "insufficient":
            support = [d for d in row["documents"] if d["doc_id"] in row["supporting_doc_ids"]]
            assert any(contains(support[0]["text"], a) for a in row["answers"]), row["id"]


@pytest.mark.parametrize("config", CONFIGS)
def test_support_spans_are_verbatim_answer_bearing_sentences(
    configs: dict[str, Dataset], config: str
) -> None:
    for row in configs[config]:
        texts = {d["doc_id"]: d["text"] for d in row["documents"]}
        for span in row["support_spans"]:
            assert span["doc_id"] in row["supporting_doc_ids"]
            assert span["text"] in texts[span["doc_id"]], row["id"]
            assert any(contains(span["text"], a) for a in row["answers"]), row["id"]


@pytest.mark.parametrize("config", CONFIGS)
def test_doc_ids_are_stable_and_blind_to_role(configs: dict[str, Dataset], config: str) -> None:
    text_of: dict[str, str] = {}
    first_position: Counter[int] = Counter()
    for row in configs[config]:
        for document in row["documents"]:
            assert text_of.setdefault(document["doc_id"], document["text"]) == document["text"]
            assert re.fullmatch(r"doc-[0-9a-f]{8}", document["doc_id"])
        if row["variant"] != "sufficient":
            ids = [d["doc_id"] for d in row["documents"]]
            first_position[ids.index(row["supporting_doc_ids"][0]) if row["supporting_doc_ids"] else -1] += 1
    # One id per text within a quartet and across it; the support is not always shown first.
    assert first_position[0] < sum(first_position.values()) * 0.75


def test_v1_equals_v11_outside_conflict_rows(configs: dict[str, Dataset], report: dict) -> None:
    # v1.1 keeps the quartets of v1 whose conflict can be made believable against the article; the
    # others are redrawn (the report counts them), and v1 stays the legacy construction.
    def by_question(config: str) -> dict[tuple[str, str], dict]:
        return {(r["source_id"], r["variant"]): r for r in configs[config]}

    legacy, repaired = by_question("eviscope-v1"), by_question("eviscope-v1.1")
    shared = {source for source, _ in legacy} & {source for source, _ in repaired}
    # and of those, the ones whose passage, shown whole, does not stand alone (issue 32) are redrawn too.
    alone = report["configs"]["eviscope-v1.1"]["standing_alone"]["replaced"]
    not_alone = {r["source_id"] for r in alone} & {source for source, _ in legacy}
    assert len(shared) == report["configs"]["eviscope-v1.1"]["believability"]["kept"] - len(not_alone) >= 15
    assert 40 - len(shared) == report["configs"]["eviscope-v1.1"]["believability"]["redrawn"] + len(not_alone)
    for (source, variant), old in legacy.items():
        if source not in shared:
            continue
        new = repaired[source, variant]
        if variant == "conflicting":
            assert old["conflicting_doc_ids"] != new["conflicting_doc_ids"]
            assert old["supporting_doc_ids"] == new["supporting_doc_ids"]
        else:
            # The same row; a renumbered id shuffles its documents with another seed.
            def same(row: dict) -> dict:
                kept = {k: v for k, v in row.items() if k not in {"id", "quartet_id", "documents"}}
                return {**kept, "documents": sorted(row["documents"], key=lambda d: d["doc_id"])}

            assert same(old) == same(new)


def _conflict_case(row: dict) -> ConflictCase:
    texts = {d["doc_id"]: d["text"] for d in row["documents"]}
    return ConflictCase(
        row["question"],
        tuple(row["answers"]),
        texts[row["supporting_doc_ids"][0]],
        row["support_spans"][0]["text"],
        texts[row["conflicting_doc_ids"][0]],
        row["conflict_answer"],
    )


def _unedited(row: dict) -> str:
    """The conflict passage with its alternative put back to the gold answer: for xl's windows, the same
    run of sentences of the support (or of the support less its cue sentences)."""
    conflict = _conflict_case(row).conflict_text
    alternative = rf"(?<![\w-]){re.escape(row['conflict_answer'])}(?![\w-])"
    return re.sub(alternative, lambda _: _core(row), conflict, count=1)


def _linted_case(row: dict) -> ConflictCase:
    """The lint input of a conflicting row: its conflict passage against the same sentences of the support."""
    case = _conflict_case(row)
    excerpt = without_cue_sentences(case.support_text)
    window = _unedited(row)
    if window in case.support_text or window in excerpt:
        return case._replace(support_text=window)
    return case


@pytest.mark.parametrize("config", ["eviscope-v1.1", "eviscope-xl"])
def test_every_repaired_conflict_row_passes_all_six_lints(configs: dict[str, Dataset], config: str) -> None:
    for row in configs[config]:
        if row["variant"] == "conflicting":
            failed = {name: r.reason for name, r in run_lints(_linted_case(row)).items() if not r.ok}
            assert not failed, (row["id"], failed)


def test_a_cue_outside_the_answer_sentence_is_dropped_from_the_conflict_passage(
    configs: dict[str, Dataset], report: dict
) -> None:
    # A support that holds a conflict cue outside the answer's sentences no longer rules a question
    # out: its conflict passage is the support less exactly its cue sentences, with the answer replaced.
    assert "support passage holds a conflict cue" not in report["rejected"]
    assert report["rejected"]["the answer's sentence holds a conflict cue"] > 0
    made_on_excerpts: Counter[str] = Counter()
    for config in ("eviscope-v1.1", "eviscope-xl"):
        for row in configs[config]:
            if row["variant"] != "conflicting":
                continue
            case = _conflict_case(row)
            cued = cue_sentence_spans(case.support_text)
            if not cued:
                continue
            made_on_excerpts[config] += 1
            for start, end in cued:
                assert case.support_text[start:end] not in case.conflict_text, row["id"]
            excerpt = without_cue_sentences(case.support_text)
            assert case.support_span in excerpt, row["id"]
            window = _linted_case(row).support_text
            assert window in excerpt, row["id"]
            assert substituted_phrase(window, case.conflict_text, case.conflict_answer) in case.answers
    # v1 and v1.1 keep the quartets of the first release, whose supports hold no cue.
    assert made_on_excerpts["eviscope-v1.1"] == 0
    assert made_on_excerpts["eviscope-xl"] > 0


def test_date_answers_are_drawn_in_xl_only(configs: dict[str, Dataset], report: dict) -> None:
    # v1 and v1.1 keep the quartets of their first release (no date answers); xl draws dates too,
    # each replaced by a date of the same kind.
    from eviscope.builders.eviscope.date_forms import parse_date

    assert "date" not in report["configs"]["eviscope-v1.1"]["answer_types"]
    assert report["configs"]["eviscope-xl"]["answer_types"]["date"] > 0
    dated = 0
    for row in configs["eviscope-xl"]:
        gold = parse_date(min(row["answers"], key=len))
        if row["variant"] == "conflicting" and gold is not None:
            dated += 1
            new = parse_date(row["conflict_answer"])
            assert new is not None and new.kind == gold.kind, row["id"]
    assert dated == report["configs"]["eviscope-xl"]["answer_types"]["date"]


def test_the_answer_typer_meets_its_accuracy_target_on_the_hand_labels(report: dict) -> None:
    measured = report["answer_typer"]["hand_labelled"]
    assert measured["found_in_source"] == measured["labelled"] == 150
    assert measured["accuracy"] >= 0.9
    assert sum(sum(row.values()) for row in measured["confusion"].values()) == 150


def test_report_counts_lints_per_config(configs: dict[str, Dataset], report: dict) -> None:
    assert report["configs"]["eviscope-v1.1"]["lint_pass"] == dict.fromkeys(LINTS, 40)
    # Constraint 2's same_type check, on its own: every repaired row passes, legacy rows do not.
    assert report["configs"]["eviscope-v1.1"]["same_type_pass"] == 40
    assert report["configs"]["eviscope-xl"]["same_type_pass"] == report["configs"]["eviscope-xl"]["quartets"]
    assert report["configs"]["eviscope-v1"]["same_type_pass"] < 40
    legacy_rows = [row for row in configs["eviscope-v1"] if row["variant"] == "conflicting"]
    for lint in LINTS:
        passed = sum(run_lints(_conflict_case(row))[lint].ok for row in legacy_rows)
        assert report["configs"]["eviscope-v1"]["lint_pass"][lint] == passed
    assert report["configs"]["eviscope-v1"]["lint_pass"] != dict.fromkeys(LINTS, 40)
    assert report["source"]["checksum"] == (
        "sha256:95aa6a52d5d6a735563366753ca50492a658031da74f301ac5238b03966972c9"
    )
    assert report["configs"]["eviscope-v1.1"]["per_variant"] == dict.fromkeys(VARIANTS, 40)
    assert len(report["configs"]["eviscope-v1.1"]["articles_used"]) >= 14


def test_committed_card_declares_what_the_build_writes(built_dataset: Path, report: dict) -> None:
    def header(path: Path) -> dict:
        data = DatasetCard.load(path).data.to_dict()
        for info in data["dataset_info"]:
            info.pop("dataset_size", None)
            for split in info["splits"]:
                split.pop("num_bytes", None)
        return data

    assert header(built_dataset / "README.md") == header(REPO / "dataset" / "README.md")
    body = (REPO / "dataset" / "README.md").read_text()
    text = " ".join(body.split())
    for number, lint in enumerate(LINTS, 1):
        cells = [
            f"{report['configs'][c]['lint_pass'][lint]}/{report['configs'][c]['quartets']}" for c in CONFIGS
        ]
        assert f"| {number}. {lint} | " + " | ".join(cells) + " |" in body
    assert f"{report['eligible_questions']:,} of the {report['questions_scanned']:,} dev questions" in text
    # The rules' list and counts are rendered from their declarations and this build's report
    # (`python scripts/eviscope_card_rules.py BUILD_REPORT`), never written by hand.
    for name, section in card_sections(report).items():
        assert f"<!-- {name} -->\n{section}\n<!-- /{name} -->" in body, name


def test_a_wrong_row_count_fails_at_load(built_dataset: Path, tmp_path: Path) -> None:
    folder = tmp_path / "dataset"
    folder.mkdir()
    (folder / "data").symlink_to(built_dataset / "data")
    card = (built_dataset / "README.md").read_text()
    (folder / "README.md").write_text(card.replace("num_examples: 160", "num_examples: 161"))
    with pytest.raises(NonMatchingSplitsSizesError):
        _load(folder, "eviscope-v1.1", tmp_path / "cache")


def test_two_builds_with_one_seed_are_byte_identical(
    squad_path: Path, built_dataset: Path, tmp_path: Path
) -> None:
    assert (
        main(["build", "eviscope-v1", "eviscope-v1.1", "--squad", str(squad_path), "--out", str(tmp_path)])
        == 0
    )
    for config in ("eviscope-v1", "eviscope-v1.1"):
        again = (tmp_path / "data" / config / "test.parquet").read_bytes()
        assert again == (built_dataset / "data" / config / "test.parquet").read_bytes()


def test_another_seed_draws_other_quartets(squad_path: Path, built_dataset: Path, tmp_path: Path) -> None:
    args = ["build", "eviscope-v1.1", "--squad", str(squad_path), "--out", str(tmp_path), "--seed", "7"]
    assert main(args) == 0
    other = _load(tmp_path, "eviscope-v1.1", tmp_path / "cache")
    base = _load(built_dataset, "eviscope-v1.1", tmp_path / "cache")
    assert set(other["source_id"]) != set(base["source_id"])
    assert other.num_rows == 160


def test_forcebench_loads_offline_beside_the_eviscope_configs(built_dataset: Path, tmp_path: Path) -> None:
    from eviscope.suites.forcebench.rows import FORCEBENCH_FEATURES

    rows = _load(built_dataset, "forcebench", tmp_path / "cache")
    assert rows.features == FORCEBENCH_FEATURES
    # the 83 pairs the five annotation rounds kept from human-written and cited claims (issue 33 asks
    # for the paper's 198 contrast pairs, at least 38 per axis: not reached, the card says where they go)
    assert rows.num_rows >= 80
    assert set(rows["split"]) == {"eval"}
    # every axis is there; relation is the scarcest (7 contrast pairs and 1 control)
    assert min(Counter(rows["axis"]).values()) >= 8
    # settled by the committed annotation marks: every eval row adjudicated; a candidate no mark
    # settles yet (drafted) waits in pool. Until issue 33's human-claim candidates are annotated, the
    # eval split is the 46 cited-claim rows the earlier marks still settle
    status = Counter(zip(rows["split"], rows["annotation_status"], strict=True))
    assert status[("eval", "adjudicated")] >= 40 and set(status) <= {
        ("eval", "adjudicated"),
        ("pool", "adjudicated"),
        ("pool", "drafted"),
    }


def test_card_prose_states_the_built_composition(built_dataset: Path) -> None:
    full = json.loads((built_dataset / "build_report.json").read_text())
    body = (REPO / "dataset" / "README.md").read_text()
    text = " ".join(body.split())
    for config in ("eviscope-v1.1", "eviscope-xl"):
        built = full["eviscope"]["configs"][config]
        types = ", ".join(f"{kind} {n}" for kind, n in built["answer_types"].items())
        assert f"`{config}`: {types} of {built['quartets']:,} quartets" in text
    typer = full["eviscope"]["answer_typer"]["hand_labelled"]
    assert f"{typer['accuracy']:.1%} of the {typer['labelled']} hand-labelled answers" in text
    forcebench = full["forcebench"]
    axes = ", ".join(f"{axis} {n}" for axis, n in forcebench["axis"].items())
    severity = ", ".join(f"{s}: {n}" for s, n in forcebench["severity"].items())
    assert f"The {forcebench['rows']} pairs ({axes}; severity {severity})" in text
    sources = ", ".join(
        f"{name.split('/', 1)[-1]} {n}"
        for name, n in sorted(forcebench["source_dataset"].items(), key=lambda item: (-item[1], item[0]))
    )
    assert f"Rows per source dataset: {sources};" in text


STRICT_READ_FAILURES = [
    pytest.param(failure, rule.name, id=f"{rule.name}-{failure.source_id}-{failure.alternative}")
    for rule in DECLARED
    for failure in rule.failures
]
"""The failures of the strict whole-article reads, each with the rule that now rejects it and the sentence of
the article that rules it out, as each rule declares them (builders/eviscope/rules.py)."""


FAR_MOVES_READ = [
    # (SQuAD id, answer, alternative): failures of the strict whole-article reads of xl (seeds 4141, 5151,
    # 6161) that moved a year more than two years, a precise figure more than 5%, a percentage more than
    # five points, or edited a count of fewer than ten things; eviscope-xl's moves (NEAR_MOVES) never make them.
    ("57300a25a23a5019007fcc9a", "1806", "1803"),  # the Confederation of the Rhine
    ("56e0d402231d4119001ac3fc", "1881", "1872"),  # Tesla to Budapest
    ("5730b541396df919000962c3", "1776", "1785"),  # the American colonies lost
    ("573099f42461fd1900a9cef7", "1735", "1728"),  # the Wesleys in Georgia (founded 1732-33)
    ("572926086aef051400154ac5", "1992", "1986"),  # the last 7-4-2-3 graduates
    ("572917ff6aef051400154a5e", "61%", "80%"),  # services' share of GDP
    ("57275339dd62a815002e9b2b", "96.26%", "69.26%"),  # ABC's households
    ("570d29c2b3d812140066d4bd", "61.1%", "44.1%"),  # Christian Victorians
    ("5705e63175f01819005e7721", "3,792,621", "3,380,585"),  # Los Angeles
    ("5725f7cd38643c19005acf23", "494,665", "425,403"),  # Fresno
    ("56e10b6ee3433e1400422b24", "1,655,114", "2,289,197"),  # Tesla's last patent, of 1928
    ("56e7591b00c9c71400d76fec", "30", "20"),  # US states (a third)
    ("570d26efb3d812140066d491", "five", "six"),  # members of each electorate
    ("57378e311c456719005744b2", "4", "5"),  # Maxwell's vector equations
]


@pytest.mark.parametrize(("source_id", "answer", "alternative"), FAR_MOVES_READ)
def test_xl_never_moves_an_answer_as_far_as_the_read_failures_did(
    configs: dict[str, Dataset], source_id: str, answer: str, alternative: str
) -> None:
    import random

    from eviscope.builders.eviscope.alternatives import NEAR_MOVES, _near_options

    kind = "year" if answer_form(answer) == "year" else "quantity"
    for seed in range(20):
        assert alternative not in _near_options(answer, kind, NEAR_MOVES, random.Random(seed))
    for row in configs["eviscope-xl"]:
        if row["variant"] == "conflicting" and row["source_id"] == source_id:
            assert row["conflict_answer"] != alternative, row["id"]


def test_xl_alternatives_stay_near_their_answer(configs: dict[str, Dataset]) -> None:
    from eviscope.builders.eviscope.alternatives import NEAR_MOVES, is_percentage, spread
    from eviscope.builders.eviscope.answer_forms import number_value

    for row in configs["eviscope-xl"]:
        if row["variant"] != "conflicting":
            continue
        core, new = _core(row), row["conflict_answer"]
        support = row["support_spans"][0]["text"]
        after = support[support.index(core) + len(core) :] if core in support else ""
        if answer_form(core) == "year":
            assert abs(int(new) - int(core)) <= NEAR_MOVES.years, row["id"]
        elif answer_form(core) == "number":
            old = number_value(core)
            assert old >= NEAR_MOVES.least_count, row["id"]
            allowed = spread(core, NEAR_MOVES, is_percentage(core, after)) * old
            assert abs(number_value(new) - old) <= allowed + 1e-9, row["id"]


@pytest.fixture(scope="module")
def believability(squad_path: Path):
    from eviscope.builders.eviscope.answer_types import paragraph_entities
    from eviscope.builders.eviscope.believability import Believability
    from eviscope.core.sources import resolve
    from eviscope.suites.eviscope.squad_source import load_squad

    squad = load_squad(resolve("squad", str(squad_path)))
    return squad, Believability(squad, paragraph_entities(squad))


@pytest.fixture(scope="module")
def believability_per_source(believability, question_sources: dict[str, Path]):
    """Each question source's believability checker, as the build reads it (SQuAD dev's the one above)."""
    from eviscope.builders.eviscope.answer_types import paragraph_entities
    from eviscope.builders.eviscope.believability import Believability
    from eviscope.builders.eviscope.eligibility import typed_paragraphs
    from eviscope.suites.eviscope.squad_source import DEV, QUESTION_SOURCES, load_question_source

    checkers = {DEV.name: believability}
    for name in QUESTION_SOURCES:
        if name != DEV.name:
            squad = load_question_source(name, None)
            checkers[name] = (
                squad,
                Believability(squad, paragraph_entities(squad, only=typed_paragraphs(squad))),
            )
    return checkers


def _answer(squad, source_id: str, core: str, at: str = ""):
    """Where ``core`` stands: the answer in its question's paragraph, or, with ``at``, the value inside the
    words ``at`` of a paragraph of the question's article (a question-irrelevant edit)."""
    from eviscope.builders.eviscope.believability import Answer

    question = next(q for q in squad.questions if q.id == source_id)
    if at:
        title = squad.paragraphs[question.paragraph].title
        paragraph = next(i for i, p in enumerate(squad.paragraphs) if p.title == title and at in p.context)
        context = squad.paragraphs[paragraph].context
        start = context.index(at) + at.index(core)
        kind = {"year": "year", "number": "quantity", "date": "date"}.get(answer_form(core), "person")
        return Answer(paragraph, start, core, kind, question.question)
    context = squad.paragraphs[question.paragraph].context
    start = re.search(rf"(?<!\w){re.escape(core)}(?!\w)", context).start()
    kind = {"year": "year", "number": "quantity", "date": "date"}.get(answer_form(core), "person")
    return Answer(question.paragraph, start, core, kind, question.question)


def _core(row: dict) -> str:
    return min(row["answers"], key=lambda a: (len(a.split()), len(a)))


@pytest.mark.parametrize(("failure", "rule"), STRICT_READ_FAILURES)
def test_the_strict_readers_failures_are_gone_and_named(
    configs: dict[str, Dataset], believability_per_source, failure, rule: str
) -> None:
    squad, checker = believability_per_source[failure.source]
    for config in ("eviscope-v1.1", "eviscope-xl"):
        for row in configs[config]:
            if row["variant"] == "conflicting" and row["source_id"] == failure.source_id:
                assert row["conflict_answer"] != failure.alternative, (config, row["id"])
            if failure.at and row["source_id"] == failure.source_id and row["variant"] != "conflicting":
                # A question-irrelevant edit the read failed: no copy shows that value again.
                edited = failure.at.replace(failure.answer, failure.alternative, 1)
                assert not any(edited in doc["text"] for doc in row["documents"]), (config, row["id"])
    answer = _answer(squad, failure.source_id, failure.answer, failure.at)
    found = checker.finding(answer, failure.alternative)
    assert found is not None and found.rule == rule and rule in RULES
    assert failure.sentence in found.sentence


# The blind read of v1.1's conflicts at seed 3232 (review/, 37/40): three fluent passages that do not
# stand alone as a whole paragraph, each of a class the rule now names.
NOT_STANDING_ALONE = [
    (
        "57273455f1498d1400e8f48f",
        "cut_referent",
    ),  # "took the mausoleum": the Mausoleum is the previous paragraph's
    ("5728f9342ca10214002dab55", "cut_referent"),  # "recorded the name": the previous paragraph's name
    ("5733a45d4776f41900660f26", "cuts_list"),  # ends on "asks the question:"
]


@pytest.mark.parametrize(("source_id", "problem"), NOT_STANDING_ALONE)
def test_the_blind_reads_passages_that_do_not_stand_alone_are_redrawn(
    configs: dict[str, Dataset], report: dict, squad_path: Path, source_id: str, problem: str
) -> None:
    from eviscope.builders.eviscope.windows import around, window_problem
    from eviscope.core.sentences import sentence_spans

    squad = load_squad(resolve("squad", str(squad_path)))
    paragraph = next(q.paragraph for q in squad.questions if q.id == source_id)
    text = squad.paragraphs[paragraph].context
    spans = sentence_spans(text)
    assert window_problem(text, spans, 0, len(spans) - 1, around(squad, paragraph)) == problem
    if problem == "cut_referent":  # the previous paragraph tells: the paragraph alone names no referent cut
        assert window_problem(text, spans, 0, len(spans) - 1) is None
    assert source_id not in set(configs["eviscope-v1.1"]["source_id"])
    replaced = report["configs"]["eviscope-v1.1"]["standing_alone"]["replaced"]
    assert {"source_id": source_id, "problem": problem}.items() <= next(
        r for r in replaced if r["source_id"] == source_id
    ).items()


@pytest.mark.parametrize("config", CONFIGS[1:])
def test_every_conflict_passage_shown_stands_alone_in_its_article(
    configs: dict[str, Dataset], squad_path: Path, question_sources: dict[str, Path], config: str
) -> None:
    from eviscope.builders.eviscope.windows import around, window_problem
    from eviscope.core.sentences import sentence_spans
    from eviscope.suites.eviscope.squad_source import load_question_source

    squads = {name: load_question_source(name, None) for name in set(configs[config]["source"])}
    for row in configs[config]:
        if row["variant"] != "conflicting":
            continue
        squad = squads[row["source"]]
        paragraph = next(q.paragraph for q in squad.questions if q.id == row["source_id"])
        # The passage is a run of sentences of the support, or of the support less its cue sentences.
        original, context = _unedited(row), squad.paragraphs[paragraph].context
        base = context if original in context else without_cue_sentences(context)
        start, spans = base.index(original), sentence_spans(base)
        first = next(i for i, (s, e) in enumerate(spans) if s <= start < e)
        end = start + len(original.rstrip())  # a whole passage keeps its paragraph's trailing newline
        last = next(i for i, (s, e) in enumerate(spans) if s < end <= e)
        assert window_problem(base, spans, first, last, around(squad, paragraph)) is None, row["id"]


def test_the_sixth_reads_classes_read_made_up_sentences() -> None:
    # Each failure of the seed-8181 read is a class: the same words in another sentence are caught too.
    from eviscope.builders.eviscope.believability import _CLOSELY, counts_a_group, durations, series_numbers

    assert durations("He ruled for 11 years until he died in 1990, ten years later than planned.") == [11, 10]
    assert durations("the 13-year-old king, the Seven Years' War, settled for at least 11,000 years") == []
    assert counts_a_group("The league fined each of the ", " clubs")
    assert counts_a_group("She thanked all ", " of them by name")
    assert not counts_a_group("The league has ", " clubs")
    found = series_numbers("Wrestlemania XXX was held in 2014, a year after WrestleMania 29")
    assert [m[2:] for m in found] == [("wrestlemania", 30), ("wrestlemania", 29)]
    assert series_numbers("In 1985, at the 57th Academy Awards")[0][2:] == ("academy awards", 57)
    assert _CLOSELY.search("The following year, the army marched north")
    assert _CLOSELY.search("shortly after signing the treaty")
    assert not _CLOSELY.search("after signing the treaty")


def test_a_share_of_a_whole_stays_below_what_the_other_shares_leave(believability) -> None:
    # Victoria: "Around 20% of Victorians claim no religion" and "About 61.1% of Victorians describe
    # themselves as Christian": 40% would make more than all Victorians, 25% would not.
    from eviscope.builders.eviscope.believability import share_finding

    squad, checker = believability
    answer = _answer(squad, "570d29c2b3d812140066d4c1", "20%")
    article = checker.article(answer.paragraph)
    found = share_finding(answer, article, 20, 40)
    assert found is not None and found.rule == "count_share_of_whole"
    assert "61.1% of Victorians describe themselves as Christian" in found.sentence
    assert share_finding(answer, article, 20, 25) is None


@pytest.mark.parametrize("config", ["eviscope-v1.1", "eviscope-xl"])
def test_every_repaired_conflict_is_believable_against_its_article(
    configs: dict[str, Dataset], report: dict, believability_per_source, config: str
) -> None:
    from eviscope.builders.eviscope.configs import EVISCOPE_CONFIGS

    rules = EVISCOPE_CONFIGS[config].rules
    rows = [row for row in configs[config] if row["variant"] == "conflicting"]
    for row in rows:
        squad, checker = believability_per_source[row["source"]]
        found = checker.finding(_answer(squad, row["source_id"], _core(row)), row["conflict_answer"], rules)
        assert found is None, (row["id"], found)
    assert report["configs"][config]["believable_pass"] == len(rows)


def test_the_report_counts_each_rule_of_believability(report: dict) -> None:
    from eviscope.builders.eviscope.believability import PAPER_RULES, STRICTER_RULES

    counts = report["believability"]["questions"]
    assert report["believability"]["rules"] == RULES
    for rule in RULES:
        reason = f"no alternative is believable against the article: {rule}"
        assert counts[rule]["removed"] == report["rejected"].get(reason, 0)
    assert sum(c["removed"] for c in counts.values()) == (
        report["eligible_questions_legacy"] - report["eligible_questions"]
    )
    # Every rule that v1.1 reads catches something in the dev set, or another rule catches first what it
    # would (a count goes to the first rule that rejects), and then its real items still need it (the
    # strict readers' failures, test_the_strict_readers_failures_are_gone_and_named); none rejects most
    # questions; the rules that only eviscope-xl reads reject nothing under v1.1's construction.
    idle = {rule for rule in PAPER_RULES if counts[rule]["removed"] + counts[rule]["replaced"] == 0}
    assert idle <= {rule.name for rule in DECLARED if rule.failures} and len(idle) <= 1, idle
    assert all(counts[rule]["removed"] + counts[rule]["replaced"] == 0 for rule in STRICTER_RULES)
    # compatible_bound (issue 32) leaves out 40 questions whose edit is no conflict at all; with the rules
    # of issue 32's later reads, 298 of 673 stay eligible at seed 13.
    assert report["eligible_questions"] > 0.4 * report["eligible_questions_legacy"]
    for config in ("eviscope-v1.1", "eviscope-xl"):
        drawn = report["configs"][config]["believability"]
        assert drawn["kept"] + drawn["redrawn"] == report["configs"][config]["quartets"]
        removed = sum(c["removed"] for c in drawn["rules"].values())
        if (
            config == "eviscope-xl"
        ):  # it draws every quartet it can: the rules leave some out, none is redrawn
            assert drawn["without_the_rules"] - drawn["kept"] == removed
        else:
            assert drawn["redrawn"] == removed


@pytest.mark.parametrize("config", CONFIGS)
def test_no_document_but_the_support_answers_by_the_leak_check(
    configs: dict[str, Dataset], config: str
) -> None:
    # Contract §2: apart from the support, no document of a noisy, insufficient or conflicting row
    # holds a gold alias (ranges split, number words and percentages read), and no same-article
    # passage states a value of the gold's type in a sentence about the question.
    leaks = []
    for row in configs[config]:
        for document in row["documents"]:
            if document["doc_id"] in row["supporting_doc_ids"] + row["conflicting_doc_ids"]:
                continue
            why = leak(row["question"], row["answers"], document["text"], document["title"] == row["title"])
            if why:
                leaks.append((row["id"], why))
    assert leaks == []


@functools.cache
def _squad(path: Path) -> Squad:
    return load_squad(resolve("squad", str(path)))


LEAKED = [
    # (question, a phrase of the passage that answered it in the old insufficient row), from the strict read
    ("When did the North American French and Indian War end?", "The French and Indian War (1754–1763)"),
    ("When was the Skylab launched?", "three manned missions in 1973–74"),
    ("When was King George's war?", "formally ended in 1748"),
    ("How much does the services sector contribute to GDP?", "contributes 62% of GDP"),
    ("When was BSkyB's digital service launched?", "When Sky Digital was launched in 1998"),
    ("How many museums comprise Harvard Art Museums?", "comprising 79 individual libraries"),
]


@pytest.mark.parametrize(("question", "phrase"), LEAKED)
def test_the_passages_a_strict_reader_found_answering_are_no_longer_shown(
    configs: dict[str, Dataset], squad_path: Path, question: str, phrase: str
) -> None:
    squad = _squad(squad_path)
    asked = next(q for q in squad.questions if q.question == question)
    aliases = list(dict.fromkeys(text.strip() for text, _ in asked.answers))
    title = squad.paragraphs[asked.paragraph].title
    leaked = [p for p in squad.paragraphs if phrase in p.context]
    assert leaked and all(leak(question, aliases, p.context, p.title == title) for p in leaked)
    for config in CONFIGS:
        for row in configs[config]:
            if row["question"] == question and row["variant"] != "sufficient":
                shown = [d["text"] for d in row["documents"] if d["doc_id"] not in row["supporting_doc_ids"]]
                assert not any(phrase in text for text in shown), (config, row["id"])


def test_the_leak_check_sees_ranges_number_words_and_percentages() -> None:
    assert not contains("The French and Indian War (1754–1763)", "1763")  # the §1 normalization glues them
    assert holds_alias("The French and Indian War (1754–1763)", ["1763"])
    assert holds_alias("three manned missions in 1973–74", ["1974"])
    assert holds_alias("three manned missions", ["3 manned missions"])
    assert holds_alias("it contributes 62 per cent of GDP", ["62%"])
    assert not holds_alias("it contributes 62% of GDP", ["61%"])


def test_xl_draws_no_quartet_twice(configs: dict[str, Dataset]) -> None:
    # At most one quartet per (support paragraph, gold answer) and per question (content words).
    sufficient = [row for row in configs["eviscope-xl"] if row["variant"] == "sufficient"]
    answers = Counter(
        (row["documents"][0]["doc_id"], norm(min(row["answers"], key=lambda a: (len(a.split()), len(a)))))
        for row in sufficient
    )
    questions = Counter(question_key(row["question"]) for row in sufficient)
    assert max(answers.values()) == 1
    assert max(questions.values()) == 1
    tesla = [row["question"] for row in sufficient if "Tesla die" in row["question"]]
    assert len(tesla) <= 1, tesla


def test_xl_shows_every_variant_but_sufficient_as_three_documents_two_of_the_article(
    configs: dict[str, Dataset],
) -> None:
    layouts = Counter()
    for row in configs["eviscope-xl"]:
        same = sum(d["title"] == row["title"] for d in row["documents"])
        layouts[(row["variant"] == "sufficient", len(row["documents"]), same)] += 1
    assert set(layouts) == {(True, 1, 1), (False, 3, 2)}


def test_the_shortcut_audit_is_reported_for_every_config(report: dict) -> None:
    for config in CONFIGS:
        audit = report["configs"][config]["shortcut_audit"]
        assert audit["majority"]["all_rows"] == 0.5
        assert abs(audit["majority"]["multi_document_rows"] - 1 / 3) < 0.01
        assert {"doc-count", "title-count", "title-positions", "lengths", "layout"} <= set(audit["features"])
    # The paper's layout (v1, v1.1) gives conflicts away by counting; xl's does not.
    for config in ("eviscope-v1", "eviscope-v1.1"):
        assert (
            report["configs"][config]["shortcut_audit"]["features"]["doc-count"]["multi_document_rows"] > 0.6
        )
    # Issue 23's target: no evidence-blind feature of xl, its lengths and length gaps included, beats
    # the majority rate by more than 5 points on the rows with more than one document.
    xl = report["configs"]["eviscope-xl"]["shortcut_audit"]
    for feature, measured in xl["features"].items():
        assert measured["multi_document_rows"] - xl["majority"]["multi_document_rows"] <= 0.05, feature


def test_xl_conflict_passages_are_windows_that_the_lints_read_against_the_support(
    configs: dict[str, Dataset],
) -> None:
    # The conflict passage of xl is a run of whole sentences of the edited support, most often shorter
    # than it; where no shorter window stands alone, the whole passage (its copies are then whole too).
    shorter = 0
    for row in configs["eviscope-xl"]:
        if row["variant"] != "conflicting":
            continue
        case = _conflict_case(row)
        assert _unedited(row) in without_cue_sentences(case.support_text), row["id"]
        shorter += len(case.conflict_text) < len(case.support_text)
    # 228 of 317 at seed 13 (not counted again at 350): a first sentence that leans back (issue 32's later reads) leaves more whole
    assert shorter >= 0.7 * len(set(configs["eviscope-xl"]["quartet_id"]))


def test_counting_documents_finds_every_conflict_in_v11_and_nothing_in_xl(built_dataset: Path) -> None:
    from eviscope.suites.eviscope.dataset import load_rows
    from eviscope.suites.eviscope.reference_systems import lexical, predict
    from eviscope.suites.eviscope.scoring import score

    v11 = load_rows("eviscope-v1.1", built_dataset)
    assert score(v11, predict("doc-count", v11)).overall["conflict_accuracy"] == 1.0
    xl = load_rows("eviscope-xl", built_dataset)
    for system in ("doc-count", "title-count"):
        assert predict(system, xl) == lexical(xl)


def test_card_states_the_shortcut_audit_of_the_build(report: dict) -> None:
    body = (REPO / "dataset" / "README.md").read_text()

    def cells(key: str) -> str:
        def cell(config: str) -> str:
            audit = report["configs"][config]["shortcut_audit"]
            measured = audit["majority"] if key == "majority action" else audit["features"][key]
            return f"{measured['multi_document_rows']:.1%} / {measured['all_rows']:.1%}"

        return f"| {key} | " + " | ".join(cell(c) for c in CONFIGS) + " |"

    for key in ["majority action", *report["configs"]["eviscope-xl"]["shortcut_audit"]["features"]]:
        assert cells(key) in body


def test_the_surface_audit_is_reported_beside_the_shortcut_audit(report: dict) -> None:
    from eviscope.suites.eviscope.surface import NEAR_DUPLICATE, SURFACE_FEATURES

    for config in CONFIGS:
        audit = report["configs"][config]["surface_audit"]
        assert set(audit["features"]) == {*SURFACE_FEATURES, "surface"}
        assert audit["near_duplicate_threshold"] == NEAR_DUPLICATE
        assert abs(audit["majority"]["multi_document_rows"] - 1 / 3) < 0.01
        assert audit["fitted_quartets"] + audit["held_out_quartets"] == report["configs"][config]["quartets"]
    # The paper's design (v1, v1.1): the conflict passage is the only copy of the support a row shows,
    # so the largest containment between two documents finds every conflict.
    for config in ("eviscope-v1", "eviscope-v1.1"):
        audit = report["configs"][config]["surface_audit"]
        assert audit["features"]["near-duplicate-differs"]["multi_document_rows"] > 0.6
        assert audit["max_gain_multi_document"] > 25


def test_card_states_the_surface_audit_of_the_build(report: dict) -> None:
    body = (REPO / "dataset" / "README.md").read_text()
    for key in ["majority action", *report["configs"]["eviscope-xl"]["surface_audit"]["features"]]:
        cells = []
        for config in CONFIGS:
            audit = report["configs"][config]["surface_audit"]
            measured = audit["majority"] if key == "majority action" else audit["features"][key]
            cells.append(f"{measured['multi_document_rows']:.1%} / {measured['all_rows']:.1%}")
        assert f"| {key} | " + " | ".join(cells) + " |" in body, key


def test_every_row_says_which_copy_of_the_support_it_shows(configs: dict[str, Dataset]) -> None:
    from eviscope.suites.eviscope.rows import NEAR_DUPLICATES

    for config, rows in configs.items():
        kinds = set(zip(rows["variant"], rows["near_duplicate"], strict=True))
        assert {kind for _, kind in kinds} <= set(NEAR_DUPLICATES), config
        assert ("conflicting", "conflict") in kinds and ("sufficient", "none") in kinds, config


def test_string_matching_finds_every_conflict_of_the_papers_design(built_dataset: Path) -> None:
    from eviscope.suites.eviscope.dataset import load_rows
    from eviscope.suites.eviscope.reference_systems import predict
    from eviscope.suites.eviscope.scoring import score

    v11 = load_rows("eviscope-v1.1", built_dataset)
    lexical = score(v11, predict("lexical", v11)).overall
    for system in ("near-duplicate", "diff"):
        overall = score(v11, predict(system, v11)).overall
        assert overall["conflict_accuracy"] == 1.0, system
        assert overall["joint_success"] > lexical["joint_success"], system
        assert "false_conflict_rate" not in overall  # v1.1 shows no irrelevant edit: not applicable


def test_the_build_table_prints_both_audits_and_each_source(report: dict) -> None:
    from rich.console import Console

    from eviscope.builders.eviscope.entry import BUILDER

    sourced = json.loads(json.dumps(report))
    xl = sourced["configs"]["eviscope-xl"]["surface_audit"]
    xl["per_source"] = {"tydiqa-goldp-en": {**xl, "max_gain_multi_document": 4.2}}
    console = Console(width=120, record=True)
    console.print(BUILDER.summary(sourced)[0])
    text = console.export_text()
    assert "shortcut audit, >1 document" in text and "surface audit, >1 document" in text
    lines = [
        line
        for line in text.splitlines()
        if "max-containment" in line or ("tydiqa-goldp-en" in line and "quartets from" not in line)
    ]
    assert len(lines) == 2
    cells = [f"{report['configs'][c]['surface_audit']['features']['max-containment']['multi_document_rows']:.1%}"
             for c in CONFIGS]  # fmt: skip
    assert all(cell in lines[0] for cell in cells)
    assert "+4.2 pt" in lines[1]
