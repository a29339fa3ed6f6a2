"""Dates other than a plain year: the forms a conflict edit alters, and their believable alternatives.

A conflict edit replaces a date with a date of the same form (contract §2, constraints 1 and 2): the same
kind, spelled the same way (a month in full or abbreviated, the ordinal's suffix or word, "the" and
"early"/"mid-"/"late" kept), within a small window of the original:

============== ================================== ===============================================
kind           examples                           alternatives
============== ================================== ===============================================
day            7 February 2016, May 21, 2013      1 to 3 weeks away, in the same year (a weekday
                                                  the passage names stays right)
month          March 1965, Feb. 2015              1 to 3 months away, in the same year
day of month   12 January, December 3             1 or 2 weeks away, in the same month
month name     June                               1 or 2 months away, in the same year
decade         1990s, the early 1960s, mid-2000s  the decade before or after
century        18th century, the eighteenth       the century before or after
               century, late 14th-century
part of a year early 1938, late 2008              1 to 3 years away
============== ================================== ===============================================

Dates come from the standard library's calendar (:mod:`datetime`) and ``python-dateutil``'s
``relativedelta`` and month names, so a day is always valid (no "February 30"). Every other form a
date answer takes (a range, a weekday, a holiday, a duration, an era) has a named reason in
:func:`date_problem`, and its question is not eligible.

:func:`date_alternatives` keeps each alternative in the same order (before, within, after) to every
other date and year of the passage (:func:`date_mentions`), and never later than the latest of them.

>>> parse_date("February 7, 2016").kind, parse_date("the 1990s").kind, parse_date("mid-18th century").kind
('day', 'decade', 'century')
>>> [o.text for o in date_options(parse_date("the early 1960s"))]
['the early 1950s', 'the early 1970s']
>>> date_problem("between 1268 and 1273"), date_problem("Tuesday")
('a range of dates', 'a day of the week')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache

from dateutil.parser import parserinfo
from dateutil.relativedelta import relativedelta

LATEST = date(2016, 12, 31)
"""No alternative is later than the corpus (SQuAD v1.1 was written in 2016)."""

_MONTHS: list[tuple[str, ...]] = parserinfo.MONTHS
"""dateutil's English month names, January first: (abbreviation, [other abbreviation,] full name)."""
_FULL = [names[-1] for names in _MONTHS]
_ABBREVIATIONS = [name for names in _MONTHS for name in names[:-1] if name != "May"]
_MONTH = r"(?P<month>" + "|".join(_FULL) + "|(?:" + "|".join(_ABBREVIATIONS) + r")\.?)"
_FULL_MONTH = r"(?P<month>" + "|".join(_FULL) + ")"
_DAY = r"(?P<day>[1-9]|[12]\d|3[01])"
_YEAR = r"(?P<year>1\d{3}|20\d{2})"
_LEAD = r"(?:[Tt]he )?(?:(?:[Ee]arly|[Mm]id|[Ll]ate)[- ])?"
ORDINAL_WORDS = [
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
    "twentieth",
    "twenty-first",
]
"""Centuries in words, first to twenty-first."""
_ORDINAL = r"(?P<ordinal>(?:[1-9]|1\d|2[01])(?:st|nd|rd|th)|(?i:" + "|".join(ORDINAL_WORDS[::-1]) + "))"

_FORMS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern))
    for kind, pattern in (
        ("day", rf"{_DAY} {_MONTH},? {_YEAR}"),
        ("day", rf"{_MONTH} {_DAY},? {_YEAR}"),
        ("month", rf"{_MONTH},? {_YEAR}"),
        ("day of month", rf"{_DAY} {_MONTH}"),
        ("day of month", rf"{_MONTH} {_DAY}"),
        ("month name", _FULL_MONTH),
        ("decade", rf"{_LEAD}(?P<decade>1\d\d0|20[01]0)s"),
        ("century", rf"{_LEAD}{_ORDINAL}[ -][Cc]entury"),
        ("part of a year", rf"(?:[Ee]arly|[Mm]id|[Ll]ate)[- ]{_YEAR}"),
    )
)
_HAS_DIGIT = re.compile(r"\d")
YEARLESS = frozenset({"day of month", "month name"})
"""Kinds that name no year: their order is told within a year."""


@dataclass(frozen=True)
class DateAnswer:
    """A date in one of the kinds of :data:`_FORMS`, and the days it covers (in 2000 when yearless)."""

    text: str
    kind: str
    first: date
    last: date
    fields: tuple[tuple[str, int, int], ...]
    """``(group, start, end)`` of each changeable part of ``text``: day, month, year, decade, ordinal."""

    def value(self, group: str) -> str:
        """The text of one of :attr:`fields`."""
        for name, start, end in self.fields:
            if name == group:
                return self.text[start:end]
        raise KeyError(group)


def _month_number(name: str) -> int:
    name = name.rstrip(".")
    return next(i for i, names in enumerate(_MONTHS, 1) if name in names)


def _century_number(ordinal: str) -> int:
    digits = re.match(r"\d+", ordinal)
    return int(digits.group()) if digits else ORDINAL_WORDS.index(ordinal.lower()) + 1


def parse_date(text: str) -> DateAnswer | None:
    """The date ``text`` is, when it is one of the kinds of :data:`_FORMS` and a real day; else ``None``.

    >>> parse_date("29 February 2008").last, parse_date("February 30, 2008"), parse_date("1990")
    (datetime.date(2008, 2, 29), None, None)
    >>> d = parse_date("the 12th century"); (d.kind, d.first.year, d.last.year)
    ('century', 1100, 1199)
    """
    if not (_HAS_DIGIT.search(text) or text in _FULL or "entury" in text):
        return None  # the quick way out for the names answer_form asks about
    for kind, pattern in _FORMS:
        match = pattern.fullmatch(text)
        if match is None:
            continue
        groups = match.groupdict()
        fields = tuple((name, match.start(name), match.end(name)) for name, v in groups.items() if v)
        try:
            first, last = _span(kind, groups)
        except ValueError:
            return None
        return DateAnswer(text, kind, first, last, fields)
    return None


def _span(kind: str, groups: dict[str, str | None]) -> tuple[date, date]:
    """The first and last day of a date of ``kind`` with these regex groups (``ValueError`` if none)."""
    year = int(groups.get("year") or 2000)
    if kind in {"day", "day of month"}:
        day = date(year, _month_number(groups["month"] or ""), int(groups["day"] or 0))
        return day, day
    if kind in {"month", "month name"}:
        first = date(year, _month_number(groups["month"] or ""), 1)
        return first, first + relativedelta(months=1, days=-1)
    if kind == "decade":
        start = int(groups["decade"] or 0)
        return date(start, 1, 1), date(start + 9, 12, 31)
    if kind == "century":
        number = _century_number(groups["ordinal"] or "")
        return date(max(1, 100 * (number - 1)), 1, 1), date(100 * number - 1, 12, 31)
    return date(year, 1, 1), date(year, 12, 31)


def _ordinal(number: int, like: str) -> str:
    """``number`` as an ordinal written like ``like`` ("18th" -> "17th", "Eighteenth" -> "Seventeenth")."""
    if like[:1].isdigit():
        suffix = "th" if 10 <= number % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
        return f"{number}{suffix}"
    word = ORDINAL_WORDS[number - 1]
    return word.capitalize() if like[:1].isupper() else word


def _month_name(number: int, like: str) -> str:
    """Month ``number`` spelled like ``like``: in full, or abbreviated with or without a period."""
    names = _MONTHS[number - 1]
    bare = like.rstrip(".")
    if bare in _FULL:
        return names[-1]
    return names[0] + ("." if like.endswith(".") and names[0] != "May" else "")


def _render(answer: DateAnswer, **values: str) -> DateAnswer | None:
    """``answer`` with some of its fields replaced, re-parsed (``None`` when that is no real date)."""
    text = answer.text
    for name, start, end in sorted(answer.fields, key=lambda f: -f[1]):
        if name in values:
            text = text[:start] + values[name] + text[end:]
    return parse_date(text)


def date_options(answer: DateAnswer) -> list[DateAnswer]:
    """Every alternative to ``answer`` in the window of its kind (see the module's table), earliest first.

    >>> [o.text for o in date_options(parse_date("February 7, 2016"))]
    ['January 17, 2016', 'January 24, 2016', 'January 31, 2016', 'February 14, 2016', 'February 21, 2016', 'February 28, 2016']
    >>> [o.text for o in date_options(parse_date("Sept. 2015"))][:3], [o.text for o in date_options(parse_date("18th century"))]
    (['Jun. 2015', 'Jul. 2015', 'Aug. 2015'], ['17th century', '19th century'])
    """
    kind, found = answer.kind, []
    if kind in {"day", "day of month"}:
        weeks = range(-3, 4) if kind == "day" else range(-2, 3)
        for week in weeks:
            day = answer.first + timedelta(weeks=week)
            same = day.year == answer.first.year if kind == "day" else day.month == answer.first.month
            if week and same:
                found.append(
                    _render(
                        answer,
                        day=str(day.day),
                        month=_month_name(day.month, answer.value("month")),
                        year=str(day.year),
                    )
                )
    elif kind in {"month", "month name"}:
        reach = 3 if kind == "month" else 2
        for step in range(-reach, reach + 1):
            month = answer.first.month + step
            if step and 1 <= month <= 12:
                found.append(_render(answer, month=_month_name(month, answer.value("month"))))
    elif kind == "decade":
        start = answer.first.year
        found = [_render(answer, decade=str(start + step)) for step in (-10, 10)]
    elif kind == "century":
        number = _century_number(answer.value("ordinal"))
        like = answer.value("ordinal")
        found = [_render(answer, ordinal=_ordinal(n, like)) for n in (number - 1, number + 1) if 1 <= n <= 21]
    else:
        year = answer.first.year
        found = [_render(answer, year=str(year + step)) for step in (-3, -2, -1, 1, 2, 3)]
    return [
        option
        for option in found
        if option is not None and option.kind == kind and (kind in YEARLESS or option.last <= LATEST)
    ]


_MENTION = re.compile(
    re.sub(
        r"\?P<\w+>",
        "?:",
        r"(?<!\w)(?:"
        + "|".join(
            [
                rf"{_DAY} {_MONTH},? {_YEAR}",
                rf"{_MONTH} {_DAY},? {_YEAR}",
                rf"{_MONTH},? {_YEAR}",
                rf"{_DAY} {_MONTH}",
                rf"{_MONTH} {_DAY}",
                r"(?:1\d\d0|20[01]0)s",
                rf"{_ORDINAL}[ -][Cc]entur(?:y|ies)",
                rf"(?<=the ){_ORDINAL}",
                _YEAR,
                _FULL_MONTH,
            ]
        )
        + r")(?!\w)",
    )
)
"""Any date or year of a passage (without group names: the alternatives share them)."""


@dataclass(frozen=True)
class Mention:
    """A date or year that a passage states, at ``text[start:end]``, and the days it covers."""

    start: int
    end: int
    first: date
    last: date
    yearless: bool
    century_only: bool = False
    """A bare ordinal ("in the 9th"): a century only beside a century answer."""


def date_mentions(text: str) -> list[Mention]:
    """Every date, year, decade and century ``text`` states, in order.

    >>> text = "From 1421 to the 1990s, in May."
    >>> [(text[m.start : m.end], m.first.year) for m in date_mentions(text)]
    [('1421', 1421), ('1990s', 1990), ('May', 2000)]
    """
    mentions = []
    for match in _MENTION.finditer(text):
        found = match.group()
        year = re.fullmatch(_YEAR, found)
        if year:
            value = int(found)
            mentions.append(
                Mention(match.start(), match.end(), date(value, 1, 1), date(value, 12, 31), False)
            )
            continue
        ordinal = re.match(_ORDINAL, found)
        if ordinal:
            number = _century_number(ordinal.group())
            first, last = date(max(1, 100 * (number - 1)), 1, 1), date(100 * number - 1, 12, 31)
            bare = ordinal.end() == len(found)
            mentions.append(Mention(match.start(), match.end(), first, last, False, bare))
            continue
        parsed = parse_date(found)
        if parsed is not None:
            mentions.append(
                Mention(match.start(), match.end(), parsed.first, parsed.last, parsed.kind in YEARLESS)
            )
    return mentions


def _order(a: tuple[date, date], b: tuple[date, date]) -> str:
    """``<`` when ``a`` ends before ``b`` starts, ``>`` when it starts after ``b`` ends, else ``=``."""
    return "<" if a[1] < b[0] else ">" if a[0] > b[1] else "="


def _in_2000(day: date) -> date:
    """The same day of the month in 2000 (a leap year)."""
    return day.replace(year=2000)


def date_alternatives(answer: DateAnswer, context: str, start: int) -> list[DateAnswer]:
    """The options of :func:`date_options` that keep their order to every date and year of ``context``.

    ``answer`` stands at ``context[start:]``. A dated answer is compared with every dated mention and
    is never later than the latest of them (nor than itself where it is the latest); a yearless one
    with every mention of the same month (a day of month) or that names a month (a month name),
    within the year.

    >>> text = "Built in 1887; it opened in May 1888 and closed in 1890."
    >>> [o.text for o in date_alternatives(parse_date("May 1888"), text, 28)]
    ['February 1888', 'March 1888', 'April 1888', 'June 1888', 'July 1888', 'August 1888']
    >>> [o.text for o in date_alternatives(parse_date("May 1888"), "It opened in May 1888.", 13)]
    ['February 1888', 'March 1888', 'April 1888']
    """
    end = start + len(answer.text)
    others = [
        m
        for m in date_mentions(context)
        if (m.end <= start or m.start >= end) and (not m.century_only or answer.kind == "century")
    ]
    options = date_options(answer)
    old = (answer.first, answer.last)
    if answer.kind == "day of month":
        spans = [
            (_in_2000(m.first), _in_2000(m.last))
            for m in others
            if m.first == m.last and m.first.month == answer.first.month
        ]
        return [o for o in options if all(_order(old, s) == _order((o.first, o.last), s) for s in spans)]
    if answer.kind == "month name":
        months = {m.first.month for m in others if m.last - m.first < timedelta(days=31)}
        month = answer.first.month
        return [
            o
            for o in options
            if all((o.first.month > n) - (o.first.month < n) == (month > n) - (month < n) for n in months)
        ]
    dated = [(m.first, m.last) for m in others if not m.yearless]
    latest = max([answer.last, *(last for _, last in dated)])
    return [
        o
        for o in options
        if o.last <= latest and all(_order(old, s) == _order((o.first, o.last), s) for s in dated)
    ]


_WEEKDAY = re.compile(r"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days?(?: \w+)?", re.IGNORECASE)
HOLIDAYS: tuple[str, ...] = (
    "Christmas",
    "Easter",
    "New Year",
    "Thanksgiving",
    "Halloween",
    "Ramadan",
    "Eid",
    "Yom Kippur",
    "Rosh Hashanah",
    "Hanukkah",
    "Passover",
    "Diwali",
    "Lent",
    "Advent",
    "Pentecost",
    "Good Friday",
    "Independence Day",
)
"""Holidays and feasts: no alternative is made for a date answer that is one, and a day or month
whose sentence names one is not changed (:mod:`eviscope.builders.eviscope.eligibility`)."""
_HOLIDAY = re.compile(r"\b(?:" + "|".join(HOLIDAYS) + ")", re.IGNORECASE)
_RANGE = re.compile(
    r"\b(?:between|from|to|through|until|till|and)\b|centuries|\d\s*[–—-]\s*\d|[a-z]\s*[–—]\s*\w",
    re.IGNORECASE,
)
_DURATION = re.compile(r"\b(?:every|each|ago|yr|years?|months?|weeks?|days?|decades)\b", re.IGNORECASE)
_ERA = re.compile(r"\b(?:AD|BC|BCE|CE|millennium)\b")


@cache
def date_problem(text: str) -> str | None:
    """Why a date answer has no alternative of its form, or ``None`` when :func:`parse_date` reads it.

    >>> date_problem("7 January 1943"), date_problem("65.5 million years ago"), date_problem("fall of 1937")
    (None, 'a duration, a frequency or a time before the present', 'another form')
    """
    if parse_date(text) is not None:
        return None
    if _RANGE.search(text):
        return "a range of dates"
    if _WEEKDAY.fullmatch(text):
        return "a day of the week"
    if _HOLIDAY.search(text):
        return "a holiday"
    if _DURATION.search(text):
        return "a duration, a frequency or a time before the present"
    if _ERA.search(text):
        return "a date in an era (AD, BC) or millennium"
    return "another form"
