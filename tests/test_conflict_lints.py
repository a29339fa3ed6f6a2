"""The six conflict-passage constraints of contract §2: each lint passes a good passage and fails a bad one."""

import pytest

from eviscope.builders.eviscope.answer_forms import answer_form, substitute_number, substitute_year
from eviscope.builders.eviscope.conflict_edits import legacy_conflict, repaired_conflict
from eviscope.builders.eviscope.conflict_lints import (
    ConflictCase,
    lint_answers_question,
    lint_contradicts_support,
    lint_excludes_original,
    lint_grammatical_substitution,
    lint_modifies_answer_claim,
    lint_no_conflict_cue,
    run_lints,
    without_cue_sentences,
)

SUPPORT = (
    "The bridge was planned for years. It opened to traffic in 1932 after a long delay. Tolls ended later."
)
GOOD = ConflictCase(
    question="When did the bridge open to traffic?",
    answers=("1932", "in 1932"),
    support_text=SUPPORT,
    support_span="It opened to traffic in 1932 after a long delay.",
    conflict_text=SUPPORT.replace("1932", "1938"),
    conflict_answer="1938",
)


def test_the_repaired_passage_passes_every_lint() -> None:
    results = run_lints(GOOD)
    assert list(results) == [
        "grammatical",
        "answers_question",
        "contradicts_support",
        "excludes_original",
        "modifies_answer_claim",
        "no_conflict_cue",
    ]
    assert all(result.ok for result in results.values()), results


@pytest.mark.parametrize(
    ("lint", "bad"),
    [
        # 1: a year replaced by a name, and an added sentence, are not one same-form substitution.
        (
            lint_grammatical_substitution,
            GOOD._replace(conflict_text=SUPPORT.replace("1932", "Paris"), conflict_answer="Paris"),
        ),
        (lint_grammatical_substitution, GOOD._replace(conflict_text=GOOD.conflict_text + " It was busy.")),
        # 2: a number does not answer a when-question whose gold answer is a year.
        (
            lint_answers_question,
            GOOD._replace(conflict_text=SUPPORT.replace("1932", "12"), conflict_answer="12"),
        ),
        # 2: the alternative must be stated in the passage.
        (lint_answers_question, GOOD._replace(conflict_answer="1940")),
        # 3: an alternative that contains a gold alias does not contradict it.
        (lint_contradicts_support, GOOD._replace(conflict_answer="1932 or 1938")),
        # 4: the original answer must be gone.
        (lint_excludes_original, GOOD._replace(conflict_text=GOOD.conflict_text + " Some say 1932.")),
        # 5: the edit must be in the answer-bearing sentence, not elsewhere.
        (
            lint_modifies_answer_claim,
            GOOD._replace(conflict_text=SUPPORT.replace("Tolls ended later.", "Tolls ended in 1938.")),
        ),
        # 6: a cue announces the contradiction instead of stating it.
        (
            lint_no_conflict_cue,
            GOOD._replace(conflict_text=GOOD.conflict_text.replace("It opened", "In fact, it opened")),
        ),
    ],
)
def test_each_lint_fails_its_violation(lint, bad: ConflictCase) -> None:
    assert lint(GOOD).ok
    result = lint(bad)
    assert not result.ok
    assert result.reason


def test_cues_match_whole_words_only() -> None:
    falsehood = GOOD._replace(conflict_text=GOOD.conflict_text + " A falsehood spread.")
    assert lint_no_conflict_cue(falsehood).ok
    assert not lint_no_conflict_cue(GOOD._replace(conflict_text=GOOD.conflict_text + " However, it held.")).ok


def test_legacy_edit_violates_what_the_repair_fixes() -> None:
    legacy_text = legacy_conflict(SUPPORT, GOOD.answers, "Paris", index=1)
    legacy = GOOD._replace(conflict_text=legacy_text, conflict_answer="Paris")
    failed = {name for name, result in run_lints(legacy).items() if not result.ok}
    assert failed == {"grammatical", "answers_question", "no_conflict_cue"}


def test_repaired_edit_changes_only_the_answer() -> None:
    start = SUPPORT.index("1932")
    assert repaired_conflict(SUPPORT, "1932", start, "1938") == GOOD.conflict_text
    with pytest.raises(ValueError, match="not at offset"):
        repaired_conflict(SUPPORT, "1932", start + 1, "1938")


@pytest.mark.parametrize("value", ["1066", "2015"])
def test_year_substitutes_are_other_years(value: str) -> None:
    import random

    for seed in range(50):
        new = substitute_year(value, random.Random(seed))
        assert (
            answer_form(new) == "year"
            and new != value
            and abs(int(new) - int(value)) <= 10
            and int(new) <= 2016
        )


@pytest.mark.parametrize("value", ["7", "60", "3,500", "2.5 million", "1,000,000"])
def test_number_substitutes_keep_their_form(value: str) -> None:
    import random

    for seed in range(50):
        new = substitute_number(value, random.Random(seed))
        assert new != value
        assert answer_form(new) == "number"
        assert ("," in new) == ("," in value)
        assert new.split()[1:] == value.split()[1:]  # the scale word stays


# The conflict answers the issue found in the first v1.1 and xl builds: names of another kind.
WRONG_KIND = [
    ("Who is the parent company of NDS?", "Cisco Systems", "Pearl Mackie"),
    ("What is the famous rock near Sankt Goarshausen?", "Lorelei", "Austria"),
    ("Which of Genghis Khan's descendants pushed the Mamluks out of Palestine?", "Ghazan Khan", "Tesla Coil"),
    ("What U.S. entity said that corporal punishment was Constitutional?", "Supreme Court", "Vietnam War"),
    ("Who is the university accredited by?", "The Higher Learning Commission", "Rev. Paul T. Stallsworth"),
    ("Who wrote The Book of Healing?", "Ibn Sina", "Saturn V"),
    ("What do the grains in chloroplasts store?", "Starch", "Meuse"),
    ("What airport is in the San Fernando Valley?", "Van Nuys Airport", "Masovian Primeval Forest"),
    # Names the lint cannot type at all: a question that asks for a person must not vouch for both.
    ("Which son of Genghis Khan led the western campaign?", "Tolui", "Khwarezmia"),
    ("Which wife of Genghis Khan was kidnapped?", "Börte", "Merkits"),
]


@pytest.mark.parametrize(("question", "gold", "alternative"), WRONG_KIND)
def test_a_name_of_another_kind_is_not_a_same_type_alternative(
    question: str, gold: str, alternative: str
) -> None:
    support = f"Asked {question.rstrip('?')}, the record says {gold} did."
    case = ConflictCase(question, (gold,), support, support, support.replace(gold, alternative), alternative)
    result = lint_answers_question(case)
    assert not result.ok
    assert result.reason.startswith("not a same-type alternative")


@pytest.mark.parametrize(
    ("question", "gold", "alternative"),
    [
        ("Which NFL team won Super Bowl 50?", "Denver Broncos", "Carolina Panthers"),
        ("When did the bridge open?", "1932", "1938"),
        ("How much did the bridge cost?", "$2.5 million", "$3.1 million"),
        ("Which quarterback was named MVP?", "John Elway", "Tom Brady"),
    ],
)
def test_an_answer_of_the_same_type_is_one(question: str, gold: str, alternative: str) -> None:
    support = f"Asked {question.rstrip('?')}, the record says {gold} did."
    case = ConflictCase(question, (gold,), support, support, support.replace(gold, alternative), alternative)
    assert lint_answers_question(case).ok


def test_a_number_with_another_unit_is_not_the_same_type() -> None:
    support = "Tickets cost $500 each."
    case = ConflictCase(
        "How much did tickets cost?", ("$500",), support, support, "Tickets cost 700 each.", "700"
    )
    assert "units" in lint_answers_question(case).reason


def test_an_acronym_that_spells_the_replaced_name_fails_the_grammar_lint() -> None:
    support = "The United Methodist Church (UMC) is a mainline Protestant denomination."
    edited = support.replace("United Methodist Church", "American Football Conference")
    case = ConflictCase(
        "What does UMC stand for?",
        ("United Methodist Church",),
        support,
        support,
        edited,
        "American Football Conference",
    )
    assert "acronym (UMC)" in lint_grammatical_substitution(case).reason


CUED_SUPPORT = (
    "The bridge was planned for years. However, its cost was disputed. "
    "It opened to traffic in 1932 after a long delay. Tolls ended later."
)
CUE_DROPPED = GOOD._replace(
    support_text=CUED_SUPPORT,
    conflict_text="The bridge was planned for years. It opened to traffic in 1938 after a long delay. Tolls ended later.",
)


def test_a_passage_made_on_the_support_less_its_cue_sentences_passes_every_lint() -> None:
    assert without_cue_sentences(CUED_SUPPORT) == SUPPORT
    results = run_lints(CUE_DROPPED)
    assert all(result.ok for result in results.values()), results
    # Kept whole, the cue sentence fails constraint 6, so the build drops it.
    kept = CUE_DROPPED._replace(conflict_text=CUED_SUPPORT.replace("1932", "1938"))
    assert lint_grammatical_substitution(kept).ok
    assert not lint_no_conflict_cue(kept).ok


@pytest.mark.parametrize(
    "conflict_text",
    [
        # a sentence without a cue dropped as well
        "The bridge was planned for years. It opened to traffic in 1938 after a long delay.",
        "It opened to traffic in 1938 after a long delay. Tolls ended later.",
        # the answer's sentence dropped, its claim restated elsewhere
        "The bridge was planned for years. Tolls ended later. It opened in 1938.",
        # words dropped inside a kept sentence
        "The bridge was planned for years. It opened to traffic in 1938. Tolls ended later.",
    ],
)
def test_the_grammar_lint_fails_a_passage_that_drops_text_without_a_cue(conflict_text: str) -> None:
    assert lint_grammatical_substitution(CUE_DROPPED).ok
    result = lint_grammatical_substitution(CUE_DROPPED._replace(conflict_text=conflict_text))
    assert not result.ok
    assert result.reason


def test_no_sentence_may_be_dropped_when_the_answer_sentence_holds_a_cue() -> None:
    support = "The bridge was planned for years. It actually opened to traffic in 1932. Tolls ended later."
    case = GOOD._replace(
        support_text=support,
        support_span="It actually opened to traffic in 1932.",
        conflict_text="The bridge was planned for years. Tolls ended later.",
    )
    result = lint_grammatical_substitution(case)
    assert not result.ok
    assert "the answer's sentence holds a conflict cue" in result.reason
