"""The EviScope builder: SQuAD v1.1 questions to quartets of evidence variants (contract §2).

One pass over SQuAD finds every *eligible* base question; each config then draws its quartets from
them with the same seed:

1. **Eligible.** The shortest gold alias (the *core*) has a semantic type that can be told
   confidently (:mod:`~eviscope.builders.eviscope.answer_types`: spaCy entities confirmed by the question)
   and is a plain year, number or name, or a date of a form :mod:`~eviscope.builders.eviscope.date_forms`
   alters; every alias contains the core; the core occurs exactly
   once in the paragraph, on word boundaries; the sentence around it would still read right with
   another answer (:func:`_context_problem`); no conflict cue stands in the answer's sentences, and
   where the paragraph holds one elsewhere, the paragraph still reads as a whole without the
   sentences that hold one (:func:`_cue_problem`); a believable same-type alternative exists
   (:func:`_alternatives`) and the repaired conflict passage passes all six lints; and a *related*
   passage exists: the paragraph of the same article that BM25 ranks highest for the question among
   those that hold no gold alias and pass the leak check (:mod:`~eviscope.suites.eviscope.leaks`).
   Its alternative must also be believable against the whole article
   (:mod:`~eviscope.builders.eviscope.believability`): where the first alternative that passes the
   lints is not, the next that passes both is taken, and a question with none is drawn only by the
   legacy construction (``v1``).
2. **Selected.** The eligible questions are ordered by ``sha256(f"{seed}:{question id}")`` and taken
   in that order while their article has fewer than ``per_article_cap`` quartets, until ``n_quartets``
   (with ``first_release``, as in ``v1`` and ``v1.1``, only what the first release's construction
   drew: no date answers and no conflict passage that drops cue sentences), passing over a question
   whose paragraph and gold answer, or whose question (:func:`question_key`), a drawn one already has
   (:data:`SKIPPED`).
3. **Variants** (:func:`quartet_rows`). The paper's layout (``v1``, ``v1.1``): *sufficient*: the
   support paragraph. *noisy*: the support and two paragraphs of other articles drawn with a
   per-question seed, each holding no gold alias (ranges split, number words read). *insufficient*:
   the same two paragraphs and the related passage. *conflicting*: the support and the conflict
   passage. The balanced layout (``xl``) shows three documents, two of the question's article, in
   every row but *sufficient*, so that neither the number of documents nor of same-article ones
   tells the variants apart (:mod:`eviscope.suites.eviscope.shortcuts`); its conflict passage is a
   window of whole sentences around the edited one (:func:`conflict_window`), a drawn gap shorter
   than the support, and its second same-article passage (the first sentences of a related
   paragraph) is about as much shorter, so that neither lengths nor length gaps tell them apart.

Documents get ``doc-<first 8 hex of sha256(text)>`` ids, so the same text has the same id wherever
it appears and an id says nothing of a document's role; each row's documents are shuffled with a
seed derived from the row id. A repaired conflict replaces the core with a believable alternative
of the same type (:func:`_alternatives`), in the support paragraph or, where the paragraph holds a
conflict cue outside the answer's sentences, in the paragraph less its whole sentences that hold one
(:func:`~eviscope.builders.eviscope.conflict_lints.without_cue_sentences`), so that constraint 6 holds; the
alternative is still checked against every number of the whole paragraph.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import pairwise

import bm25s

from eviscope.builders.eviscope.answer_forms import (
    NUMBER_WORDS,
    answer_form,
    number_value,
    substitute_number,
    substitute_year,
)
from eviscope.builders.eviscope.answer_types import (
    Entity,
    answer_type,
    article_labels,
    paragraph_entities,
)
from eviscope.builders.eviscope.believability import Answer, Believability, shared_believability
from eviscope.builders.eviscope.conflict_edits import legacy_conflict, repaired_conflict
from eviscope.builders.eviscope.conflict_lints import (
    ConflictCase,
    LintResult,
    conflict_cues_in,
    cue_sentence_spans,
    run_lints,
    substituted_phrase,
    without_cue_sentences,
)
from eviscope.builders.eviscope.date_forms import HOLIDAYS, date_alternatives, date_problem, parse_date
from eviscope.builders.eviscope.surface_types import TITLES, same_type
from eviscope.core.normalize import STOPWORDS, contains, norm, tokens
from eviscope.core.sentences import sentence_at, sentence_spans
from eviscope.suites.eviscope.leaks import NOT_CONTENT, holds_alias, leak
from eviscope.suites.eviscope.rows import EXPECTED_ACTION, VARIANTS, row_id
from eviscope.suites.eviscope.squad_source import Question, Squad


@dataclass(frozen=True)
class QuartetParams:
    """How many quartets a config draws, and how many at most from one article."""

    n_quartets: int
    per_article_cap: int
    first_release: bool = False
    """Draw only what the first release's construction drew, so that ``v1`` and ``v1.1`` keep their 40
    quartets: no answer of type ``date`` and no conflict passage that drops cue sentences."""
    balanced: bool = False
    """Show every variant but ``sufficient`` as three documents, two of the question's article and one
    of another (:func:`quartet_rows`), so that no count tells the variants apart; each quartet also
    needs two same-article passages that pass the leak check."""


@dataclass(frozen=True)
class Candidate:
    """An eligible base question with everything its quartet needs from its own article."""

    question: Question
    title: str
    aliases: tuple[str, ...]
    type: str
    """The answer's semantic type (:mod:`eviscope.builders.eviscope.question_types`)."""
    support_span: tuple[int, int]
    related: int
    """Paragraph index of the related (insufficient) passage."""
    balanced_related: tuple[tuple[int, int], tuple[int, int]] | None
    """The two same-article passages of a balanced config, each a paragraph of the :data:`RELATED_POOL`
    best related ones and the end of its first sentences shown: the first shown in ``insufficient``
    rows, the second in ``noisy`` and ``insufficient`` rows, chosen by :func:`_balanced_pair` so that
    two same-article passages stand to each other in length as the support and its conflict window do
    (``None``: the article has fewer than two, or the conflict passage has no window)."""
    conflict_text: str
    conflict_answer: str
    drops_cue_sentences: bool
    """The conflict passage is made on the support less its sentences that hold a conflict cue."""
    window: tuple[str, str] | None = None
    """A balanced config's conflict passage and the same window of the support (:func:`conflict_window`),
    cut to a length gap drawn as the other rows' gaps are (:func:`gap_targets`); ``None``: none passes."""
    unbelievable: str | None = None
    """The rule of :data:`~eviscope.builders.eviscope.believability.RULES` that rejects the alternative
    the six lints alone would take (the first that passes them), or ``None``."""
    believable: bool = True
    """An alternative passes the six lints and every rule of believability against the article
    (:attr:`conflict_answer` is it); else the question is drawn only by the legacy construction
    (``v1``), whose conflict passage is not this one."""


@dataclass(frozen=True)
class Quartet:
    """A selected base question, its id, and both of its conflict passages."""

    quartet_id: str
    candidate: Candidate
    distractors: tuple[int, int]
    legacy_text: str
    legacy_answer: str
    window: tuple[str, str] | None = None
    """A balanced config's conflict passage, a window of whole sentences of the repaired one around the
    edited sentence, and the same window of the support, which the lints read it against
    (:func:`conflict_window`); ``None``: the repaired passage is shown whole."""


def doc_id(text: str) -> str:
    """The opaque, role-blind id of a document text.

    >>> doc_id("Some passage.") == doc_id("Some passage.") != doc_id("Another passage.")
    True
    """
    return "doc-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


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
_NUMBER_IN_TEXT = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.,])\d+(?:\.\d+)?")


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
    """Why the support less its cue sentences (:func:`without_cue_sentences`) cannot be the base of
    the conflict passage, which must still read as a whole: the answer's sentence holds a cue; a kept
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


def find_candidates(
    squad: Squad, seed: int, progress: Callable[[Iterable], Iterable] = iter
) -> tuple[list[Candidate], Counter[str], list[list[Entity]], Counter[str]]:
    """Every eligible base question of ``squad``, in source order, why the others were not, the
    paragraphs' named entities, and how many same-article passages the leak check passed over (by
    reason id)."""
    rejected: Counter[str] = Counter()
    eligible: list[_Eligible] = []
    entities = paragraph_entities(squad, progress)
    known = article_labels(squad, entities)
    cued = {i for i, p in enumerate(squad.paragraphs) if conflict_cues_in(p.context)}
    for question in progress(squad.questions):
        title = squad.paragraphs[question.paragraph].title
        checked = _cheap_checks(squad, question, cued, entities[question.paragraph], known[title])
        if isinstance(checked, str):
            rejected[checked] += 1
        else:
            eligible.append(checked)

    names = _NamePool(squad, entities)
    retriever = _RelatedPassages(squad)
    believability = shared_believability(squad, entities)

    candidates: list[Candidate] = []
    for item in eligible:
        made = _make_candidate(squad, item, seed, names, retriever, believability)
        if isinstance(made, str):
            rejected[made] += 1
        else:
            candidates.append(made)
            if not made.believable:
                rejected[f"no alternative is believable against the article: {made.unbelievable}"] += 1
    return candidates, rejected, entities, retriever.rejected


class _NamePool:
    """Person names by the role word that introduces them in each article ("quarterback Cam Newton")."""

    def __init__(self, squad: Squad, entities: list[list[Entity]]) -> None:
        self.roles: dict[str, dict[str, set[str]]] = {}
        for paragraph, ents in zip(squad.paragraphs, entities, strict=True):
            for start, end, label in ents:
                role = role_before(paragraph.context, start)
                name = paragraph.context[start:end]
                if (
                    label == "PERSON"
                    and role
                    and answer_form(name) == "name"
                    and not name.endswith(("'s", "’s"))
                ):
                    self.roles.setdefault(role, {}).setdefault(paragraph.title, set()).add(name)

    def options(self, title: str, kind: str, role: str | None) -> list[str]:
        """Believable alternatives for a person of article ``title`` that ``role`` introduces.

        A person that a role word introduces ("quarterback Cam Newton") is replaced by a person the
        same role word introduces in the same article. A person with no role word, a title ("king")
        or a kinship word ("his successor") has none (read: "Mark Twain", "Milton Friedman" and
        "Ögedei Khan" in unrelated roles, "the Scots king Louis XIV", were not believable).
        """
        if kind != "person" or not role or role in TITLES or role in _KIN_ROLES:
            return []
        return sorted(self.roles.get(role, {}).get(title, set()))


_KIN_ROLES = frozenset(
    [
        "successor",
        "predecessor",
        "son",
        "daughter",
        "father",
        "mother",
        "wife",
        "husband",
        "brother",
        "sister",
        "nephew",
        "niece",
        "uncle",
        "aunt",
        "cousin",
        "grandson",
        "granddaughter",
        "grandfather",
        "grandmother",
        "friend",
        "rival",
        "partner",
        "descendant",
        "ancestor",
        "heir",
        "widow",
    ]
)
"""Words before a name that say how a person relates to another, not what the person does."""
_ROLE = re.compile(r"(?<![\w-])([a-z][a-z-]{2,})\s+$")
_NOT_ROLES = STOPWORDS | {
    "from",
    "including",
    "include",
    "includes",
    "named",
    "called",
}
"""Words before a name that never name a role: the stopwords (``by`` and ``with`` among them) and these."""


def role_before(text: str, start: int) -> str | None:
    """The lower-case word just before ``start`` that may name a role ("composer", "quarterback").

    >>> role_before("minimalist composer Philip Glass", 20), role_before("drawings by Andrea Palladio", 12)
    ('composer', None)
    """
    match = _ROLE.search(text[max(0, start - 40) : start])
    return match.group(1) if match and match.group(1) not in _NOT_ROLES else None


_WORD_NUMBERS = re.compile(r"\b(?:" + "|".join(NUMBER_WORDS) + r")\b", re.IGNORECASE)


def _numbers_in(sentence: str) -> list[float]:
    """Every number of ``sentence``, in digits or in words ("two tumen (20,000 soldiers)": 2 and 20,000)."""
    digits = [float(m.group().replace(",", "")) for m in _NUMBER_IN_TEXT.finditer(sentence)]
    return digits + [float(number_value(m.group())) for m in _WORD_NUMBERS.finditer(sentence)]


def _keeps_order(old: str, new: str, others: list[float]) -> bool:
    """``new`` stands in the same order (less, equal, greater) as ``old`` to every other number."""
    a, b = number_value(old), number_value(new)
    return all((a > x) == (b > x) and (a < x) == (b < x) for x in others)


def _alternatives(
    item: _Eligible, context: str, title: str, rng: random.Random, names: _NamePool
) -> list[str]:
    """Same-type alternatives to the core, most believable first, that the support does not state.

    A year stays within ten years, no later than the passage's latest year, in the same order to every
    year of the passage; a date keeps its form within the window of its kind, in the same order to
    every date and year of the passage (:func:`~eviscope.builders.eviscope.date_forms.date_alternatives`),
    keeping any part of it the question names and adding none; a number keeps its form, roundness and order to every other number of its
    sentence (a part stays below its total). A name comes from :meth:`_NamePool.options`, with a
    full name for a full name, never sharing a word with a gold alias or the question, never of
    the other gender by the US census given-name list.
    """
    asked = set(tokens(item.question.question)) - _STOP

    def usable(option: str) -> bool:
        words = set(tokens(option)) - _STOP
        return (
            not contains(context, option)
            and not words & asked
            and not any(
                contains(option, a) or contains(a, option) or words & set(tokens(a)) for a in item.aliases
            )
            and not _other_gender(item.core, option)
        )

    if item.type == "date":
        answer = parse_date(item.core)
        if answer is None:
            return []
        kept = set(tokens(item.core)) & asked
        dates = [
            o.text
            for o in date_alternatives(answer, context, item.core_start)
            if not contains(context, o.text)
            and not any(contains(o.text, a) or contains(a, o.text) for a in item.aliases)
            and kept <= set(tokens(o.text))
            and not (set(tokens(o.text)) - set(tokens(item.core))) & asked
        ]
        rng.shuffle(dates)
        return dates
    if item.type in {"year", "quantity"}:
        s, e = sentence_at(context, item.core_start)
        if item.type == "year":
            # Years keep their order to every year of the passage and stay within its time span.
            s, e = 0, len(context)
        rest = context[s : item.core_start] + " " + context[item.core_start + len(item.core) : e]
        others = [x for x in _numbers_in(rest) if item.type == "quantity" or 1000 <= x <= 2100]
        make = substitute_year if item.type == "year" else substitute_number
        options = sorted({make(item.core, rng) for _ in range(16)})
        options = [o for o in options if usable(o) and _keeps_order(item.core, o, others)]
        if item.type == "year":
            latest = max([int(item.core), *(x for x in others if x == int(x))])
            options = [o for o in options if int(o) <= latest]
            if re.match(r"^[^.;]{0,30}\b[Cc]ensus\b", context[item.core_start + len(item.core) :]):
                options = [o for o in options if int(o) % 10 == int(item.core) % 10]  # censuses are decennial
        if "%" in item.core or "percent" in item.core:
            options = [o for o in options if number_value(o) <= 100]
        rng.shuffle(options)
        return options
    words = len(item.core.split())
    titled = _titled(item.core)
    fitting = [
        o
        for o in names.options(title, item.type, role_before(context, item.core_start))
        if usable(o)
        and (len(o.split()) >= 2) == (words >= 2)
        and _titled(o) == titled
        and (" and " in o or " & " in o) == (" and " in item.core or " & " in item.core)
    ]
    top, rest = fitting[:6], fitting[6:]
    rng.shuffle(top)
    return top + rest


def _titled(name: str) -> bool:
    """The name starts with a title or rank ("Queen Victoria", "Pope Leo X", "Saint Paul")."""
    return name.split()[0].lower().rstrip(".") in TITLES


def _other_gender(old: str, new: str) -> bool:
    """Both names start with a given name of the US census list, one mostly female, the other mostly male."""
    from probablepeople.gender import gender_names

    a, b = (gender_names.get(name.split()[0].lower()) for name in (old, new))
    return a is not None and b is not None and abs(a - b) > 0.8


_STOP = frozenset({"of", "and", "de", "la", "le", "von", "van", "der", "du", "st", "saint", "new", "united"})


def _make_candidate(
    squad: Squad,
    item: _Eligible,
    seed: int,
    names: _NamePool,
    retriever: _RelatedPassages,
    believability: Believability,
) -> Candidate | str:
    paragraph = squad.paragraphs[item.question.paragraph]
    rng = random.Random(f"{seed}:{item.question.id}:conflict")
    options = _alternatives(item, paragraph.context, paragraph.title, rng, names)
    if not options:
        return f"no same-type alternative for an answer of type {item.type}"
    span_text = paragraph.context[slice(*item.support_span)]
    base = without_cue_sentences(paragraph.context)
    base_start = _occurrences(base, item.core)[0] if base != paragraph.context else item.core_start

    def passage(alternative: str) -> tuple[str, str] | None:
        """The conflict passage and alternative, where they pass the six lints."""
        if re.search(r"\b(?:a|A)n? $", paragraph.context[: item.core_start]) and (
            paragraph.context[item.core_start - 2 : item.core_start - 1] == "n"
        ) != (alternative[:1].lower() in "aeiou"):
            return None
        if item.core.startswith("The ") and not alternative.lower().startswith("the "):
            alternative = "The " + alternative
        conflict_text = repaired_conflict(base, item.core, base_start, alternative)
        case = ConflictCase(
            item.question.question, item.aliases, paragraph.context, span_text, conflict_text, alternative
        )
        return (conflict_text, alternative) if all(r.ok for r in run_lints(case).values()) else None

    made = next(filter(None, map(passage, options[:12])), None)
    if made is None:
        return "no alternative passes the six lints"
    related = retriever.related(squad, item.question, item.aliases)
    if not related:
        return "no same-article passage without a gold alias that passes the leak check"
    answer = Answer(item.question.paragraph, item.core_start, item.core, item.type, item.question.question)
    unbelievable = believability.problem(answer, made[1])
    believable = made
    if unbelievable:
        fits = (passage(o) for o in options if believability.problem(answer, o) is None)
        believable = next(filter(None, fits), None)
    candidate = Candidate(
        item.question,
        paragraph.title,
        item.aliases,
        item.type,
        item.support_span,
        related[0],
        None,
        *(believable or made),
        base != paragraph.context,
        None,
        unbelievable,
        believable is not None,
    )
    window = conflict_window(squad, candidate, gap_target(seed, item.question.id))
    if window is None:
        return candidate
    gap = _gap(len(paragraph.context), len(window[0]))
    return replace(
        candidate, window=window, balanced_related=_balanced_pair(squad, related, len(paragraph.context), gap)
    )


RELATED_POOL = 8
"""How many related same-article passages (BM25's best that pass the leak check) a balanced config
chooses its two same-article passages from."""


GAP_RANGE = (0.05, 0.35)
"""The length gaps a balanced config draws, uniformly, for its conflict windows (a window is at least
a sentence shorter than its passage, so the range starts well above 0)."""


def gap_target(seed: int, question_id: str) -> float:
    """The length gap drawn for a question's conflict window (:data:`GAP_RANGE`); its second
    same-article passage is then chosen as much shorter than the support as the window is, so that
    neither the gap between two same-article passages nor their lengths tell a variant apart
    (:mod:`eviscope.suites.eviscope.shortcuts`)."""
    return random.Random(f"{seed}:{question_id}:gap").uniform(*GAP_RANGE)


def _gap(a: int, b: int) -> float:
    """The relative length difference of two texts (as the shortcut audit measures it)."""
    return abs(a - b) / max(a, b, 1)


def _balanced_pair(
    squad: Squad, pool: list[int], length: int, gap: float
) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """The related and the second passage, each a paragraph of ``pool`` and the end of the run of its
    first sentences shown (its whole text, or fewer sentences: nothing is left that points back): the
    second nearest ``gap`` shorter than the support (``length``), as the conflict window is; the
    related one, of another paragraph, nearest the support's length, so that it stands to the second
    as the support does."""
    if len(pool) < 2:
        return None
    runs = [(i, end) for i in pool for _, end in sentence_spans(squad.paragraphs[i].context)]
    second = min(runs, key=lambda run: (abs(run[1] - length * (1 - gap)), pool.index(run[0])))
    rest = [run for run in runs if run[0] != second[0]]
    related = min(rest, key=lambda run: (abs(run[1] - length), pool.index(run[0])))
    return related, second


class _RelatedPassages:
    """BM25 (bm25s) over every paragraph, to find a question's most related same-article passages.

    ``rejected`` counts the same-article passages the leak check (:func:`~eviscope.suites.eviscope.leaks.leak`)
    passed over, by reason id."""

    def __init__(self, squad: Squad) -> None:
        corpus = bm25s.tokenize([p.context for p in squad.paragraphs], stopwords="en", show_progress=False)
        self.retriever = bm25s.BM25()
        self.retriever.index(corpus, show_progress=False)
        self.by_article: dict[str, list[int]] = {}
        self.rejected: Counter[str] = Counter()
        for index, paragraph in enumerate(squad.paragraphs):
            self.by_article.setdefault(paragraph.title, []).append(index)

    def related(self, squad: Squad, question: Question, aliases: tuple[str, ...]) -> list[int]:
        """The :data:`RELATED_POOL` highest-ranked other paragraphs of the question's article that hold
        no gold alias and pass the leak check, best first (fewer where the article has fewer)."""
        query = bm25s.tokenize(question.question, stopwords="en", return_ids=False, show_progress=False)
        scores = self.retriever.get_scores(query[0])
        title = squad.paragraphs[question.paragraph].title
        others = [i for i in self.by_article[title] if i != question.paragraph]
        found: list[int] = []
        for index in sorted(others, key=lambda i: (-scores[i], i)):
            text = squad.paragraphs[index].context
            if any(contains(text, a) for a in aliases):
                continue
            why = leak(question.question, aliases, text, same_article=True)
            if why:
                self.rejected[why] += 1
                continue
            found.append(index)
            if len(found) == RELATED_POOL:
                break
        return found


def answer_of(squad: Squad, candidate: Candidate) -> Answer:
    """Where the candidate's core answer stands, for the rules of believability."""
    core = min(candidate.aliases, key=lambda a: (len(tokens(a)), len(a)))
    paragraph = candidate.question.paragraph
    start = _occurrences(squad.paragraphs[paragraph].context, core)[0]
    return Answer(paragraph, start, core, candidate.type, candidate.question.question)


SKIPPED: dict[str, str] = {
    "duplicate_paragraph_answer": (
        "an earlier drawn quartet has the same support paragraph and the same gold answer"
    ),
    "duplicate_question": (
        "an earlier drawn quartet asks the same question (the same content words, once the words "
        "that say what kind of answer it asks for are dropped: '(In) what year did Tesla die?')"
    ),
    "no_conflict_window": (
        "a balanced config shows a window of the conflict passage, and no window of whole sentences "
        "holding the edited sentence reads as a whole and passes the six lints"
    ),
    "no_second_same_article_passage": (
        "a balanced config needs a second same-article passage that passes the leak check, and the "
        "article has none"
    ),
}
"""Why :func:`select` passes over an eligible question, by id."""


def question_key(question: str) -> frozenset[str]:
    """What a question asks about: its content words (:data:`~eviscope.suites.eviscope.leaks.NOT_CONTENT` dropped).

    >>> question_key("In what year did Tesla die?") == question_key("What year did Tesla die?")
    True
    """
    return frozenset(tokens(question)) - NOT_CONTENT


def _core(candidate: Candidate) -> str:
    return norm(min(candidate.aliases, key=lambda a: (len(tokens(a)), len(a))))


def select(
    candidates: list[Candidate], params: QuartetParams, seed: int, skipped: Counter[str] | None = None
) -> list[Candidate]:
    """``params.n_quartets`` candidates drawn with ``seed`` under the per-article cap, in source order.

    Candidates are taken in the order of ``sha256(f"{seed}:{question id}")``, so the draw depends on
    each question alone: a change in who else is eligible swaps only the questions it touches.
    With ``params.first_release`` date answers and conflict passages that drop cue sentences are left out;
    with ``params.balanced`` questions without a second same-article passage. A question that repeats
    a drawn one (its paragraph and gold answer, or :func:`question_key`) is passed over; ``skipped``
    counts what was passed over, by :data:`SKIPPED` id.
    """
    skipped = Counter() if skipped is None else skipped
    if params.first_release:
        candidates = [c for c in candidates if not c.drops_cue_sentences and c.type != "date"]
    if params.balanced:
        skipped["no_conflict_window"] += sum(c.window is None for c in candidates)
        candidates = [c for c in candidates if c.window is not None]
        skipped["no_second_same_article_passage"] += sum(c.balanced_related is None for c in candidates)
        candidates = [c for c in candidates if c.balanced_related is not None]

    def rank(index: int) -> str:
        return hashlib.sha256(f"{seed}:{candidates[index].question.id}".encode()).hexdigest()

    order = sorted(range(len(candidates)), key=rank)
    per_article: Counter[str] = Counter()
    chosen: list[int] = []
    drawn_answers: set[tuple[int, str]] = set()
    drawn_questions: set[frozenset[str]] = set()
    for index in order:
        candidate = candidates[index]
        title = candidate.title
        if per_article[title] < params.per_article_cap:
            answer_key = (candidate.question.paragraph, _core(candidate))
            asked = question_key(candidate.question.question)
            if answer_key in drawn_answers:
                skipped["duplicate_paragraph_answer"] += 1
                continue
            if asked in drawn_questions:
                skipped["duplicate_question"] += 1
                continue
            drawn_answers.add(answer_key)
            drawn_questions.add(asked)
            per_article[title] += 1
            chosen.append(index)
            if len(chosen) == params.n_quartets:
                return [candidates[i] for i in sorted(chosen)]
    raise ValueError(
        f"only {len(chosen)} of {params.n_quartets} quartets can be drawn with at most "
        f"{params.per_article_cap} per article from {len(candidates)} eligible questions"
    )


def make_quartets(
    squad: Squad,
    chosen: list[Candidate],
    seed: int,
    rejected: Counter[str] | None = None,
    balanced: bool = False,
) -> list[Quartet]:
    """Ids, distractors and the legacy conflict passage of each chosen candidate; ``rejected`` counts
    the other-article passages the leak check passed over, by reason id. ``balanced``: each conflict
    passage is its window (:attr:`Candidate.window`)."""
    width = max(2, len(str(len(chosen))))
    quartets = []
    for index, candidate in enumerate(chosen):
        donor = chosen[(index + 1) % len(chosen)].aliases[0]
        support = squad.paragraphs[candidate.question.paragraph].context
        window = candidate.window if balanced else None
        quartets.append(
            Quartet(
                f"q{index + 1:0{width}d}",
                candidate,
                _distractors(squad, candidate, seed, Counter() if rejected is None else rejected),
                legacy_conflict(support, candidate.aliases, donor, index),
                donor,
                window,
            )
        )
    return quartets


def conflict_window(squad: Squad, candidate: Candidate, gap: float) -> tuple[str, str] | None:
    """The run of whole sentences of the repaired conflict passage, holding the edited sentence, whose
    length gap to the support is nearest ``gap`` (never the whole passage), and the same run of the
    support; ``None`` where the passage is one sentence or no window passes the lints.

    A window drops sentences after the edited one freely; it drops sentences before it only where the
    first kept sentence does not point back (:data:`_POINTS_BACK`) and no kept sentence names what only
    a dropped one introduced. It must pass the six lints against the same window of the support.

    >>> from types import SimpleNamespace as NS
    >>> text = "Rome grew. It held 10 forts. Its trade rose in 1210. Ships came often to the port."
    >>> squad = NS(paragraphs=[NS(context=text)])
    >>> case = NS(question=NS(question="When did trade rise?", paragraph=0), aliases=("1210",),
    ...           conflict_text=text.replace("1210", "1204"), conflict_answer="1204",
    ...           support_span=(29, 52), drops_cue_sentences=False)
    >>> conflict_window(squad, case, 0.35)[0]  # "Its trade …" points back: no sentence before it is dropped
    'Rome grew. It held 10 forts. Its trade rose in 1204.'

    """
    text, new = candidate.conflict_text, candidate.conflict_answer
    support = squad.paragraphs[candidate.question.paragraph].context
    base = without_cue_sentences(support) if candidate.drops_cue_sentences else support
    old = substituted_phrase(base, text, new)
    spans = sentence_spans(text)
    at = text.find(new)
    if old is None or len(spans) < 2:
        return None
    edited = next(i for i, (s, e) in enumerate(spans) if s <= at < e)
    options: list[tuple[float, int, int]] = []
    for first in range(edited + 1):
        kept = text[spans[first][0] :]
        dropped = text[: spans[first][0]]
        names = {m.group().removesuffix("’s").removesuffix("'s") for m in _NAME.finditer(" " + dropped)}
        if first and (_POINTS_BACK.match(kept) or any(_occurrences(kept, n) for n in names)):
            continue
        for last in range(edited, len(spans)):
            if (first, last) != (0, len(spans) - 1):
                length = spans[last][1] - spans[first][0]
                options.append((abs(_gap(len(support), length) - gap), first, last))
    for _, first, last in sorted(options):
        start, end = spans[first][0], spans[last][1]
        window = text[start:end]
        original = text[start:at] + old + text[at + len(new) : end]
        case = ConflictCase(
            candidate.question.question,
            candidate.aliases,
            original,
            support[slice(*candidate.support_span)],
            window,
            new,
        )
        if all(r.ok for r in run_lints(case).values()):
            return window, original
    return None


def _distractors(squad: Squad, candidate: Candidate, seed: int, rejected: Counter[str]) -> tuple[int, int]:
    """Two paragraphs of other articles, drawn with a per-question seed, that hold no gold alias, not
    even once ranges are split and number words read (:func:`~eviscope.suites.eviscope.leaks.holds_alias`)."""
    rng = random.Random(f"{seed}:{candidate.question.id}:distractors")
    picked: list[int] = []
    while len(picked) < 2:
        index = rng.randrange(len(squad.paragraphs))
        paragraph = squad.paragraphs[index]
        if (
            paragraph.title != candidate.title
            and index not in picked
            and not any(contains(paragraph.context, a) for a in candidate.aliases)
        ):
            if holds_alias(paragraph.context, candidate.aliases):
                rejected["alias_after_splitting"] += 1
                continue
            picked.append(index)
    return picked[0], picked[1]


def conflict_case(squad: Squad, quartet: Quartet, legacy: bool) -> ConflictCase:
    """The lint input for the quartet's legacy (``v1``) or repaired (``v1.1``) conflict passage."""
    candidate = quartet.candidate
    support = squad.paragraphs[candidate.question.paragraph].context
    window, original = quartet.window or (candidate.conflict_text, support)
    return ConflictCase(
        candidate.question.question,
        candidate.aliases,
        support if legacy else original,
        support[slice(*candidate.support_span)],
        quartet.legacy_text if legacy else window,
        quartet.legacy_answer if legacy else candidate.conflict_answer,
    )


def quartet_rows(
    squad: Squad, quartet: Quartet, legacy: bool, seed: int, balanced: bool = False
) -> list[dict]:
    """The four rows of a quartet, with the legacy or the repaired conflict passage.

    The paper's layout: *sufficient* the support; *noisy* the support and two other-article passages;
    *insufficient* the same two and the related passage; *conflicting* the support and the conflict
    passage. ``balanced`` (``eviscope-xl``): *noisy* the support, a second same-article passage and
    the first other-article passage; *insufficient* a related passage and the same two (both chosen
    near the support's length: :attr:`Candidate.balanced_related`);
    *conflicting* the support, the conflict passage and the same other-article passage. Every row but
    *sufficient* then shows three documents, two of them of the question's article.
    """
    candidate = quartet.candidate
    question = candidate.question
    support = squad.paragraphs[question.paragraph]
    related = squad.paragraphs[candidate.related]
    noise = [squad.paragraphs[i] for i in quartet.distractors]
    case = conflict_case(squad, quartet, legacy)

    def document(title: str, text: str) -> dict[str, str]:
        return {"doc_id": doc_id(text), "title": title, "text": text}

    support_doc = document(support.title, support.context)
    conflict_doc = document(support.title, case.conflict_text)
    noise_docs = [document(p.title, p.context) for p in noise]
    related_doc = document(related.title, related.context)
    if balanced:
        if candidate.balanced_related is None:
            raise ValueError(f"{quartet.quartet_id}: a balanced config needs two same-article passages")
        related, second = (
            document(squad.paragraphs[i].title, squad.paragraphs[i].context[:end])
            for i, end in candidate.balanced_related
        )
        related_doc, second_doc, other_doc = related, second, noise_docs[0]
        documents = {
            "sufficient": [support_doc],
            "noisy": [support_doc, second_doc, other_doc],
            "insufficient": [related_doc, second_doc, other_doc],
            "conflicting": [support_doc, conflict_doc, other_doc],
        }
    else:
        documents = {
            "sufficient": [support_doc],
            "noisy": [support_doc, *noise_docs],
            "insufficient": [*noise_docs, related_doc],
            "conflicting": [support_doc, conflict_doc],
        }
    span = [{"doc_id": support_doc["doc_id"], "text": case.support_span}]
    rows = []
    for variant in VARIANTS:
        rid = row_id(quartet.quartet_id, variant)
        shown = list(documents[variant])
        random.Random(f"{seed}:{rid}").shuffle(shown)
        has_support = variant != "insufficient"
        rows.append(
            {
                "id": rid,
                "quartet_id": quartet.quartet_id,
                "variant": variant,
                "question": question.question,
                "source_id": question.id,
                "title": support.title,
                "documents": shown,
                "answers": list(candidate.aliases),
                "expected_action": EXPECTED_ACTION[variant],
                "answerable": EXPECTED_ACTION[variant] == "answer",
                "supporting_doc_ids": [support_doc["doc_id"]] if has_support else [],
                "conflicting_doc_ids": [conflict_doc["doc_id"]] if variant == "conflicting" else [],
                "support_spans": span if has_support else [],
                "conflict_answer": case.conflict_answer if variant == "conflicting" else "",
            }
        )
    return rows


def check_doc_ids(rows: list[dict]) -> None:
    """Fail when two different texts of one config share a ``doc_id``."""
    seen: dict[str, str] = {}
    for row in rows:
        for document in row["documents"]:
            if seen.setdefault(document["doc_id"], document["text"]) != document["text"]:
                raise ValueError(f"doc_id collision on {document['doc_id']} in row {row['id']}")


def lint_report(squad: Squad, quartets: list[Quartet], legacy: bool) -> list[dict]:
    """Per-row lint results of one config's conflict passages."""
    results: list[dict] = []
    for quartet in quartets:
        case = conflict_case(squad, quartet, legacy)
        lints: dict[str, LintResult] = run_lints(case)
        core = min(case.answers, key=lambda a: (len(tokens(a)), len(a)))
        mismatch = same_type(case.question, core, case.conflict_answer)
        results.append(
            {
                "id": row_id(quartet.quartet_id, "conflicting"),
                "lints": {name: {"ok": r.ok, "reason": r.reason} for name, r in lints.items()},
                "same_type": {"ok": mismatch is None, "reason": mismatch or ""},
            }
        )
    return results
