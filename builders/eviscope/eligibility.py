"""Which SQuAD questions can be an EviScope base question (contract §2): the cheap checks on the
answer, its sentence and its paragraph, before a conflict passage is made
(:mod:`~eviscope.builders.eviscope.candidates`).

The shortest gold alias (the *core*) must have a semantic type that can be told confidently
(:mod:`~eviscope.builders.eviscope.answer_types`) and be a plain year, number or name, or a date of a
form :mod:`~eviscope.builders.eviscope.date_forms` alters; every alias contains the core; the core
occurs exactly once in the paragraph, on word boundaries; the sentence around it would still read
right with another answer (:func:`_context_problem`); and no conflict cue stands in the answer's
sentences, or the paragraph still reads as a whole without the sentences that hold one
(:func:`_cue_problem`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from eviscope.builders.eviscope.answer_forms import NUMBER_WORDS, answer_form, number_value
from eviscope.builders.eviscope.answer_types import Entity, answer_type
from eviscope.builders.eviscope.conflict_lints import cue_sentence_spans
from eviscope.builders.eviscope.date_forms import HOLIDAYS, date_problem, parse_date
from eviscope.core.normalize import contains, tokens
from eviscope.core.sentences import sentence_at, sentence_spans
from eviscope.suites.eviscope.squad_source import Question, Squad


def _aliases(question: Question) -> tuple[str, ...]:
    """The distinct SQuAD answers, in source order."""
    return tuple(dict.fromkeys(text.strip() for text, _ in question.answers))


def _occurrences(text: str, phrase: str) -> list[int]:
    """Offsets of ``phrase`` in ``text`` on word boundaries (no regex: one per question is slow)."""
    found, start = [], text.find(phrase)
    while start != -1:
        end = start + len(phrase)
        if not (start and (text[start - 1].isalnum() or text[start - 1] == "_")) and not (
            end < len(text) and (text[end].isalnum() or text[end] == "_")
        ):
            found.append(start)
        start = text.find(phrase, start + 1)
    return found


NAMED_TYPES = frozenset(
    {"person", "organisation", "country", "city", "region", "place", "facility", "work", "event", "group"}
)
"""Answer types whose alternative is another name (the rest are years and quantities)."""
BELIEVABLE_NAMES = frozenset({"person"})
"""The name types whose alternatives the builder can make believable: a person introduced by the same
role word ("quarterback") and a city of the same first-level region (state, nation). Countries, organisations, works, events,
groups and other places were read and found too often unbelievable ("Fort Duquesne" among museums,
"Americans" in the Third World, the United States given special status in the EU), so their
questions are not eligible."""
_FORM_OF_TYPE = {"year": "year", "quantity": "number", "date": "date", **dict.fromkeys(NAMED_TYPES, "name")}


@dataclass(frozen=True)
class _Eligible:
    """A question past the cheap checks, before its conflict passage is made."""

    question: Question
    aliases: tuple[str, ...]
    core: str
    core_start: int
    form: str
    type: str
    support_span: tuple[int, int]


_RANGE_BEFORE = re.compile(r"(?:\d\s*[–—-]|\bto|\band|\bor)\s*$")
_RANGE_AFTER = re.compile(r"^\s*(?:[–—-]\s*\d|to \d|and \d|or \d)")
_APPOSITIVE = re.compile(r"^,? \((?!\d)|^, (?:a|an|the) [a-z]|^, [A-Z][a-z]+ of ")


_RELATIVE = re.compile(
    r"\b(?:difference|total|totals|overall|combined|sum|altogether|respectively|average|anniversary|"
    r"(?:\w+|\d+) (?:years?|decades?|months?|centuries) (?:before|after|later|earlier|ago|old)|"
    r"(?:at|aged) (?:the )?(?:age|\d+))\b"
)
"""Words by which a sentence ties its numbers together ("13 years and 48 days ... Manning was 39,
Newton was 26"; "published in 1543, three years before his death"), so that changing one breaks it."""


_DATED = re.compile(
    r"\bWorld War\b|\bcentur(?:y|ies)\b|\b(?:1\d|20)\d0s\b|\b(?:\w+|\d+) (?:years|decades)\b|\b(?:1\d{3}|20\d{2}) season\b"
)
"""A year's sentence that also dates it otherwise ("... in 1914, as acknowledgement of Britain's
support of France in World War I"; "in six years, from ... 1754 to ... 1760"; "the 2015 season",
whose game the passage dates), so that another year could contradict it."""
_EDITION_BEFORE = re.compile(r"\bSuper Bowl (?:[IVXLC]+|\d+)\W+(?:\w+\W+){0,2}$")
_EDITION_AFTER = re.compile(r"^\W+(?:\w+\W+){0,2}?Super Bowl (?:[IVXLC]+|\d+)\b")
"""A numbered Super Bowl, played once a year, within three words of the year ("in 1985 (Super Bowl
XIX)", "Super Bowl XLIV in 2010"), which fixes the year."""
_KINDS = re.compile(
    r"\s+(?:\w+\s+)?(?:kinds|types|classes|categories|forms|groups|parts|branches|ways|methods|stages|"
    r"phases|levels|points|principles|steps|sorts|varieties|components|elements)\b"
)
"""A small count of kinds ("two kinds of X.25 networks"), which the passage then goes on to name."""
_DURATION = re.compile(r"\s+(?:\w+\s+)?(?:seasons|series|years|decades|centuries|months|weeks|days)\b")
"""A count of time ("ran for 26 seasons ... from 1963 until 1989") that the sentence's years fix."""
_POINTS_BACK = re.compile(
    r"^[\"'“‘(]?(?:Also|Thus|Therefore|Hence|Consequently|Accordingly|Instead|Nevertheless|Nonetheless|"
    r"Still|Yet|But|And|Nor|Moreover|Furthermore|Meanwhile|Then|Later|Again|Otherwise|Conversely|Similarly|"
    r"Likewise|Another|Others|Both|The latter|The former|The same|The couple|The pair|The two|As a result|"
    r"As such|In turn|In addition|Additionally|By contrast|In contrast|On the other hand|Even so|"
    r"For this reason|Despite this)\b"
    r"|^(?:\W*\w+\b){0,5}?\W*\b(?:[Hh]e|[Ss]he|[Hh]im|[Hh]is|[Hh]er|[Tt]hey|[Tt]hem|[Tt]heir|[Ii]ts?|[Tt]his|"
    r"[Tt]hese|[Tt]hose|[Ss]uch)\b"
)
"""A sentence opening that points back to the sentence before: a connective ("As a result", "By
contrast") or a pronoun or demonstrative among its first six words ("In 1187, he launched")."""
_NAME = re.compile(r"(?<=[\s(“\"‘'])[A-Z][\w-]*")
"""A capitalised word that does not open its sentence: a name, or part of one."""
_NAMED_LIST = re.compile(r"\b(?:were|are)\s+(?:the\s+)?[A-Z][^.;]*\band\s+(?:the\s+)?[A-Z]")
"""A count that the sentence then spells out as names ("the two finalists were Sun Life Stadium and
Levi's Stadium"), so that another count contradicts the list."""
_PART_OF = re.compile(
    r"^\s+(?:out\s+)?of\s+(?:the\s+)?(?:then\s+)?(?P<total>\d{1,3}(?:,\d{3})+|\d+|"
    + "|".join(NUMBER_WORDS)
    + r")\b",
    re.IGNORECASE,
)
"""A part of a stated total ("11 of the then 12 member states")."""
_NEAR = re.compile(
    r"\b(?:close to|near|nearby|outside|suburbs?|(?:north|south|east|west) of)\b", re.IGNORECASE
)


def _context_problem(question: str, context: str, start: int, end: int, kind: str) -> str | None:
    """Why the sentence around the answer would not read right with another answer in its place.

    >>> _context_problem("How many finalists?", "The two finalists were Sun Life and Levi's.", 4, 7, "quantity")
    'the sentence lists what the number counts'
    >>> _context_problem("How many states?", "It passed in 1989 by 11 of the then 12 states.", 21, 23, "quantity")
    'the answer is all but one or two of a stated total, whose exceptions the passage may name'
    >>> _context_problem("How many MVPs?", "It featured 39 of the 43 previous MVPs.", 12, 14, "quantity") is None
    True
    >>> _context_problem("When?", "It last hosted in 1985 (Super Bowl XIX).", 18, 22, "year")
    'the year stands beside a numbered yearly event that dates it'
    """
    before, after = context[:start], context[end:]
    if "stand for" in question.lower():
        return "the question asks what an acronym stands for"
    if kind == "date":
        return _date_context_problem(context, start, end)
    if kind in NAMED_TYPES:
        if _APPOSITIVE.search(after) or re.search(r"\(\s*$", before):
            return "an acronym, parenthesis or appositive is next to the answer"
        if re.search(r"[A-Z][\w’'-]*\s$", before[-30:]) and not re.search(
            r"(?:^|[.!?]\s+)[A-Z][\w’'-]*\s$", before
        ):
            return "the answer is part of a longer name"
        if re.match(r"^\s+(?!and\b|or\b|of\b)[A-Z]", after) and not re.match(r"^\s*[.!?]", after):
            return "the answer is part of a longer name"
        if re.match(r"^\.\s+[a-z]", after):
            return "the answer ends in an abbreviation's period"
    elif _RANGE_BEFORE.search(before[-12:]) or _RANGE_AFTER.search(after[:12]):
        return "the answer is one end of a range, score or list of numbers"
    elif re.match(r"^[.,]\d", after) or re.search(r"\d[.,]$", before):
        return "the answer is part of a longer number"
    elif re.match(r"^[^;()]{0,30}\(\s*(?:or |about |c\. |approximately )*[$£€]?\d", after) or re.search(
        r"\d[^;()]{0,30}\(\s*$", before[-40:]
    ):
        return "the answer stands beside its value in other units"
    elif re.search(r"\(\s*$", before):
        return "the answer restates in parentheses a figure of its sentence"
    elif re.match(r"^[^.;]*:", after):
        return "the sentence lists what the number counts"
    if kind in {"year", "quantity"}:
        s, e = sentence_at(context, start)
        if _RELATIVE.search(context[s:e].lower()) or (kind == "year" and _DATED.search(context[s:e])):
            return "the sentence ties the number to another by arithmetic or a relative date"
        if kind == "year" and (
            _EDITION_BEFORE.search(context[s:start]) or _EDITION_AFTER.match(context[end:e])
        ):
            return "the year stands beside a numbered yearly event that dates it"
        spans_years = len(re.findall(r"\b1\d{3}\b|\b20\d{2}\b", context[s:e])) >= 2
        if kind == "quantity" and spans_years and _DURATION.match(context[end:e]):
            return "the sentence gives the years that the duration spans"
        small = kind == "quantity" and number_value(context[start:end]) <= 20
        if small and (re.search(r"[:,(;–—]", context[end:e]) or _KINDS.match(context[end:e])):
            return "the sentence or the next may list what the number counts"
        if small and _NAMED_LIST.search(context[end:e]):
            return "the sentence lists what the number counts"
        total = _PART_OF.match(context[end:e])
        if (
            kind == "quantity"
            and total
            and 0 < number_value(total["total"]) - number_value(context[start:end]) <= 2
        ):
            return "the answer is all but one or two of a stated total, whose exceptions the passage may name"
    if kind == "city":
        s, e = sentence_at(context, start)
        if re.match(r"^, [A-Z]", after) or _NEAR.search(context[s:e]):
            return "the city is qualified by its region or placed relative to another place"
    return None


def _cue_problem(context: str, span: tuple[int, int]) -> str | None:
    """Why the support less its cue sentences
    (:func:`~eviscope.builders.eviscope.conflict_lints.without_cue_sentences`) cannot be the base of the
    conflict passage, which must still read as a whole: the answer's sentence holds a cue; a kept
    sentence right after a dropped one points back to it (:data:`_POINTS_BACK`); or a kept sentence
    names what only a dropped one introduced ("King Malcolm III ..." dropped, "Malcolm submitted" kept).

    >>> text = "It opened in 1932. However, tolls were disputed. Tolls ended."
    >>> _cue_problem(text, (0, 18)) is None, _cue_problem(text, (19, 47))
    (True, "the answer's sentence holds a conflict cue")
    >>> _cue_problem("It opened in 1932. However, tolls were disputed. In 1940, they ended.", (0, 18))
    'a sentence after a dropped cue sentence points back to it'
    >>> _cue_problem("It opened in 1932. However, Smith disputed tolls. Smith left.", (0, 18))
    'a kept sentence names what only a dropped cue sentence introduced'
    """
    dropped = cue_sentence_spans(context)
    if any(s < span[1] and span[0] < e for s, e in dropped):
        return "the answer's sentence holds a conflict cue"
    return _incoherent_without_cues(context)


@lru_cache(maxsize=1024)
def _incoherent_without_cues(context: str) -> str | None:
    """Why ``context`` less its cue sentences would not read as a whole (see :func:`_cue_problem`)."""
    dropped = cue_sentence_spans(context)
    spans = sentence_spans(context)
    for (s, e), (next_start, next_end) in pairwise(spans):
        kept_after_dropped = (s, e) in dropped and (next_start, next_end) not in dropped
        if kept_after_dropped and _POINTS_BACK.match(context[next_start:next_end]):
            return "a sentence after a dropped cue sentence points back to it"
    for s, e in dropped:
        before = " ".join(context[i:j] for i, j in spans if j <= s and (i, j) not in dropped)
        after = " ".join(context[i:j] for i, j in spans if i >= e and (i, j) not in dropped)
        for name in {m.group().removesuffix("’s").removesuffix("'s") for m in _NAME.finditer(context[s:e])}:
            if _occurrences(after, name) and not _occurrences(before, name):
                return "a kept sentence names what only a dropped cue sentence introduced"
    return None


_DATE_RANGE_BEFORE = re.compile(r"(?:\b(?:between|until|till|through|to|and|or)|[–—-])\s*$", re.IGNORECASE)
_DATE_RANGE_AFTER = re.compile(r"^\s*(?:[–—-]|(?:to|until|till|through|and|or)\b)")
_DATE_RELATIVE = re.compile(
    r"\b(?:(?:\w+|\d+)[ -](?:days?|weeks?|nights?|months?)[ -](?:before|after|later|earlier|ago|prior|long|old)|"
    r"(?:next|following|previous|preceding|same|prior) (?:day|week|month|year|morning|afternoon|evening|night)|"
    r"eve|birthday|by the time|shortly (?:after|before)|within (?:\w+|\d+) (?:days?|weeks?|months?)|"
    r"prior to|ahead of|run-up to|leading up to)\b"
)
"""Words that tie a date to another day ("three days before his death", "the eve of the publication",
"the Monday evening prior to the game")."""
_SEASON = re.compile(
    r"\b(?:spring|summer|autumn|fall|winter|feast|"
    + "|".join(HOLIDAYS)
    + r"|(?:Boxing|Labou?r|Memorial|Veterans|Saint \w+'s|St\. \w+'s) Day)\b",
    re.IGNORECASE,
)
"""A season, holiday or feast, which a day or a month of the same or the next sentence must fall in."""


def _date_context_problem(context: str, start: int, end: int) -> str | None:
    """Why another date could not stand in the sentence of the date answer at ``context[start:end]``.

    Relative words ("the next morning", "prior to the game") are looked for in the sentences before and
    after too, seasons and feasts in the next one.

    >>> text = "It ran from 23 November 1963 until 6 December 1989. He died on 7 January 1943, aged 86."
    >>> _date_context_problem(text, 12, 28), _date_context_problem(text, 63, 77)
    ('the answer is one end of a range of dates', 'the sentence ties the date to another by arithmetic or a relative date')
    """
    before, after = context[:start], context[end:]
    if _DATE_RANGE_BEFORE.search(before[-14:]) or _DATE_RANGE_AFTER.match(after[:14]):
        return "the answer is one end of a range of dates"
    if re.match(r"^(?:[.,:/]\d|-\w)", after) or re.search(r"\d[.,:/-]?$", before):
        return "the answer is part of a longer date or number"
    if re.search(r"[A-Z][\w’'-]* of $", before):
        return "the answer is part of the name of an event it dates"
    s, e = sentence_at(context, start)
    rest = context[s:start] + " " + context[end:e]
    spans = sentence_spans(context)
    following = next((context[a:b] for a, b in spans if a >= e), "")
    preceding = next((context[a:b] for a, b in reversed(spans) if b <= s), "")
    if _RELATIVE.search(rest.lower()) or _DATE_RELATIVE.search(f"{preceding} {rest} {following}".lower()):
        return "the sentence ties the date to another by arithmetic or a relative date"
    if _DATED.search(rest):
        return "the sentence also dates the answer otherwise (a war, a duration, a season of play)"
    answer = parse_date(context[start:end])
    fine = answer is not None and answer.kind in {"day", "month", "day of month", "month name"}
    if fine and _SEASON.search(f"{rest} {following}"):
        return "the sentence names a season or holiday that the day or month must fall in"
    return None


def _cheap_checks(
    squad: Squad, question: Question, cued: set[int], entities: list[Entity], known: dict[str, Counter[str]]
) -> _Eligible | str:
    """The question's core, its answer type and its span, or why it cannot be a base question."""
    context = squad.paragraphs[question.paragraph].context
    aliases = _aliases(question)
    core = min(aliases, key=lambda a: (len(tokens(a)), len(a)))
    if not tokens(core):
        return "answer is empty after normalization"
    if not all(contains(alias, core) for alias in aliases):
        return "aliases do not share one core answer"
    starts = _occurrences(context, core)
    if len(starts) != 1:
        return "core answer is not stated exactly once"
    if question.paragraph in cued:
        problem = _cue_problem(context, _answer_span(context, question))
        if problem:
            return problem
    typed = answer_type(question.question, context, starts[0], starts[0] + len(core), entities, known)
    if typed.type == "other":
        return f"answer type cannot be told confidently: {typed.reason}"
    form = answer_form(core)
    if typed.type == "date" and date_problem(core):
        return f"answer is a date of a form no alternative is made for: {date_problem(core)}"
    if typed.type in NAMED_TYPES - BELIEVABLE_NAMES:
        return f"no believable alternative is made for an answer of type {typed.type}"
    if _FORM_OF_TYPE[typed.type] != form:
        return f"an answer of type {typed.type} that is not a plain {_FORM_OF_TYPE[typed.type]}"
    problem = _context_problem(question.question, context, starts[0], starts[0] + len(core), typed.type)
    if problem:
        return problem
    return _Eligible(question, aliases, core, starts[0], form, typed.type, _answer_span(context, question))


def _answer_span(context: str, question: Question) -> tuple[int, int]:
    """The sentences of ``context`` from the first gold answer's to the last one's."""
    first = min(start for _, start in question.answers)
    last = max(start + len(text) for text, start in question.answers)
    return sentence_at(context, first)[0], sentence_at(context, last - 1)[1]
