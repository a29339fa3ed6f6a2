"""Answer forms (year, number, name) and same-form substitutes for conflict passages.

A conflict edit must replace the answer "with a phrase of the same form (a year for a year, a number
for a number, a name for a name)" (SPEC §2, constraint 1). This module says what each form is.

>>> answer_form("1066"), answer_form("3,500"), answer_form("$2.5 million"), answer_form("Denver Broncos")
('year', 'number', 'number', 'name')
>>> answer_form("the late 1990s"), answer_form("Denver Broncos in 2016")
('other', 'other')
"""

from __future__ import annotations

import random
import re

FORMS = ("year", "number", "name")
"""The answer forms a conflict edit can substitute; any other answer is of form ``other``."""

_YEAR = re.compile(r"(1[0-9]{3}|20[0-9]{2})")
_NUMBER = re.compile(
    r"(?P<prefix>[$£€])?(?P<value>\d{1,3}(?:,\d{3})+|\d+)(?P<decimals>\.\d+)?"
    r"(?P<scale> (?:hundred|thousand|million|billion|trillion|percent))?(?P<suffix>%)?"
)


def _name_word(word: str) -> bool:
    """A capitalised word of letters (any script), apostrophes, hyphens and periods: ``Gallé``, ``O’Neill``."""
    return word[:1].isupper() and all(c.isalpha() or c in "'’-." for c in word)


NAME_CONNECTORS = frozenset({"of", "de", "da", "del", "der", "van", "von", "la", "le", "du", "and", "the"})
"""Lower-case words allowed inside a name (``House of Commons``, ``Ludwig van Beethoven``)."""


def answer_form(text: str) -> str:
    """``year``, ``number``, ``name`` or ``other``."""
    text = text.strip()
    if _YEAR.fullmatch(text):
        return "year"
    if _NUMBER.fullmatch(text):
        return "number"
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
    """A different year within twenty years of ``year``, never in the future of the corpus (2025)."""
    value = int(year)
    choices = [v for v in range(value - 20, value + 21) if v != value and 1000 <= v <= 2025]
    return str(rng.choice(choices))


def substitute_number(number: str, rng: random.Random) -> str:
    """A different number of the same form: same digit count, thousands commas, decimals and scale.

    >>> substitute_number("3,500", random.Random(0)) != "3,500"
    True
    >>> answer_form(substitute_number("2.5 million", random.Random(1)))
    'number'
    """
    match = _NUMBER.fullmatch(number.strip())
    if match is None:
        raise ValueError(f"not a number: {number!r}")
    digits = match["value"].replace(",", "")
    width = len(digits)
    low, high = (0 if width == 1 else 10 ** (width - 1)), 10**width - 1
    value = int(digits)
    low, high = max(low, value // 2), min(high, value * 2 + 9)
    new = value
    while new == value:
        new = rng.randint(low, high)
    text = f"{new:,}" if "," in match["value"] else str(new)
    return (
        (match["prefix"] or "")
        + text
        + (match["decimals"] or "")
        + (match["scale"] or "")
        + (match["suffix"] or "")
    )
