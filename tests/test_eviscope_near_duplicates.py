"""Issue 32, construction side: no compatible bounds, windows that stand alone, years a sequence ties,
and ``eviscope-xl``'s near-duplicates in matched proportions, on the readers' real items, made-up items
of the same class and the real build."""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from functools import partial
from pathlib import Path

import numpy as np
import pytest

from eviscope.builders.eviscope.conflict_lints import (
    ConflictCase,
    compatible_bound,
    conflict_cues_in,
    lint_no_compatible_bound,
)
from eviscope.builders.eviscope.windows import Around, around, window_problem
from eviscope.core.normalize import tokens
from eviscope.core.sentences import sentence_spans

# (text before the value, original, alternative): the readers' failures (issue 32) first, then made-up
# items of the same class.
COMPATIBLE = [
    ("a population of over ", "800,000", "900,000"),
    ("home to more than ", "120", "100"),
    ("the city was rebuilt after ", "1848", "1850"),
    ("a plant uses about ", "3600", "2900"),
    ("It was founded in about ", "1850", "1852"),
    ("The fund holds at least ", "40", "45"),
    ("the class has fewer than ", "30", "25"),
    ("each hall seats up to ", "500", "600"),
    ("the bridge was finished before ", "1900", "1895"),
    ("the party has ruled since ", "1990", "1992"),
    ("the walls were complete by ", "1850", "1852"),
    ("roughly ", "3,000", "3,200"),
    ("built circa ", "1500", "1503"),
    ("less than ", "12%", "10%"),
]
CONFLICTING = [
    ("the city was rebuilt in ", "1848", "1850"),
    ("the share grew by ", "20%", "25%"),
    ("It was founded in about ", "1850", "1870"),
    ("the trip took after ", "20", "25"),  # "after" bounds only a year or date
    ("a plant uses about ", "3600", "6000"),
]


@pytest.mark.parametrize(("before", "old", "new"), COMPATIBLE)
def test_a_bound_the_original_still_satisfies_is_no_conflict(before: str, old: str, new: str) -> None:
    assert compatible_bound(before, old, new)
    support = f"{before[0].upper()}{before[1:]}{old} people lived there."
    case = ConflictCase("How many?", (old,), support, support, support.replace(old, new, 1), new)
    assert not lint_no_compatible_bound(case).ok


@pytest.mark.parametrize(("before", "old", "new"), CONFLICTING)
def test_a_plain_or_far_value_is_still_a_conflict(before: str, old: str, new: str) -> None:
    assert compatible_bound(before, old, new) is None


def test_or_more_after_a_value_bounds_it() -> None:
    assert compatible_bound("There are ", "500,000", "600,000", " or more speakers")
    assert compatible_bound("There are ", "500,000", "600,000", " speakers") is None


@pytest.fixture(scope="module")
def configs(built_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    from datasets import load_dataset

    cache = tmp_path_factory.mktemp("hf-cache")
    names = ("eviscope-v1", "eviscope-v1.1", "eviscope-xl")
    return {n: load_dataset(str(built_dataset), n, split="test", cache_dir=str(cache)) for n in names}


@pytest.fixture(scope="module")
def report(built_dataset: Path) -> dict:
    return json.loads((built_dataset / "build_report.json").read_text())["eviscope"]


@pytest.fixture(scope="module")
def believability(squad_path: Path):
    from eviscope.builders.eviscope.answer_types import paragraph_entities
    from eviscope.builders.eviscope.believability import Believability
    from eviscope.core.sources import resolve
    from eviscope.suites.eviscope.squad_source import load_squad

    squad = load_squad(resolve("squad", str(squad_path)))
    return squad, Believability(squad, paragraph_entities(squad))


def _problem(text: str, first: int, last: int) -> str | None:
    return window_problem(text, sentence_spans(text), first, last)


# (paragraph, first and last sentence of the window, why it does not stand alone): the readers' items
# (issue 32) first, then made-up items of the same class.
CUT = [
    (
        "In 1572 the massacre of Protestants spread to the provinces. An amnesty granted in 1574 pardoned "
        "the perpetrators. The court moved to Blois.",
        1,
        2,
        "cut_referent",
    ),
    (
        "Other green spaces include the Botanic Garden. Besides, within the city borders, there are also: "
        "Pole Mokotowskie, Park Ujazdowski and Park Skaryszewski. The oldest park was established in 1865.",
        1,
        2,
        "opens_on_connective",
    ),
    (
        'Tesla wrote: "I conquered my passion then and there. I never gambled again after 1879." He left.',
        0,
        0,
        "cuts_quotation",
    ),
    ("The rebels took the fort in 1791. The rebels were routed in 1793.", 1, 1, "cut_referent"),
    ("A storm hit the coast in 1900. The storm killed 6,000 people.", 1, 1, "cut_referent"),
    ("The army marched in 1812. However, winter came early in 1813.", 1, 1, "opens_on_connective"),
    ("The king died in 1547. They crowned his son in 1548.", 1, 1, "opens_on_connective"),
    ("The city grew fast. In addition, its port opened in 1820.", 1, 1, "opens_on_connective"),
    ("The town was sacked in 1204. Thus the trade moved to Venice by 1210.", 1, 1, "opens_on_connective"),
    ("The plan had three parts: First, a canal in 1830. Second, a railway in 1835.", 0, 0, "cuts_list"),
    (
        "The plan had three parts. First, a canal was dug in 1830. Second, a railway came in 1835. "
        "Lastly, a port opened in 1840.",
        1,
        2,
        "cuts_list",
    ),
    ("The museums opened in this order. The list runs:", 1, 1, "cuts_list"),
    (
        "“We will build it by 1900. Nobody will stop us,” he said. It opened in 1901.",
        1,
        2,
        "cuts_quotation",
    ),
]
STANDS = [
    ("The rebels took the fort in 1791. A new governor arrived in 1793.", 1, 1),
    ("In 1572 the massacre spread. The massacre ended in 1573.", 0, 1),
    ("The king died in 1547. Edward was crowned in 1548.", 1, 1),
    ('He said "We won." Then he left in 1920.', 0, 1),
]


@pytest.mark.parametrize(("text", "first", "last", "why"), CUT)
def test_a_window_that_does_not_stand_alone_is_not_cut(text: str, first: int, last: int, why: str) -> None:
    assert _problem(text, first, last) == why


@pytest.mark.parametrize(("text", "first", "last"), STANDS)
def test_a_window_that_stands_alone_is_kept(text: str, first: int, last: int) -> None:
    assert _problem(text, first, last) is None


def test_a_whole_conflict_passage_keeps_the_whitespace_around_its_sentences() -> None:
    # SQuAD-shifts ends every paragraph in a newline: a whole conflict passage cut at its last sentence
    # was one character shorter than the support beside it, in conflicting rows only (a length tell:
    # the length-gaps tree read it on squadshifts-new-wiki's rows, +5.6 points).
    from types import SimpleNamespace as NS

    from eviscope.builders.eviscope.windows import conflict_window

    text = "Rome grew. It held 10 forts. Its trade rose in 1210. Ships came often to the port.\n"
    case = NS(
        question=NS(question="When did trade rise?", paragraph=0),
        aliases=("1210",),
        conflict_text=text.replace("1210", "1204"),
        conflict_answer="1204",
        support_span=(29, 52),
        drops_cue_sentences=False,
    )
    squad = NS(name="toy", checksum="toy", paragraphs=[NS(context=text, title="Rome")])
    window, original = conflict_window(squad, case, 0.0)
    assert (window, original) == (text.replace("1210", "1204"), text)


def test_a_sequence_of_years_ties_the_year_it_counts_from(believability) -> None:
    # Issue 32: "In 1875, Tesla enrolled …", "During his third year …", "In December 1878, Tesla left
    # Graz": 1876 squeezes his third year; made-up counts of the same class read the same.
    from eviscope.builders.eviscope.believability import ALL_RULES, Answer, sequence_years

    assert sequence_years("In her second season she won; in her 4th season she retired.") == 4
    assert sequence_years("He served for five years.") == 5
    assert sequence_years("In 1875 he enrolled.") == 0
    squad, checker = believability
    question = next(q for q in squad.questions if q.id == "56dfa3c338dc421700152154")
    context = squad.paragraphs[question.paragraph].context
    answer = Answer(question.paragraph, context.index("1875"), "1875", "year", question.question)
    found = checker.finding(answer, "1876", ALL_RULES)
    assert found is not None and found.rule == "date_sequence_tied"


def test_the_readers_bound_failures_are_gone_from_v11_and_xl(configs, report: dict) -> None:
    # "more than 120 universities" (v1.1) is caught, and the lint finds nothing in v1.1 and xl.
    for config in ("eviscope-v1.1", "eviscope-xl"):
        assert report["configs"][config]["further_lint_fail"]["no_compatible_bound"] == []
        assert not any(
            row["source_id"] == "572648d1708984140094c160" and row["conflict_answer"] == "120"
            for row in configs[config]
        )
    assert "compatible_bound" in report["configs"]["eviscope-v1.1"]["believability"]["rules"]


def _pair(row: dict) -> tuple[float, str, str]:
    """The two documents of the row that share the largest share of words (of the shorter)."""
    texts = [d["text"] for d in row["documents"]]
    best = (0.0, "", "")
    for i, a in enumerate(texts):
        for b in texts[i + 1 :]:
            x, y = set(tokens(a)), set(tokens(b))
            share = len(x & y) / max(1, min(len(x), len(y)))
            if share > best[0]:
                best = (share, a, b)
    return best


def _kind(token: str) -> str:
    core = token.strip(".,;:()\"'“”")
    return (
        "year" if re.fullmatch(r"1\d{3}|20\d{2}", core) else "number" if re.search(r"\d", core) else "other"
    )


def _differing(a: str, b: str) -> tuple[str, ...]:
    """The kinds of the tokens that differ inside the overlap of two passages: a cut is no difference,
    and where an edit meets a cut ("1598. The wars …" against "1597.") only the edited tokens count."""
    x, y = a.split(), b.split()
    ops = difflib.SequenceMatcher(None, x, y, autojunk=False).get_opcodes()
    while ops and ops[0][0] in ("insert", "delete"):
        ops = ops[1:]
    while ops and ops[-1][0] in ("insert", "delete"):
        ops = ops[:-1]
    found = []
    for index, (op, i, j, k, m) in enumerate(ops):
        if op == "equal":
            continue
        n = min(j - i, m - k)
        if op == "replace" and index == len(ops) - 1:
            j, m = i + n, k + n
        elif op == "replace" and index == 0:
            i, k = j - n, m - n
        found += [_kind(t) for t in x[i:j] + y[k:m]]
    return tuple(sorted(found))


def test_xl_shows_a_near_duplicate_that_differs_in_every_multi_document_variant(configs) -> None:
    # The string tell of issue 32: a near-duplicate pair that differs in one value was a conflict. In xl
    # every noisy, insufficient and conflicting row shows one, differing in tokens of the same kinds.
    kinds: dict[str, Counter] = {}
    for row in configs["eviscope-xl"]:
        if row["variant"] == "sufficient":
            assert row["near_duplicate"] == "none"
            continue
        share, a, b = _pair(row)
        assert share >= 0.85, row["id"]
        differing = _differing(a, b)
        assert differing, row["id"]
        kinds.setdefault(row["variant"], Counter())[differing] += 1
        expected = "conflict" if row["variant"] == "conflicting" else "irrelevant_edit"
        assert row["near_duplicate"] == expected
    n = len(set(configs["eviscope-xl"]["quartet_id"]))
    for variant in ("noisy", "insufficient"):
        moved = sum(
            abs(kinds[variant][k] - kinds["conflicting"][k]) for k in kinds["conflicting"] | kinds[variant]
        )
        assert moved <= 0.05 * n, (variant, kinds[variant], kinds["conflicting"])
    for config in ("eviscope-v1", "eviscope-v1.1"):
        assert {(r["variant"] == "conflicting", r["near_duplicate"]) for r in configs[config]} == {
            (True, "conflict"),
            (False, "none"),
        }


def test_xl_string_features_predict_no_action(configs) -> None:
    # Done-when of issue 32: fitted on half the quartets and scored on the other (each half in turn, as the
    # audit does), no string feature (largest containment, the differing pair's token count and kinds,
    # together) beats the majority rate by more than 5 points.
    from eviscope.suites.eviscope.shortcuts import _codes, _cross_fitted, _fit_predict, _majority, split

    rows = [row for row in configs["eviscope-xl"] if len(row["documents"]) > 1]
    features = []
    for row in rows:
        share, a, b = _pair(row)
        differing = Counter(_differing(a, b))
        features.append(
            [share, sum(differing.values()), differing["year"], differing["number"], differing["other"]]
        )
    x, y = np.array(features), _codes(rows)
    halves = split(rows)
    majority = _cross_fitted(partial(_majority, y), y, halves)
    for columns in ([0], [1], [2, 3, 4], [0, 1, 2, 3, 4]):
        accuracy = _cross_fitted(partial(_fit_predict, x[:, columns], y), y, halves)
        assert accuracy - majority <= 0.05, (columns, accuracy, majority)


def test_xl_copies_are_one_value_edits_that_read_as_the_conflict_edits_do(configs) -> None:
    # Each copy is its passage (or a window of it) with one value changed (one token, of the conflict
    # edit's kind), no
    # conflict cue; the support's copy still states the answer and is cited, the related one holds none.
    for row in configs["eviscope-xl"]:
        if row["variant"] not in ("noisy", "insufficient"):
            continue
        _, a, b = _pair(row)
        long, short = (a, b) if len(a) >= len(b) else (b, a)
        edited = [t for t in _differing(long, short)]
        assert len(edited) == 2 and edited[0] == edited[1], row["id"]
        assert not conflict_cues_in(short)
        if row["variant"] == "noisy":
            assert len(row["supporting_doc_ids"]) == 2
            assert {d["doc_id"] for d in row["documents"] if d["text"] in (a, b)} == set(
                row["supporting_doc_ids"]
            )


def _balanced(text: str) -> bool:
    return text.count('"') % 2 == 0 and text.count("“") == text.count("”")


def test_every_window_of_xl_stands_alone(configs, squad_path: Path) -> None:
    # A window of xl (the conflict passage, the copies, the related passages) opens on no connective,
    # pronoun or cut referent where it cuts the paragraph's start, and cuts no quotation or list.
    from eviscope.suites.eviscope.squad_source import QUESTION_SOURCES, load_question_source

    by_title: dict[
        tuple[str, str], list[tuple[Around, str]]
    ] = {}  # (source, title): the article's paragraphs
    for name in sorted(set(configs["eviscope-xl"]["source"])):
        squad = load_question_source(name, str(squad_path) if name == "squad-dev" else None)
        for index, paragraph in enumerate(squad.paragraphs):
            by_title.setdefault((name, paragraph.title), []).append((around(squad, index), paragraph.context))
    assert set(configs["eviscope-xl"]["source"]) <= set(QUESTION_SOURCES)
    checked = 0
    for row in configs["eviscope-xl"]:
        for document in row["documents"]:
            text = document["text"]
            paragraphs = by_title[(row["source"], document["title"])]  # each source gives its rows' passages
            if text in [context for _, context in paragraphs]:
                continue  # a whole paragraph: nothing is cut
            opening = text[slice(*sentence_spans(text)[0])]
            for article, context in paragraphs:
                at = context.find(opening)
                if at >= 0 and not _balanced(context):
                    continue  # the source's own quotation marks do not pair up
                if at >= 0:
                    assert _balanced(text) and not text.rstrip("”\"' )").endswith(":"), row["id"]
                if at > 0:
                    spans = sentence_spans(context)
                    first = next(k for k, (s, _) in enumerate(spans) if s == at)
                    end = at + len(text.rstrip())
                    last = next((k for k, (s, e) in enumerate(spans) if s < end <= e), len(spans) - 1)
                    # the window shown, judged in its article as the build judges it (topic words known)
                    assert window_problem(context, spans, first, last, article) is None, row["id"]
                    checked += 1
    assert checked > 0


def test_xl_same_article_pairs_differ_in_length_alike_in_every_variant(configs) -> None:
    # Issue 32: the related passage and its copy were cut less near the conflict window's gap than the
    # support's copy (new sources, shorter related paragraphs), so the gap between the two same-article
    # documents told an insufficient row from the others (the evidence-blind audit's length-gaps).
    from eviscope.suites.eviscope.shortcuts import _length_gaps

    gaps: dict[str, list[float]] = {}
    for row in configs["eviscope-xl"]:
        if row["variant"] != "sufficient":
            gaps.setdefault(row["variant"], []).append(_length_gaps(row, 3)[1])
    mean = {variant: float(np.mean(found)) for variant, found in gaps.items()}
    for variant in ("noisy", "insufficient"):
        assert abs(mean[variant] - mean["conflicting"]) <= 0.02, mean
