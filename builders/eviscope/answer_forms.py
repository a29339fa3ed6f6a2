"""Answer forms (year, number, date, name) and same-form substitutes for conflict passages.

A conflict edit must replace the answer "with a phrase of the same form (a year for a year, a number
for a number, a name for a name)" (contract §2, constraint 1), and a date other than a plain year for a
date (:mod:`eviscope.builders.eviscope.date_forms`). This module says what each form is.

>>> answer_form("1066"), answer_form("3,500"), answer_form("$2.5 million"), answer_form("Denver Broncos")
('year', 'number', 'number', 'name')
>>> answer_form("15 days"), answer_form("the late 1990s"), answer_form("May 21, 2013"), answer_form("Monday")
('number', 'date', 'date', 'name')
>>> answer_form("Denver Broncos in 2016"), answer_form("between 1268 and 1273")
('other', 'other')
"""

from __future__ import annotations

import math
import random
import re

from eviscope.builders.eviscope.date_forms import parse_date
from eviscope.suites.eviscope.leaks import NUMBER_WORDS

FORMS = ("year", "number", "date", "name")
"""The answer forms a conflict edit can substitute; any other answer is of form ``other``."""

_YEAR = re.compile(r"(1[0-9]{3}|20[0-9]{2})")
_NUMBER = re.compile(
    r"(?P<prefix>[$£€])?(?P<value>\d{1,3}(?:,\d{3})+|\d+)(?P<decimals>\.\d+)?"
    r"(?P<scale> (?:hundred|thousand|million|billion|trillion|percent))?(?P<suffix>%)?"
    r"(?P<unit>(?: (?!of\b|and\b|or\b|to\b|in\b|the\b)[a-z]{2,}){1,2})?"
)
"""A number with its thousands commas, decimals, currency, scale word, percent sign and up to two
lower-case unit words ("3,500", "$2.5 million", "8.4%", "15 days", "45 square miles")."""


def _name_word(word: str) -> bool:
    """A capitalised word of letters (any script), apostrophes, hyphens and periods: ``Gallé``, ``O’Neill``."""
    return word[:1].isupper() and all(c.isalpha() or c in "'’-." for c in word)


NAME_CONNECTORS = frozenset({"of", "de", "da", "del", "der", "van", "von", "la", "le", "du", "and", "the"})
"""Lower-case words allowed inside a name (``House of Commons``, ``Ludwig van Beethoven``)."""


_WORD_NUMBER = re.compile(
    r"(?P<word>(?i:"
    + "|".join(NUMBER_WORDS)
    + r"))(?P<unit>(?: (?!of\b|and\b|or\b|to\b|in\b|the\b)[a-z]{2,}){1,2})?"
)


def number_value(text: str) -> float:
    """The value of a number answer: ``number_value("3,500") == 3500``, ``number_value("Four days") == 4``."""
    text = text.strip()
    word = _WORD_NUMBER.fullmatch(text)
    if word:
        return float(NUMBER_WORDS.index(word["word"].lower()) + 2)
    match = _NUMBER.fullmatch(text)
    if match is None:
        raise ValueError(f"not a number: {text!r}")
    return float(match["value"].replace(",", "") + (match["decimals"] or ""))


def answer_form(text: str) -> str:
    """``year``, ``number``, ``date`` (one of :func:`~eviscope.builders.eviscope.date_forms.parse_date`), ``name`` or ``other``."""
    text = text.strip()
    if _YEAR.fullmatch(text):
        return "year"
    if _NUMBER.fullmatch(text) or _WORD_NUMBER.fullmatch(text):
        return "number"
    if parse_date(text) is not None:
        return "date"
    words = text.split()
    if (
        1 <= len(words) <= 4
        and _name_word(words[0])
        and _name_word(words[-1])
        and all(_name_word(w) or w in NAME_CONNECTORS for w in words)
    ):
        return "name"
    return "other"


def substitute_year(year: str, rng: random.Random) -> str:
    """A different year within ten years of ``year``, never in the future of the corpus (2016)."""
    value = int(year)
    choices = [v for v in range(value - 10, value + 11) if v != value and 1000 <= v <= 2016]
    return str(rng.choice(choices))


def substitute_number(number: str, rng: random.Random, spread: float | None = None) -> str:
    """A different number of the same form: same digit count, thousands commas, decimals, scale and unit,
        as round as the original (500,000 becomes another multiple of 100,000), within 40% of it (30 US
    states do not become 60), never 1 for a plural.

    With ``spread``, within that share of it instead (as round as the range allows); a ``ValueError``
    where no other number of the form is that near.

        >>> substitute_number("3,500", random.Random(0)) != "3,500", substitute_number("500,000", random.Random(0))
        (True, '600,000')
        >>> answer_form(substitute_number("2.5 million", random.Random(1)))
        'number'
        >>> substitute_number("three branches", random.Random(0)) in {"two branches", "four branches", "five branches"}
        True
        >>> sorted({substitute_number("eleven", random.Random(seed), 0.2) for seed in range(20)})
        ['nine', 'ten', 'thirteen', 'twelve']
    """
    word = _WORD_NUMBER.fullmatch(number.strip())
    if word:
        value = NUMBER_WORDS.index(word["word"].lower())
        reach = max(2, value) if spread is None else spread * number_value(word["word"])
        choices = [w for i, w in enumerate(NUMBER_WORDS) if i != value and abs(i - value) <= reach]
        if not choices:
            raise ValueError(f"no number word within {spread:.0%} of {number!r}")
        new_word = rng.choice(choices)
        if word["word"][0].isupper():
            new_word = new_word.capitalize()
        return new_word + (word["unit"] or "")
    match = _NUMBER.fullmatch(number.strip())
    if match is None:
        raise ValueError(f"not a number: {number!r}")
    digits = match["value"].replace(",", "")
    width = len(digits)
    low, high = (0 if width == 1 else 10 ** (width - 1)), 10**width - 1
    value = int(digits)
    if spread is None:
        low, high = max(low, value * 6 // 10, 2 if value >= 2 else 0), min(high, value * 14 // 10 + 1)
    else:
        low = max(low, math.ceil(value * (1 - spread)), 2 if value >= 2 else 0)
        high = min(high, math.floor(value * (1 + spread)))
        if high - low < 1 or not low <= value <= high:
            raise ValueError(f"no other number like {number!r} within {spread:.0%} of it")
    step = 10 ** (len(digits) - len(digits.rstrip("0"))) if value else 1
    while step > 1 and high // step <= -(-low // step):
        step //= 10
    new = value
    while new == value:
        new = rng.randint(-(-low // step), high // step) * step
    text = f"{new:,}" if "," in match["value"] else str(new)
    return (
        (match["prefix"] or "")
        + text
        + (match["decimals"] or "")
        + (match["scale"] or "")
        + (match["suffix"] or "")
        + (match["unit"] or "")
    )
