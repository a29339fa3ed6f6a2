"""Date answers other than a year: their conflict alternatives keep form, kind and order (contract §2)."""

import re
from datetime import date

import pytest

from eviscope.builders.eviscope.answer_forms import answer_form
from eviscope.builders.eviscope.conflict_edits import repaired_conflict
from eviscope.builders.eviscope.conflict_lints import ConflictCase, lint_answers_question, run_lints
from eviscope.builders.eviscope.date_forms import date_alternatives, date_options, date_problem, parse_date
from eviscope.builders.eviscope.eligibility import REJECTIONS, _date_context_problem
from eviscope.builders.eviscope.surface_types import date_grain

SURFACES = [
    ("7 February 2016", "day", r"\d{1,2} [A-Z][a-z]+ 2016"),
    ("February 7, 2016", "day", r"[A-Z][a-z]+ \d{1,2}, 2016"),
    ("Sept. 5, 1985", "day", r"[A-Z][a-z]{2}\. \d{1,2}, 1985"),
    ("March 1965", "month", r"[A-Z][a-z]+ 1965"),
    ("12 January", "day of month", r"\d{1,2} January"),
    ("June", "month name", r"(?:April|May|July|August)"),
    ("the early 1960s", "decade", r"the early 19[57]0s"),
    ("mid-2000s", "decade", r"mid-1990s"),
    ("18th century", "century", r"1[79]th century"),
    ("the 12th century", "century", r"the 1[13]th century"),
    ("eighteenth century", "century", r"(?:seventeenth|nineteenth) century"),
    ("late 14th-century", "century", r"late 1[35]th-century"),
    ("1st century", "century", r"2nd century"),
    ("early 1938", "part of a year", r"early 19(?:3[5-9]|4[01])"),
]


@pytest.mark.parametrize(("original", "kind", "shape"), SURFACES)
def test_every_alternative_keeps_the_surface_form_and_kind(original: str, kind: str, shape: str) -> None:
    answer = parse_date(original)
    assert answer is not None and answer.kind == kind
    options = date_options(answer)
    assert options
    for option in options:
        assert option.text != original
        assert option.kind == kind
        assert answer_form(option.text) == "date"
        assert re.fullmatch(shape, option.text), option.text
        # The lint's own signal (dateutil, its own patterns) reads the same kind on both sides.
        assert date_grain(option.text) == date_grain(original) is not None


def test_a_full_date_moves_by_whole_weeks_within_its_year() -> None:
    answer = parse_date("2 January 1971")
    assert answer is not None
    for option in date_options(answer):
        assert (option.first - answer.first).days % 7 == 0
        assert option.first.weekday() == answer.first.weekday()
        assert option.first.year == 1971
        assert abs((option.first - answer.first).days) <= 21


def test_a_month_change_never_makes_an_impossible_day() -> None:
    leap = parse_date("29 February 2008")
    assert leap is not None
    assert all(parse_date(o.text) is not None for o in date_options(leap))
    assert parse_date("30 February 2008") is None
    assert answer_form("30 February 2008") != "date"


def test_alternatives_keep_their_order_to_the_passage_dates_and_its_latest_date() -> None:
    text = (
        "The war in North America ended with the Treaty of Paris on 10 February 1763, and the war in "
        "Europe with the Treaty of Hubertusburg on 15 February 1763."
    )
    start = text.index("10 February 1763")
    options = date_alternatives(parse_date("10 February 1763"), text, start)
    assert options
    assert all(o.last < date(1763, 2, 15) for o in options)
    # The latest date of a passage only moves earlier; a decade never passes the passage's last year.
    late = text.index("15 February 1763")
    assert all(
        o.last <= date(1763, 2, 15) for o in date_alternatives(parse_date("15 February 1763"), text, late)
    )
    decade = "Interest revived in the 1990s and peaked in 1997."
    assert [o.text for o in date_alternatives(parse_date("1990s"), decade, decade.index("1990s"))] == []


def test_a_yearless_day_stays_in_its_month_and_order() -> None:
    text = "On 7 January, he died. On 12 January, two thousand people attended his funeral."
    options = date_alternatives(parse_date("12 January"), text, text.index("12 January"))
    assert [o.text for o in options] == ["19 January", "26 January"]


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("between 1268 and 1273", "a range of dates"),
        ("14th to 17th centuries", "a range of dates"),
        ("Tuesday", "a day of the week"),
        ("Christmas Day", "a holiday"),
        ("every four years", "a duration, a frequency or a time before the present"),
        ("AD 14", "a date in an era (AD, BC) or millennium"),
        ("fall of 1937", "another form"),
    ],
)
def test_date_forms_without_an_alternative_are_named(answer: str, reason: str) -> None:
    assert date_problem(answer) == reason


@pytest.mark.parametrize(
    ("text", "answer", "reason"),
    [
        (
            "It ran from 23 November 1963 until 6 December 1989.",
            "23 November 1963",
            "the answer is one end of a range of dates",
        ),
        (
            "His last sermon was on 15 February 1546, three days before his death.",
            "15 February 1546",
            "the sentence ties the date to another by arithmetic or a relative date",
        ),
        (
            "He was born on 10 November 1483. He was baptized the next morning.",
            "10 November 1483",
            "the sentence ties the date to another by arithmetic or a relative date",
        ),
        (
            "On October 6, 1973, Syria and Egypt attacked Israel, on Yom Kippur.",
            "October 6, 1973",
            "the sentence names a season or holiday that the day or month must fall in",
        ),
        (
            "It was the focus of the failed Operation Market Garden of September 1944.",
            "September 1944",
            "the answer is part of the name of an event it dates",
        ),
    ],
)
def test_contexts_that_pin_the_date_are_rejected_with_a_reason(text: str, answer: str, reason: str) -> None:
    start = text.index(answer)
    assert REJECTIONS[_date_context_problem(text, start, start + len(answer))] == reason


def test_a_date_alternative_passes_the_six_lints_and_another_kind_fails_same_type() -> None:
    support = "Super Bowl City opened on January 30 at Justin Herman Plaza. It drew large crowds."
    question = 'When was the opening of "Super Bowl City"?'
    span = "Super Bowl City opened on January 30 at Justin Herman Plaza."
    start = support.index("January 30")

    def case(new: str) -> ConflictCase:
        edited = repaired_conflict(support, "January 30", start, new)
        return ConflictCase(question, ("January 30",), support, span, edited, new)

    assert all(result.ok for result in run_lints(case("January 23")).values())
    wrong = lint_answers_question(case("the 1990s"))
    assert not wrong.ok and "decade" in wrong.reason and "day of a month" in wrong.reason
