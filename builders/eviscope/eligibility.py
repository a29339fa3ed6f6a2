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
from eviscope.suites.eviscope.squad_source import DEV, Question, Squad

REJECTIONS: dict[str, str] = {
    "empty_answer": "answer is empty after normalization",
    "no_shared_core": "aliases do not share one core answer",
    "not_typed": "a source only eviscope-xl reads, and its article has fewer than two paragraphs or no "
    "question whose core has a plain form stated once, so spaCy does not type it",
    "core_not_stated_once": "core answer is not stated exactly once",
    "type_not_confident": "answer type cannot be told confidently: {0}",
    "date_form_not_altered": "answer is a date of a form no alternative is made for: {0}",
    "name_type_not_believable": "no believable alternative is made for an answer of type {0}",
    "not_plain_form": "an answer of type {0} that is not a plain {1}",
    "acronym_question": "the question asks what an acronym stands for",
    "beside_acronym_or_appositive": "an acronym, parenthesis or appositive is next to the answer",
    "part_of_longer_name": "the answer is part of a longer name",
    "abbreviation_period": "the answer ends in an abbreviation's period",
    "end_of_range": "the answer is one end of a range, score or list of numbers",
    "part_of_longer_number": "the answer is part of a longer number",
    "beside_other_units": "the answer stands beside its value in other units",
    "restated_in_parentheses": "the answer restates in parentheses a figure of its sentence",
    "lists_what_it_counts": "the sentence lists what the number counts",
    "number_tied_to_another": "the sentence ties the number to another by arithmetic or a relative date",
    "beside_yearly_event": "the year stands beside a numbered yearly event that dates it",
    "duration_spanned_by_years": "the sentence gives the years that the duration spans",
    "may_list_what_it_counts": "the sentence or the next may list what the number counts",
    "all_but_one_or_two": "the answer is all but one or two of a stated total, whose exceptions the passage may name",
    "qualified_city": "the city is qualified by its region or placed relative to another place",
    "cue_in_answer_sentence": "the answer's sentence holds a conflict cue",
    "points_back_to_dropped_cue": "a sentence after a dropped cue sentence points back to it",
    "names_from_dropped_cue": "a kept sentence names what only a dropped cue sentence introduced",
    "end_of_date_range": "the answer is one end of a range of dates",
    "part_of_longer_date": "the answer is part of a longer date or number",
    "part_of_event_name": "the answer is part of the name of an event it dates",
    "date_tied_to_another": "the sentence ties the date to another by arithmetic or a relative date",
    "dated_otherwise": "the sentence also dates the answer otherwise (a war, a duration, a season of play)",
    "season_or_holiday": "the sentence names a season or holiday that the day or month must fall in",
    "no_same_type_alternative": "no same-type alternative for an answer of type {0}",
    "no_alternative_passes_lints": "no alternative passes the six lints",
    "no_related_passage": "no same-article passage without a gold alias that passes the leak check",
    "unbelievable": "no alternative is believable against the article: {0}",
}
"""Why a question is not a base question, by id: the prose the build report counts it under
(``rejected``), ``{0}`` and ``{1}`` standing for a :class:`Rejection`'s details."""


@dataclass(frozen=True)
class Rejection:
    """A :data:`REJECTIONS` id and its details (a type, a rule), which the prose names.

    >>> str(Rejection("not_plain_form", "year", "year"))
    'an answer of type year that is not a plain year'
    """

    reason: str
    details: tuple[str, ...] = ()

    def __init__(self, reason: str, *details: str) -> None:
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "details", details)

    def __str__(self) -> str:
        return REJECTIONS[self.reason].format(*self.details)


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
    """Why the sentence around the answer would not read right with another answer in its place (a
    :data:`REJECTIONS` id).

    >>> _context_problem("How many finalists?", "The two finalists were Sun Life and Levi's.", 4, 7, "quantity")
    'lists_what_it_counts'
    >>> REJECTIONS[_context_problem("How many states?", "It passed in 1989 by 11 of the then 12 states.", 21, 23, "quantity")]
    'the answer is all but one or two of a stated total, whose exceptions the passage may name'
    >>> _context_problem("How many MVPs?", "It featured 39 of the 43 previous MVPs.", 12, 14, "quantity") is None
    True
    >>> _context_problem("When?", "It last hosted in 1985 (Super Bowl XIX).", 18, 22, "year")
    'beside_yearly_event'
    """
    before, after = context[:start], context[end:]
    if "stand for" in question.lower():
        return "acronym_question"
    if kind == "date":
        return _date_context_problem(context, start, end)
    if kind in NAMED_TYPES:
        if _APPOSITIVE.search(after) or re.search(r"\(\s*$", before):
            return "beside_acronym_or_appositive"
        if re.search(r"[A-Z][\w’'-]*\s$", before[-30:]) and not re.search(
            r"(?:^|[.!?]\s+)[A-Z][\w’'-]*\s$", before
        ):
            return "part_of_longer_name"
        if re.match(r"^\s+(?!and\b|or\b|of\b)[A-Z]", after) and not re.match(r"^\s*[.!?]", after):
            return "part_of_longer_name"
        if re.match(r"^\.\s+[a-z]", after):
            return "abbreviation_period"
    elif _RANGE_BEFORE.search(before[-12:]) or _RANGE_AFTER.search(after[:12]):
        return "end_of_range"
    elif re.match(r"^[.,]\d", after) or re.search(r"\d[.,]$", before):
        return "part_of_longer_number"
    elif re.match(r"^[^;()]{0,30}\(\s*(?:or |about |c\. |approximately )*[$£€]?\d", after) or re.search(
        r"\d[^;()]{0,30}\(\s*$", before[-40:]
    ):
        return "beside_other_units"
    elif re.search(r"\(\s*$", before):
        return "restated_in_parentheses"
    elif re.match(r"^[^.;]*:", after):
        return "lists_what_it_counts"
    if kind in {"year", "quantity"}:
        s, e = sentence_at(context, start)
        if _RELATIVE.search(context[s:e].lower()) or (kind == "year" and _DATED.search(context[s:e])):
            return "number_tied_to_another"
        if kind == "year" and (
            _EDITION_BEFORE.search(context[s:start]) or _EDITION_AFTER.match(context[end:e])
        ):
            return "beside_yearly_event"
        spans_years = len(re.findall(r"\b1\d{3}\b|\b20\d{2}\b", context[s:e])) >= 2
        if kind == "quantity" and spans_years and _DURATION.match(context[end:e]):
            return "duration_spanned_by_years"
        small = kind == "quantity" and number_value(context[start:end]) <= 20
        if small and (re.search(r"[:,(;–—]", context[end:e]) or _KINDS.match(context[end:e])):
            return "may_list_what_it_counts"
        if small and _NAMED_LIST.search(context[end:e]):
            return "lists_what_it_counts"
        total = _PART_OF.match(context[end:e])
        if (
            kind == "quantity"
            and total
            and 0 < number_value(total["total"]) - number_value(context[start:end]) <= 2
        ):
            return "all_but_one_or_two"
    if kind == "city":
        s, e = sentence_at(context, start)
        if re.match(r"^, [A-Z]", after) or _NEAR.search(context[s:e]):
            return "qualified_city"
    return None


def _cue_problem(context: str, span: tuple[int, int]) -> str | None:
    """Why (a :data:`REJECTIONS` id) the support less its cue sentences
    (:func:`~eviscope.builders.eviscope.conflict_lints.without_cue_sentences`) cannot be the base of the
    conflict passage, which must still read as a whole: the answer's sentence holds a cue; a kept
    sentence right after a dropped one points back to it (:data:`_POINTS_BACK`); or a kept sentence
    names what only a dropped one introduced ("King Malcolm III ..." dropped, "Malcolm submitted" kept).

    >>> text = "It opened in 1932. However, tolls were disputed. Tolls ended."
    >>> _cue_problem(text, (0, 18)) is None, _cue_problem(text, (19, 47))
    (True, 'cue_in_answer_sentence')
    >>> _cue_problem("It opened in 1932. However, tolls were disputed. In 1940, they ended.", (0, 18))
    'points_back_to_dropped_cue'
    >>> _cue_problem("It opened in 1932. However, Smith disputed tolls. Smith left.", (0, 18))
    'names_from_dropped_cue'
    """
    dropped = cue_sentence_spans(context)
    if any(s < span[1] and span[0] < e for s, e in dropped):
        return "cue_in_answer_sentence"
    return _incoherent_without_cues(context)


@lru_cache(maxsize=1024)
def _incoherent_without_cues(context: str) -> str | None:
    """Why ``context`` less its cue sentences would not read as a whole (see :func:`_cue_problem`)."""
    dropped = cue_sentence_spans(context)
    spans = sentence_spans(context)
    for (s, e), (next_start, next_end) in pairwise(spans):
        kept_after_dropped = (s, e) in dropped and (next_start, next_end) not in dropped
        if kept_after_dropped and _POINTS_BACK.match(context[next_start:next_end]):
            return "points_back_to_dropped_cue"
    for s, e in dropped:
        before = " ".join(context[i:j] for i, j in spans if j <= s and (i, j) not in dropped)
        after = " ".join(context[i:j] for i, j in spans if i >= e and (i, j) not in dropped)
        for name in {m.group().removesuffix("’s").removesuffix("'s") for m in _NAME.finditer(context[s:e])}:
            if _occurrences(after, name) and not _occurrences(before, name):
                return "names_from_dropped_cue"
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
    """Why another date could not stand in the sentence of the date answer at ``context[start:end]`` (a
    :data:`REJECTIONS` id).

    Relative words ("the next morning", "prior to the game") are looked for in the sentences before and
    after too, seasons and feasts in the next one.

    >>> text = "It ran from 23 November 1963 until 6 December 1989. He died on 7 January 1943, aged 86."
    >>> _date_context_problem(text, 12, 28), _date_context_problem(text, 63, 77)
    ('end_of_date_range', 'date_tied_to_another')
    """
    before, after = context[:start], context[end:]
    if _DATE_RANGE_BEFORE.search(before[-14:]) or _DATE_RANGE_AFTER.match(after[:14]):
        return "end_of_date_range"
    if re.match(r"^(?:[.,:/]\d|-\w)", after) or re.search(r"\d[.,:/-]?$", before):
        return "part_of_longer_date"
    if re.search(r"[A-Z][\w’'-]* of $", before):
        return "part_of_event_name"
    s, e = sentence_at(context, start)
    rest = context[s:start] + " " + context[end:e]
    spans = sentence_spans(context)
    following = next((context[a:b] for a, b in spans if a >= e), "")
    preceding = next((context[a:b] for a, b in reversed(spans) if b <= s), "")
    if _RELATIVE.search(rest.lower()) or _DATE_RELATIVE.search(f"{preceding} {rest} {following}".lower()):
        return "date_tied_to_another"
    if _DATED.search(rest):
        return "dated_otherwise"
    answer = parse_date(context[start:end])
    fine = answer is not None and answer.kind in {"day", "month", "day of month", "month name"}
    if fine and _SEASON.search(f"{rest} {following}"):
        return "season_or_holiday"
    return None


DRAWABLE_ARTICLE = 2
"""Paragraphs an article needs for a quartet of ``eviscope-xl``: the support and a related passage, whose
copy with a question-irrelevant edit its ``insufficient`` row shows beside it
(:mod:`~eviscope.builders.eviscope.near_duplicates`). (It was three while that row showed two other
same-article passages; at three, TyDi QA, whose articles are mostly the one gold passage, gave none.)"""


def typed_paragraphs(squad: Squad) -> frozenset[int] | None:
    """The paragraphs worth typing with spaCy (``None``: every one, as for SQuAD dev, which every config
    reads). A source that only ``eviscope-xl`` draws from needs the articles of at least
    :data:`DRAWABLE_ARTICLE` paragraphs that hold a question whose core has a plain form (year, number,
    date, name) and is stated once in its paragraph, the checks that need no entities; every other
    question of the source is rejected whatever its entities (its rejection is counted as untyped)."""
    if squad.name == DEV.name:
        return None
    size = Counter(paragraph.title for paragraph in squad.paragraphs)
    forms = set(_FORM_OF_TYPE.values())
    titles = set()
    for question in squad.questions:
        paragraph = squad.paragraphs[question.paragraph]
        core = min(_aliases(question), key=lambda a: (len(tokens(a)), len(a)))
        if (
            size[paragraph.title] >= DRAWABLE_ARTICLE
            and answer_form(core) in forms
            and len(_occurrences(paragraph.context, core)) == 1
        ):
            titles.add(paragraph.title)
    return frozenset(i for i, paragraph in enumerate(squad.paragraphs) if paragraph.title in titles)


def _cheap_checks(
    squad: Squad, question: Question, cued: set[int], entities: list[Entity], known: dict[str, Counter[str]]
) -> _Eligible | Rejection:
    """The question's core, its answer type and its span, or why it cannot be a base question."""
    context = squad.paragraphs[question.paragraph].context
    aliases = _aliases(question)
    core = min(aliases, key=lambda a: (len(tokens(a)), len(a)))
    if not tokens(core):
        return Rejection("empty_answer")
    if not all(contains(alias, core) for alias in aliases):
        return Rejection("no_shared_core")
    starts = _occurrences(context, core)
    if len(starts) != 1:
        return Rejection("core_not_stated_once")
    if question.paragraph in cued:
        problem = _cue_problem(context, _answer_span(context, question))
        if problem:
            return Rejection(problem)
    typed = answer_type(question.question, context, starts[0], starts[0] + len(core), entities, known)
    if typed.type == "other":
        return Rejection("type_not_confident", typed.reason)
    form = answer_form(core)
    if typed.type == "date" and date_problem(core):
        return Rejection("date_form_not_altered", date_problem(core))
    if typed.type in NAMED_TYPES - BELIEVABLE_NAMES:
        return Rejection("name_type_not_believable", typed.type)
    if _FORM_OF_TYPE[typed.type] != form:
        return Rejection("not_plain_form", typed.type, _FORM_OF_TYPE[typed.type])
    problem = _context_problem(question.question, context, starts[0], starts[0] + len(core), typed.type)
    if problem:
        return Rejection(problem)
    return _Eligible(question, aliases, core, starts[0], form, typed.type, _answer_span(context, question))


def _answer_span(context: str, question: Question) -> tuple[int, int]:
    """The sentences of ``context`` from the first gold answer's to the last one's."""
    first = min(start for _, start in question.answers)
    last = max(start + len(text) for text, start in question.answers)
    return sentence_at(context, first)[0], sentence_at(context, last - 1)[1]
