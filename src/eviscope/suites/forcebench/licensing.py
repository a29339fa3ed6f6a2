"""How a cited span licenses a ForceBench claim: the checks each drafting rule declares (``Rule.licensing``).

A span licenses the calibrated claim's marker when it holds, unnegated, a marker of the same family at
the same or a stronger level that is still below the raise (``may`` is licensed by ``may``, ``might``,
``could``, ``can``, ``possibly``, …; ``often`` by ``often``, ``usually``, …; ``many`` by ``many`` or
``most``), tied to the same anchor where the limiter has one (the same number, year, population,
jurisdiction or noun). A span licenses the raised claim when it holds the raised marker itself
(``will``, ``causes``, ``all``, ``currently``, the bare number, …). Each function here makes or is a
:data:`Check`: ``check(span, match)`` with the rule's match in the claim.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from eviscope.core.normalize import english_stop_words

__all__ = [
    "APPROX",
    "NEGATION",
    "Check",
    "Licensing",
    "anchored",
    "at_level",
    "bare_number",
    "endpoint",
    "following_noun",
    "governed",
    "limited_number",
    "marker",
    "never",
    "number_after",
    "number_key",
    "phrase",
    "raised_marker",
    "same_bound",
    "same_jurisdiction",
    "same_range",
    "same_year",
    "universal_before_noun",
    "unnegated",
]

NEGATION = re.compile(r"\b(?:not|no|never|without|cannot)\s+(?:\w+\s+){0,1}$|n't\s+(?:\w+\s+){0,1}$", re.I)
"""A negation (``not``, ``no``, ``never``, ``without``, ``cannot``, ``n't``) ending the text, at most one word before."""


def unnegated(pattern: re.Pattern[str], text: str) -> bool:
    """True when ``pattern`` matches ``text`` somewhere not right after a negation."""
    return any(not NEGATION.search(text[: m.start()]) for m in pattern.finditer(text))


Check = Callable[[str, re.Match[str]], bool]
"""``check(span, match)``: does the cited ``span`` warrant what the rule's ``match`` in the claim says?"""
_NEAR = 60
_NEAR_BEFORE = 20


def governed(m: re.Match[str]) -> str:
    """The first five letters of the first content word in the three words after the match (the
    word the marker governs: ``may reduce`` gives ``reduc``), or ``""``."""
    for word in m.string[m.end() :].split()[:3]:
        word = word.strip(",.;:()\"'“”").lower()
        if len(word) > 2 and word not in english_stop_words():
            return word[:5]
    return ""


def marker(regex: str) -> Check:
    """The span holds ``regex`` unnegated, with the word the claim's marker governs at most
    ``_NEAR`` characters after it, or ``_NEAR_BEFORE`` before it (a marker placed after its verb)."""
    pattern = re.compile(regex, re.I)

    def check(span: str, m: re.Match[str]) -> bool:
        stem = governed(m)
        for found in pattern.finditer(span):
            if NEGATION.search(span[: found.start()]):
                continue
            near = span[max(0, found.start() - _NEAR_BEFORE) : found.end() + _NEAR].lower()
            if not stem or re.search(rf"\b{re.escape(stem)}", near):
                return True
        return False

    return check


def raised_marker(regex: str) -> Check:
    """The span holds ``regex`` anywhere, unnegated (a raised marker anywhere in it is enough)."""
    pattern = re.compile(regex, re.I)
    return lambda span, m: unnegated(pattern, span)


def never(span: str, m: re.Match[str]) -> bool:
    """No span warrants it (a rule whose raised form is never a pair)."""
    return False


def number_key(text: str) -> str:
    """A number as compared: no thousands separators, no dollar sign."""
    return text.replace(",", "").lstrip("$")


APPROX = r"(?:about|approximately|around|roughly|circa|close to|an estimated|estimated|some|nearly|almost|~)"
_UPPER = (
    r"(?:less than|fewer than|under|below|at most|up to|no more than|nearly|almost|as many as|as much as)"
)
_LOWER = r"(?:more than|over|above|at least|upwards of|exceeding|in excess of|no fewer than|no less than)"
_ANY_LIMIT = rf"(?:{APPROX}|{_UPPER}|{_LOWER}|between|from)"
_SPAN_NUMBER = re.compile(r"\$?\d[\d,]*(?:\.\d+)?")
_RANGE_JOIN = re.compile(r"^\s?(?:-|–|to|and)\s?\$?\d")


def number_after(m: re.Match[str]) -> str:
    """The number a numeric limiter bounds: the one right after the match (``about 300`` gives 300)."""
    found = _SPAN_NUMBER.match(m.string, m.end())
    return number_key(found.group(0)) if found else ""


def endpoint(m: re.Match[str]) -> str:
    """The number a range is raised to: its upper end (``1.5 to 2.0`` gives 2.0)."""
    return number_key(m.group(2))


def limited_number(limiter: str) -> Check:
    """The span puts ``limiter`` right before the limiter's number (``about 300``)."""

    def check(span: str, m: re.Match[str]) -> bool:
        number = number_after(m)
        for found in re.finditer(rf"\b{limiter}\s+(\$?\d[\d,]*(?:\.\d+)?)", span, re.I):
            if number_key(found.group(1)) == number:
                return True
        return False

    return check


def bare_number(number_of: Callable[[re.Match[str]], str]) -> Check:
    """The span states the raised number exactly: with no limiter before it and in no range."""

    def check(span: str, m: re.Match[str]) -> bool:
        number = number_of(m)
        for found in _SPAN_NUMBER.finditer(span):
            if number_key(found.group(0)) != number:
                continue
            before, after = span[max(0, found.start() - 20) : found.start()], span[found.end() :]
            limited = re.search(rf"\b{_ANY_LIMIT}\s+$", before, re.I) or re.search(
                r"(?:-|–|\bto)\s?$", before
            )
            if not limited and not _RANGE_JOIN.match(after):
                return True
        return False

    return check


def same_bound(span: str, m: re.Match[str]) -> bool:
    """The span bounds the same number in the same direction (``less than 20%`` by ``under 20%``)."""
    upper = re.fullmatch(rf"{_UPPER}\s*", m.group(0), re.I) is not None
    return limited_number(_UPPER if upper else _LOWER)(span, m)


def same_range(span: str, m: re.Match[str]) -> bool:
    """The span states the claim's range, the same two numbers in the same order."""
    low, high = number_key(m.group(1)), number_key(m.group(2))
    for found in re.finditer(r"(\$?\d[\d,]*(?:\.\d+)?)\s?(?:-|–|to|and)\s?(\$?\d[\d,]*(?:\.\d+)?)", span):
        if (number_key(found.group(1)), number_key(found.group(2))) == (low, high):
            return True
    return False


def anchored(regex: str, anchor: Callable[[re.Match[str]], str]) -> Check:
    """The span holds ``regex`` and the match's anchor word (compared on its first five letters)."""
    marker = re.compile(regex, re.I)

    def check(span: str, m: re.Match[str]) -> bool:
        stem = anchor(m).lower()[:5]
        return unnegated(marker, span) and bool(re.search(rf"\b{re.escape(stem)}", span, re.I))

    return check


def phrase(group: int) -> Check:
    """The span holds the match's group (a population, a jurisdiction, a year) as a phrase."""
    return lambda span, m: bool(re.search(rf"\b{re.escape(m.group(group))}\b", span, re.I))


_SAME_PLACE = (
    ("United States", "U.S.", "US", "USA", "U.S.A.", "America"),
    ("United Kingdom", "UK", "U.K.", "Britain"),
    ("European Union", "EU"),
)


def same_jurisdiction(span: str, m: re.Match[str]) -> bool:
    """The span names the claim's jurisdiction (``the US`` also by ``the United States``, …)."""
    name = m.group(0).split(" ", 2)[-1].removeprefix("the ")
    names = next((group for group in _SAME_PLACE if name in group), (name,))
    return any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", span) for n in names)


def same_year(span: str, m: re.Match[str]) -> bool:
    """The span holds the year of the match (``as of 2019``, ``since 1921``)."""
    year = re.search(r"(?:1[5-9]|20)\d\d", m.group(0))
    return bool(year) and year.group(0) in span


_LEVELS = {
    "quantity": {
        "some": 1,
        "several": 1,
        "certain": 1,
        "a few": 1,
        "a number of": 1,
        "many": 2,
        "numerous": 2,
        "a lot of": 2,
        "most": 3,
        "majority": 3,
        "the bulk of": 3,
    },
    "frequency": {
        "sometimes": 1,
        "occasionally": 1,
        "at times": 1,
        "can": 1,
        "may": 1,
        "often": 2,
        "frequently": 2,
        "commonly": 2,
        "regularly": 2,
        "tend to": 2,
        "tends to": 2,
        "usually": 3,
        "generally": 3,
        "typically": 3,
        "normally": 3,
        "mostly": 3,
        "mainly": 3,
        "largely": 3,
        "in most cases": 3,
    },
}


def _level(family: str, word: str) -> int:
    return _LEVELS[family].get(word.lower(), 0)


def at_level(family: str, anchor: Callable[[re.Match[str]], str]) -> Check:
    """The span holds a ``family`` marker at the claim's level or above, with the claim's anchor
    word (``anchor``: the noun a quantifier counts, the verb a frequency adverb modifies) near it."""
    words = sorted(_LEVELS[family], key=len, reverse=True)
    pattern = re.compile(rf"\b({'|'.join(map(re.escape, words))})\b", re.I)

    def check(span: str, m: re.Match[str]) -> bool:
        need = _level(family, m.group(1) if m.lastindex else m.group(0))
        stem = anchor(m)[:5]
        for found in pattern.finditer(span):
            if NEGATION.search(span[: found.start()]) or _level(family, found.group(1)) < need:
                continue
            near = span[max(0, found.start() - _NEAR_BEFORE) : found.end() + _NEAR]
            if not stem or re.search(rf"\b{re.escape(stem)}", near, re.I):
                return True
        return False

    return check


def following_noun(m: re.Match[str]) -> str:
    """The first content word after the match (``some of the regions`` gives ``regions``)."""
    rest = m.string[m.end() :].split()
    for word in rest[:4]:
        word = word.strip(",.;:()").lower()
        if word not in {"of", "the", "a", "an", "these", "those", "its", "their", "our"}:
            return word
    return ""


def universal_before_noun(span: str, m: re.Match[str]) -> bool:
    noun = following_noun(m)
    return bool(noun) and bool(
        re.search(rf"\b(?:all|every|each)\s+(?:\w+\s+){{0,2}}{re.escape(noun[:5])}", span, re.I)
    )


@dataclass(frozen=True)
class Licensing:
    """How a cited span licenses one rule's limiter (``calibrated``) and its raised form (``raised``)."""

    calibrated: Check
    raised: Check
