"""EviScope's rules of believability are declarations (builders/eviscope/rules.py): each rule's class,
card row, real failing items and made-up items live in one place, and every made-up item is run
through the rule here (the real ones, which need SQuAD, in test_eviscope_build.py). And the rule
that a passage stands alone, read on made-up passages of each class the blind reads failed."""

from __future__ import annotations

import pytest

from eviscope.builders.eviscope.believability import ALL_RULES, RULES, STRICTER_RULES, Answer, Believability
from eviscope.builders.eviscope.rules import DECLARED, MadeUp, card_sections, render_card
from eviscope.builders.eviscope.windows import Around, window_problem
from eviscope.core.sentences import sentence_spans

MADE_UP = [
    pytest.param(rule.name, case, id=f"{rule.name}-{i}")
    for rule in DECLARED
    for i, case in enumerate(rule.cases)
]


def test_every_rule_is_one_declaration_with_its_class_row_and_items() -> None:
    names = [rule.name for rule in DECLARED]
    assert len(names) == len(set(names)), "two rules share a name"
    assert {rule.name: rule.guards for rule in DECLARED} == RULES
    assert {rule.name for rule in DECLARED if rule.stricter} == STRICTER_RULES
    for rule in DECLARED:
        assert rule.guards and rule.doc and not rule.doc.endswith((";", ".")), rule.name
        assert rule.cases, f"{rule.name} declares no made-up item of its class"
    # Every rule that a strict read asked for carries the items it failed; these four came with the
    # first rules, from the construction's own audit, before any read.
    assert {rule.name for rule in DECLARED if not rule.failures} == {
        "date_span_passage",
        "count_ordinal",
        "count_order_same_noun",
        "count_is_label",
    }


@pytest.mark.parametrize(("name", "case"), MADE_UP)
def test_each_made_up_item_is_rejected_by_its_own_rule(name: str, case: MadeUp) -> None:
    squad, paragraph, start, core = case.article()
    checker = Believability(squad, [[] for _ in squad.paragraphs])
    found = checker.finding(
        Answer(paragraph, start, core, case.kind, case.question), case.alternative, ALL_RULES
    )
    assert found is not None and found.rule == name, (name, found)


def test_the_card_sections_are_rendered_from_the_declarations() -> None:
    counts = {"removed": 1, "replaced": 2}
    report = {
        "believability": {"questions": {rule: counts for rule in RULES}},
        "configs": {
            c: {"believability": {"rules": {key: {"removed": 3} for key in RULES}}}
            for c in ("eviscope-v1.1", "eviscope-xl")
        },
    }
    sections = card_sections(report)
    assert "| `date_order_passage` | 1 | 2 | 3 | 3 |" in sections["believability-counts"]
    for rule in DECLARED:
        listed = sections["believability-stricter-rules" if rule.stricter else "believability-rules"]
        assert f"- `{rule.name}`: {rule.doc}" in listed
    card = "x\n<!-- believability-rules -->\nold\n<!-- /believability-rules -->\ny"
    with pytest.raises(ValueError, match="believability-stricter-rules"):
        render_card(card, report)


# (the article's previous paragraph, the passage shown whole, why it does not stand alone): one class each,
# several made-up items, beside the three real ones of the seed-3232 read (test_eviscope_build.py).
NOT_ALONE = [
    (
        "The Khan was buried in secret. The Khan Mausoleum is his memorial.",
        "In 1939 soldiers took the mausoleum to Gansu. It came back in 1954.",
        "cut_referent",
    ),
    (
        "Krapf heard the name Kirinyaga for the mountain.",
        "Rebmann recorded the name as Kenia in 1849. Others say it was exact.",
        "cut_referent",
    ),
    (
        "A bloodless coup ended his regime in September 1968.",
        "Ngouabi, who had joined in the coup, became president in 1969.",
        "cut_referent",
    ),
    (
        "Legia is the most popular club of the city.",
        "Their local rivals have fewer supporters, yet won the title in 2000.",
        "opens_on_connective",
    ),
    (
        "The first society was founded in Paris.",
        "Similar organizations in other countries followed in 1902.",
        "opens_on_connective",
    ),
    ("The team won the cup in 1990.", "However, the club was relegated in 1994.", "opens_on_connective"),
    ("", "The seal dates from 1390. In 1653 the poet Laukowski asks the question:", "cuts_list"),
    ("", "The oldest units date from 1950. Its aims include the following", "cuts_list"),
    ("The plan had two aims.", "Second, the costs fell by 1972. It worked.", "cuts_list"),
]
STANDS_ALONE = [
    (
        "The Khan was buried in secret. The Khan Mausoleum is his memorial.",
        "In 1939 soldiers took the temple to Gansu. It came back in 1954.",
    ),
    ("The city grew fast.", "Since its invention in 1269, the script has spread. It is still used."),
    ("Warsaw has many parks.", "Warsaw, especially its centre, is home to 30 agencies."),
    (
        "The earthquake struck at 14:28.",
        "As a result of a strong earthquake, rivers were blocked in 2008 behind the blockages.",
    ),
    ("Many visitors come.", "It is estimated that 60% of the burden will fall on the poor by 2020."),
    ("In 1840 a fair opened.", "Each year, the area has about 10,000 earthquakes."),
]


@pytest.mark.parametrize(("before", "text", "problem"), NOT_ALONE)
def test_a_passage_shown_whole_that_leans_on_the_previous_paragraph_does_not_stand_alone(
    before: str, text: str, problem: str
) -> None:
    spans = sentence_spans(text)
    assert window_problem(text, spans, 0, len(spans) - 1, Around(before)) == problem


@pytest.mark.parametrize(("before", "text"), STANDS_ALONE)
def test_a_passage_that_names_its_referents_stands_alone(before: str, text: str) -> None:
    spans = sentence_spans(text)
    assert window_problem(text, spans, 0, len(spans) - 1, Around(before)) is None
