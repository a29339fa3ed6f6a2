"""The semantic answer typer that chooses conflict alternatives, and its typing cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from eviscope.builders.eviscope.answer_types import answer_type, hand_labels, paragraph_entities
from eviscope.builders.eviscope.question_types import TYPES, expected_types
from eviscope.suites.eviscope.squad_source import Paragraph, Squad

CONTEXT = "The Denver Broncos beat the Carolina Panthers in 2016 before 71,088 fans in Santa Clara."
ENTITIES = [(4, 18, "ORG"), (28, 45, "ORG"), (49, 53, "DATE"), (61, 67, "CARDINAL"), (76, 87, "GPE")]


def _typed(question: str, answer: str) -> str:
    start = CONTEXT.index(answer)
    return answer_type(question, CONTEXT, start, start + len(answer), ENTITIES).type


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        ("Which NFL team won Super Bowl 50?", "Denver Broncos", "group"),
        ("Who won Super Bowl 50?", "Denver Broncos", "organisation"),
        ("In what year was the game played?", "2016", "year"),
        ("How many fans attended?", "71,088", "quantity"),
        ("In what city was the game played?", "Santa Clara", "city"),
        # A question that asks for exactly one type types a name ("which quarterback": a person) ...
        ("Which quarterback won?", "Denver Broncos", "person"),
        # ... one that allows several must agree with the entity: "who" is not a city.
        ("Who hosted the game?", "Santa Clara", "other"),
        # A head noun of no conflict type.
        ("What type of team won?", "Denver Broncos", "other"),
        # No entity spans "beat the Carolina": not a typed answer.
        ("What did Denver do?", "beat the Carolina", "other"),
    ],
)
def test_answer_type_from_the_entity_and_the_question(question: str, answer: str, expected: str) -> None:
    assert _typed(question, answer) == expected


def test_question_phrases() -> None:
    assert expected_types("Which Carolina Panthers team member was MVP?") == {"person"}
    assert expected_types("What states that theology is catholic?") is None
    assert expected_types("What is the name of the satellite that measured dust?") == {"other"}


def test_hand_labels_are_ids_and_types_only() -> None:
    labels = hand_labels()
    assert len(labels) == 150
    assert all(len(qid) == 24 and qid.isalnum() for qid in labels)
    assert set(labels.values()) <= set(TYPES)


def test_entities_are_cached_under_the_source_checksum(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVISCOPE_CACHE", str(tmp_path))
    squad = Squad([Paragraph("T", "Cam Newton played in Charlotte in 2015.")], [], "sha256:abc", "test")
    first = paragraph_entities(squad)
    assert ("PERSON" in {label for _, _, label in first[0]}) and len(list(tmp_path.rglob("*.json"))) == 1

    def no_model(name: str) -> None:
        raise AssertionError(f"{name} loaded although the cache holds the entities")

    monkeypatch.setattr("importlib.import_module", no_model)
    assert paragraph_entities(squad) == first
    other = Squad([Paragraph("T", "Paris is in France.")], [], "sha256:def", "test")
    with pytest.raises(AssertionError, match="loaded although"):
        paragraph_entities(other)
