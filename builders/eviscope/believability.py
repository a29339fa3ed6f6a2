"""Believable against the whole article (contract §2, constraint 2): what a reader of the article rules out.

The six lints (:mod:`~eviscope.builders.eviscope.conflict_lints`) read the support and the conflict
passage; a strict reader reads the rest of the article too, and does not believe an alternative that
the article contradicts. Each rule here has an id, counted in ``build_report.json``, and its prose
(:data:`RULES`), and one declaration (:mod:`~eviscope.builders.eviscope.rules`): the class of failure it
guards, its row of the dataset card, the real items a strict read failed that it rejects, and made-up
items of the same class, which the tests run through it.

*Tied to the answer* are every sentence of the support paragraph, every sentence of the article
that shares two content words with the answer's sentence ("the governments merged to create the
Consolidated City" for "the city government consolidated"), or three with another sentence of the
passage, and every sentence that names one of the names of the answer's sentence or of the
question: a capitalised word that the article also writes capitalised inside a sentence ("Luther", "Kublai", "Tesla"). A name in a fifth
of the article's sentences or more is the article's topic ("Harvard", "Warsaw"); it ties sentences
only where it names a person (spaCy's entities), or where the answer's sentence and the question
name nothing else ("the series' revival"; where they name nothing at all, "the plugs-out test", the
article's topic names tie). In a biography the subject is named in most sentences, so
the alternative keeps its place in the whole life; in a survey article only the sentences on the
same people, places and works count.

A year is the span of its days and a date the days it covers (:mod:`~eviscope.builders.eviscope.date_forms`).
An alternative keeps its *order* to a date when it ends before, starts after, or overlaps the date
just as the answer does; a date the answer overlaps without holding it (another event of the same
year) says nothing of the order, while a period that holds the answer ("the 1880s") must hold the
alternative too.
"""

from __future__ import annotations

import re
from calendar import monthrange
from collections import Counter
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from itertools import combinations
from typing import NamedTuple

from dateutil.parser import parserinfo

from eviscope.builders.eviscope.answer_forms import NUMBER_WORDS, answer_form, number_value
from eviscope.builders.eviscope.answer_types import Entity
from eviscope.builders.eviscope.conflict_lints import compatible_bound
from eviscope.builders.eviscope.date_forms import ORDINAL_WORDS, date_mentions, parse_date
from eviscope.builders.eviscope.rules import DECLARED
from eviscope.core.normalize import QUESTION_WORDS, STOPWORDS, contains, tokens
from eviscope.core.sentences import sentence_spans
from eviscope.suites.eviscope.squad_source import Squad

RULES: dict[str, str] = {rule.name: rule.guards for rule in DECLARED}
"""Every rule of believability against the article: its id and what it rejects (its declaration,
:data:`~eviscope.builders.eviscope.rules.DECLARED`)."""
STRICTER_RULES = frozenset(rule.name for rule in DECLARED if rule.stricter)
"""The rules that the sixth strict read (``eviscope-xl``, seed 8181) and issue 32's asked for. A config
reads them only where it declares so (:class:`~eviscope.builders.eviscope.configs.EviScopeConfig`:
``eviscope-xl`` does), since they would redraw quartets of ``eviscope-v1.1``, whose rows its 40/40 read
settled."""
PAPER_RULES = frozenset(RULES) - STRICTER_RULES
"""The rules that ``eviscope-v1.1`` reads (all but :data:`STRICTER_RULES`)."""
ALL_RULES = frozenset(RULES)

Span = tuple[date, date]

_CAPITALISED = re.compile(r"(?<![\w’'-])[A-Z][\w’'-]*")
_POSSESSIVE = re.compile(r"(?:’s|'s|’|')$")
_OPENING = re.compile(r"^\W*")
_CALENDAR = frozenset(names[-1].lower() for names in (*parserinfo.MONTHS, *parserinfo.WEEKDAYS))
"""Month and weekday names (dateutil's), which name no one."""
_SHORT_RANGE = re.compile(r"(?<![\d,.])(1\d{3}|20\d{2})\s*[–—-]\s*(\d{2})(?!\d|[.,]\d)")
"""A range whose end gives its last two digits only ("1709–13", "1524–25")."""
_ORDINAL_DIGITS = re.compile(r"(?<![\w.,])(\d{1,3})(?:st|nd|rd|th)\b")
_ORDINAL_WORD = re.compile(r"\b(" + "|".join(ORDINAL_WORDS[1:][::-1]) + r")\b", re.IGNORECASE)
_MARKER = re.compile(
    r"(?:^|;\s+)[\"'“‘(]?(?:First(?:ly)?|Second(?:ly)?|Third(?:ly)?|Fourth(?:ly)?|Fifth(?:ly)?|"
    r"Finally|Lastly)\b"
)
"""An enumeration marker opening a sentence or a clause after a semicolon ("First, …", "Lastly, …")."""
_COUNT = re.compile(
    r"(?<![\w.,$£€])(?P<n>\d{1,3}(?:,\d{3})+|\d+|(?i:" + "|".join(NUMBER_WORDS) + r"))"
    r"(?P<after>(?:\s+[a-z][\w-]*){1,2})"
)
"""A number and the one or two lower-case words after it ("12 nuns", "three art museums")."""
_YEARS_SPAN = re.compile(
    r"\b(?:\d+|a|an|" + "|".join(NUMBER_WORDS) + r")[ -](?:years?|decades?)\b(?! old| ago)", re.IGNORECASE
)
"""A span of years ("three years", "a four-year term", "two decades"), not an age or a time before now."""
_NOUN_AFTER = re.compile(r"^\s+((?:[a-z][\w-]*\s+)?[a-z][\w-]*)")
RESTATED_WORDS = 2
"""A sentence that holds the answer (its year, for a date) and shares this many content words with the
answer's sentence restates it ("Following the series revival in 2005")."""
PASSAGE_WORDS = 3
"""A sentence of another paragraph that shares this many content words with a sentence of the passage
tells of the same things ("the new Medieval and Renaissance galleries which opened in 2009" and the
passage's "displayed in the Medieval & Renaissance Galleries"): the answer keeps its order to its dates."""
DATE_GAP_YEARS = 2
"""An alternative year or date stays within twice the answer's gap to the passage's nearest dated event
and this many years more ("Starting in 1894 … Soon after, … March 1895": not 1887)."""
SUM_MINIMUM = 10
"""Counts below this are left out of sums (small numbers add up by chance)."""
SUM_TOLERANCE = 0.01
"""Two sums of the passage's counts within this share of each other tie the counts by arithmetic."""
_STOP_NAMES = frozenset({"von", "van", "de", "der", "la", "le", "du", "st", "jr", "sr"})
"""Particles of a name that name no one alone."""
_NUMBER = re.compile(r"(?<![\w.,$£€])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\d,]*\d)(?!\w)")
NEAR_COUNT = 0.1
"""A count of the same thing within this share of the answer restates it ("over 232 affiliated" and
"affiliation agreements with 235 additional stations"): the alternative must stay as near."""
SMALL_COUNT = 20
"""The largest count that a passage may go on to enumerate."""
_SHARE = re.compile(
    r"(?<![\w.,])(\d+(?:\.\d+)?)\s*(?:%|percent\b|per cent\b)\s+of\s+(?:the\s+|all\s+|its\s+|their\s+)?"
    r"(?:[\w-]+(?:’s|'s)\s+)?([\w-]+)"
)
"""A share of a whole and the word that names the whole, past a possessive ("61% of GDP", "96.26% of
all households", "20.8% of the Earth's atmosphere")."""
SHARE_POINTS = 3.0
"""A share of the same whole within this many points of the answer restates it (61% and 62% of GDP):
no alternative is believable."""
_EQUIVALENT_AFTER = re.compile(
    r"^[^()\[\];.]{0,60}\((?:or|about|some|around|roughly|approximately|nearly|almost|over|just|c\.)?\s*"
    r"[$£€]?(?P<n>\d[\d,.]*)"
)
"""A parenthesis after the number, in its clause, that opens with a figure ("(or 300,794,157 Americans",
"(53 mi)")."""
NARRATIVE_PARAGRAPHS = 3
"""How many of the nearest dated paragraphs on each side of the answer's paragraph tell the narrative."""
_VERB = re.compile(r"\b([a-z]{4,})ed\b")
_AFTER_DOING = re.compile(r"\b(?:after|before|upon|since|while)\s+([a-z]{3,}ing)\b")
"""An action the answer's sentence ties its event to by a gerund ("immediately after returning from the
west"): the same action as a past form ("both divisions returned")."""
_COMMON_VERBS = frozenset({"us", "call", "nam", "bas", "includ", "consider", "locat", "list", "report"})
"""Stems of past forms too common to tell one action ("used", "called", "named", "based")."""
DAYS_APART = 7
"""A day the article dates this near the answer's day tells of the same days."""
_SCALED = re.compile(r"(?<![\w.,])(\d+(?:\.(\d+))?)\s*(million|billion|thousand)\b", re.IGNORECASE)
"""A number at lower precision ("3.7 million")."""
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
_COUNT_SHARE = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)\s*\((\d+(?:\.(\d+))?)\s*%\)")
"""A count and its share of a whole ("245,306 (49.6%) White")."""
_EACH_BEFORE = re.compile(r"\b(?:each|every|per)\b[^,;.()]{0,60}$", re.IGNORECASE)
_REST_AFTER = re.compile(r"^[^.;]{0,80}\b(?:the|all)\s+(?:others|rest|remaining|remainder)\b", re.IGNORECASE)
_PERCENT = re.compile(r"(?<![\w.,])\d+(?:\.\d+)?\s*(?:%|percent\b|per cent\b)")
RESTATED_DIGITS = 3
"""A number restated anywhere in the article has at least this many significant digits ("308", "61.1%",
not "100" or "3600"): round numbers recur by chance."""
SHARES_LISTED = 2
"""A percentage beside this many other percentages of its paragraph is one of a list of shares."""
_DURATION = re.compile(
    r"(?<![\d,.])"
    + _YEARS_SPAN.pattern.replace("decades?", "decades?|century|centuries").replace("|a|an|", "|a|an|one|")
    + r"(?!-old|['’] War)",
    re.IGNORECASE,
)
_MONTHS = re.compile(
    r"(?<![\d,.])\b(?:\d+|" + "|".join(NUMBER_WORDS) + r")[ -]months?\b(?!-old| old| ago)", re.IGNORECASE
)
"""A duration of months ("their 18-month engagement", "for nine months"), not an age."""
LEAST_MONTHS = 6
"""The shortest duration of months that ties two years of a paragraph."""
"""A duration of years ("eleven-year", "for 11 years", "ten years later"), not an age ("13-year-old"), the
Seven Years' War, nor an age of the Earth ("at least 11,000 years")."""
DURATION_SLACK = 1
"""A duration within this many years of the distance between two years ties them ("eleven-year" from July
1977 to 1988)."""
_GROUP_BEFORE = re.compile(
    r"\b(?:all|these|those|each\s+of\s+the|every\s+one\s+of\s+the|all\s+of\s+the|both\s+of\s+the)\s+$",
    re.IGNORECASE,
)
_GROUP_AFTER = re.compile(r"^(?:\s+[a-z][\w-]*)?\s+of\s+(?:these|those|them|us|which)\b", re.IGNORECASE)
"""A count of a group the text has named: "all 32 of these astronauts", "these 12 apostles"."""
_SERIES = re.compile(
    r"(?P<name>(?:[A-Z][\w’'-]*\s+){1,3}?)(?P<n>[IVXLC]{1,8}|\d{1,3})(?![\w’'-])"
    r"|(?<![\w.,])(?P<ord>\d{1,3}(?:st|nd|rd|th))\s+(?P<oname>(?:[A-Z][\w’'-]*\s*){1,3})"
)
"""A numbered event of a series: a name and its number ("Super Bowl XXXVII", "Super Bowl 50"), or an
ordinal and a name ("the 87th Academy Awards")."""
SERIES_REACH = 80
"""The answer dates the numbered event that ends at most this many characters before it in its sentence."""


@dataclass(frozen=True)
class Calendar:
    """An event held on a fixed calendar: a year of it is one of ``period`` from ``since`` to ``until`` that
    leaves ``residue`` (the Summer Olympics in 1964, never 1962), where a sentence names it (``cue``) and
    none of ``not_with``."""

    name: str
    cue: re.Pattern[str]
    period: int
    residue: int
    since: int
    until: int = 9999
    not_with: re.Pattern[str] | None = None

    def holds(self, year: int) -> bool:
        return self.since <= year <= self.until and year % self.period == self.residue


_WINTER_GAMES = re.compile(r"\bWinter\s+(?:Olympics|Olympic\s+Games|Games)\b")
FIXED_CALENDARS: tuple[Calendar, ...] = (
    Calendar(
        "Summer Olympics",
        re.compile(r"\bOlympi(?:c|cs|ad)\b|\bSummer\s+Games\b"),
        4,
        0,
        1896,
        not_with=re.compile(r"\bWinter\b|\bYouth\b|\bParalympic|\bSpecial\s+Olympics"),
    ),
    Calendar("Winter Olympics to 1992", _WINTER_GAMES, 4, 0, 1924, 1992),
    Calendar("Winter Olympics from 1994", _WINTER_GAMES, 4, 2, 1994),
    Calendar(
        "FIFA World Cup",
        re.compile(r"\bWorld\s+Cup\b"),
        4,
        2,
        1930,
        not_with=re.compile(r"\bWomen|\bRugby|\bCricket|\bSki|\bHockey|\bClub\b|\bU-?\d\d|\bBasketball"),
    ),
    Calendar(
        "US presidential election",
        re.compile(
            r"\bpresidential\s+(?:elections?|race|vote|campaign)\b|\bfor\s+president\b", re.IGNORECASE
        ),
        4,
        0,
        1788,
    ),
    Calendar("US census", re.compile(r"\bcensus(?:es)?\b", re.IGNORECASE), 10, 0, 1790),
    Calendar("UK census", re.compile(r"\bcensus(?:es)?\b", re.IGNORECASE), 10, 1, 1801),
)
"""The events of a fixed calendar that a reader knows without the article (``date_fixed_calendar``): one
declaration each."""
_PROPORTION = re.compile(
    r"\b(?P<word>most|(?:an?\s+|the\s+)?(?:[a-z]+\s+)?majority|(?:more|less|fewer)\s+than\s+half|over\s+half"
    r"|half|(?:a\s+)?minority|(?:a|one)[\s-]third|two[\s-]thirds|(?:a|one)[\s-]quarter|three[\s-]quarters)"
    r"\s+of\b",
    re.IGNORECASE,
)
"""A proportion a sentence states of a whole ("most of its metropolitan population", "a clear majority of 3
out of 5")."""
_PROPORTIONS = {"third": 1 / 3, "thirds": 2 / 3, "quarter": 0.25, "quarters": 0.75}
PROPORTION_LEAST = 0.1
"""Two counts of which the less is under this share of the other are no part and whole of a proportion."""
PROPORTION_MARGIN = 0.05
"""Two counts whose ratio the alternative brings this near a stated proportion no longer read as it."""

_CLOSELY = re.compile(
    r"\b(?:immediately|shortly|soon|just|right|directly)\s+(?:after|before|upon|on)\b"
    r"|\b(?:the\s+)?(?:following|next)\s+year\b|\b(?:a|one)\s+year\s+(?:later|after|earlier|before)\b"
    r"|\bthe\s+year\s+(?:after|before)\b",
    re.IGNORECASE,
)
"""Words that tie an event closely to another ("immediately after returning", "the following year")."""
"""A day the article dates this near the answer's day tells of the same days."""


def _stem(word: str) -> str:
    """``word`` less a plural ending ("museums", "series" and "classes" to "museum", "serie", "class")."""
    for ending in ("ies", "es", "s"):
        if word.endswith(ending) and len(word) > len(ending) + 2:
            return word[: -len(ending)] + ("y" if ending == "ies" else "")
    return word


def _year_span(year: int) -> Span:
    return date(year, 1, 1), date(year, 12, 31)


def _order(a: Span, b: Span) -> str:
    return "<" if a[1] < b[0] else ">" if a[0] > b[1] else "="


def _gap_years(a: Span, b: Span) -> float:
    """Years between two spans (0 where they overlap)."""
    return max(0, (b[0] - a[1]).days, (a[0] - b[1]).days) / 365.25


def _restates(answer: Span, other: Span) -> bool:
    """``other`` may date the answer's event: it overlaps the answer and is no longer than a year (a
    decade or "the 13th century" dates nothing so closely)."""
    return _order(answer, other) == "=" and (other[1] - other[0]).days <= 366


def _within(span: Span, outer: Span) -> bool:
    return outer[0] <= span[0] and span[1] <= outer[1]


def _verb_stem(word: str) -> str:
    """``word`` less a verb ending ("returned" and "returning" to "return")."""
    for ending in ("ing", "ed", "es", "s", "e"):
        if word.endswith(ending) and len(word) > len(ending) + 3:
            return word[: -len(ending)]
    return word


@lru_cache(maxsize=32768)
def _closely(text: str) -> bool:
    """``text`` ties an action closely to its date ("immediately after", "the following year")."""
    return _CLOSELY.search(text) is not None


@lru_cache(maxsize=32768)
def _verb_stems(text: str) -> frozenset[str]:
    """The verb stems (:func:`_verb_stem`) of every word of ``text``; a sentence is met once per
    candidate of its article, so its stems are made once."""
    return frozenset(_verb_stem(word) for word in tokens(text))


def _wholes(text: str) -> list[tuple[int, float, str]]:
    """``(offset, share, whole)`` of every share of a whole in ``text`` ("61% of GDP": 61 and "gdp")."""
    return [(m.start(), float(m[1]), _stem(m[2].lower())) for m in _SHARE.finditer(text)]


def keeps_order(old: Span, new: Span, other: Span) -> bool:
    """``new`` stands to ``other`` as ``old`` does (see the module's *order*).

    >>> y = _year_span
    >>> keeps_order(y(1720), y(1715), (date(1709, 1, 1), date(1713, 12, 31)))
    True
    >>> keeps_order(y(1720), y(1710), (date(1709, 1, 1), date(1713, 12, 31)))
    False
    >>> keeps_order(y(1888), y(1889), (date(1888, 5, 1), date(1888, 5, 31)))
    True
    >>> keeps_order(y(1888), y(1892), (date(1880, 1, 1), date(1889, 12, 31)))
    False
    """
    before = _order(old, other)
    if before == "=":
        holds = other[0] <= old[0] and old[1] <= other[1]
        return not holds or _order(new, other) == "="
    return _order(new, other) == before


@lru_cache(maxsize=32768)
def date_spans(text: str) -> tuple[tuple[int, int, Span], ...]:
    """``(start, end, span)`` of every dated mention of ``text`` (no yearless day, no bare ordinal),
    and of the last year of every short range ("1709–13" gives 1709 and 1713).

    >>> [(s, e, d[0].year, d[1].year) for s, e, d in date_spans("In 1709–13 and the 1880s.")]
    [(3, 7, 1709, 1709), (19, 24, 1880, 1889), (8, 10, 1713, 1713)]
    """
    found = [
        (m.start, m.end, (m.first, m.last))
        for m in date_mentions(text)
        if not m.yearless and not m.century_only
    ]
    for match in _SHORT_RANGE.finditer(text):
        first = int(match[1])
        last = int(match[1][:2] + match[2])
        if last > first:
            found.append((match.start(2), match.end(2), _year_span(last)))
    return tuple(found)


def _answer_span(core: str) -> Span | None:
    """The days a year or date answer covers."""
    form = answer_form(core)
    if form == "year":
        return _year_span(int(core))
    parsed = parse_date(core) if form == "date" else None
    if parsed is None or parsed.kind in {"day of month", "month name"}:
        return None
    return parsed.first, parsed.last


@lru_cache(maxsize=32768)
def ordinals(text: str) -> tuple[int, ...]:
    """Every ordinal of ``text`` from "second" ("27th", "twenty-first"; "first" is too often no count).

    >>> ordinals("a planned 27th series, the second and 1st")
    (27, 2)
    """
    values = [int(m[1]) for m in _ORDINAL_DIGITS.finditer(text) if int(m[1]) > 1]
    return (*values, *(ORDINAL_WORDS.index(m[1].lower()) + 1 for m in _ORDINAL_WORD.finditer(text)))


@dataclass(frozen=True)
class _Sentence:
    paragraph: int
    start: int
    end: int
    text: str
    names: frozenset[str]


class Finding(NamedTuple):
    """A rule that rejects an alternative, and the sentence of the article that rules it out."""

    rule: str
    sentence: str


@dataclass(frozen=True)
class Answer:
    """Where a question's core answer stands, and what it is."""

    paragraph: int
    start: int
    core: str
    kind: str
    """The answer's semantic type (``year``, ``date``, ``quantity``, ``person`` ...)."""
    question: str


_LIFESPAN = re.compile(r"\d{3,4}\s*[–—]\s*(?:c\.\s*)?(?:[\w,]+\s+){0,2}\d{3,4}\)")
"""A lifespan closing a parenthesis ("10 July 1856 – 7 January 1943)", "c. 1162 – August 18, 1227)")."""
TOPIC_SHARE = 0.2
"""A name in at least this share of an article's sentences is its topic ("Harvard", "Warsaw", "Super
Bowl"): it ties sentences only where it names a person (a biography's subject, "Luther", "Tesla")."""


class Article:
    """The sentences of one SQuAD article with their names, content words and dates."""

    def __init__(self, squad: Squad, paragraphs: list[int], entities: list[list[Entity]]) -> None:
        self.paragraphs = paragraphs
        """The article's paragraphs, in its order."""
        spans = [(i, s, e) for i in paragraphs for s, e in sentence_spans(squad.paragraphs[i].context)]
        texts = [squad.paragraphs[i].context[s:e] for i, s, e in spans]
        inside: set[str] = set()
        for text in texts:
            opening = _OPENING.match(text).end()  # type: ignore[union-attr]
            inside |= {_name(m.group()) for m in _CAPITALISED.finditer(text) if m.start() > opening}
        self.vocabulary = frozenset(inside - QUESTION_WORDS - _CALENDAR)
        """Capitalised words the article writes inside a sentence: names, or parts of names."""
        self.sentences = [
            _Sentence(i, s, e, text, self.names(text)) for (i, s, e), text in zip(spans, texts, strict=True)
        ]
        labels: dict[str, Counter[bool]] = {}
        for i in paragraphs:
            for start, end, label in entities[i]:
                for word in _CAPITALISED.findall(squad.paragraphs[i].context[start:end]):
                    labels.setdefault(_name(word), Counter())[label == "PERSON"] += 1
        share = Counter(name for sentence in self.sentences for name in sentence.names)
        self.every_topic = frozenset(n for n, k in share.items() if k >= TOPIC_SHARE * len(self.sentences))
        """The article's topic names ("Luther", "Harvard"): no sign that two sentences tell one event."""
        self.topic = frozenset(
            name
            for name in self.every_topic
            if not (name in labels and labels[name][True] > labels[name][False])
        )
        """The article's topic names that name no person: they tie no sentences."""
        self.biography = bool(_LIFESPAN.search(self.sentences[0].text))
        """The article tells a life or a war in order: its first sentence gives its span ("Nikola Tesla (…; 10 July
        1856 – 7 January 1943)", "The French and Indian War (1754–1763)")."""
        self._tied: dict[Answer, tuple[_Sentence, list[_Sentence], list[_Sentence]]] = {}
        self._stems = [stems(sentence.text) - self.every_topic for sentence in self.sentences]
        self._holding: dict[str, list[int]] = {}
        """The sentences (by index) that hold each content word, the article's topic names left out."""
        for index, words in enumerate(self._stems):
            for word in words:
                self._holding.setdefault(word, []).append(index)
        self._near_passage: dict[tuple[int, int], frozenset[int]] = {}
        self.paragraph_dates: dict[int, list[Span]] = {i: [] for i in paragraphs}
        """The years and dates (no longer than a year) of each paragraph."""
        for sentence in self.sentences:
            self.paragraph_dates[sentence.paragraph] += [
                span for _, _, span in date_spans(sentence.text) if (span[1] - span[0]).days <= 366
            ]

    def narrative_slot(self, paragraph: int, held: Span) -> tuple[Span | None, Span | None] | None:
        """The latest date before and the earliest after the answer's paragraph where the article tells
        its events in order around it (:data:`NARRATIVE_PARAGRAPHS` dated paragraphs on each side at
        most, at least that many in all, their first dates in order; none before dates after ``held``,
        none after dates before it, or, looser, none before opens after it and none after opens
        before it, the bounds then the paragraphs' first dates), else ``None``."""
        at = self.paragraphs.index(paragraph)
        dated = [i for i in self.paragraphs if self.paragraph_dates[i]]
        before = [i for i in dated if self.paragraphs.index(i) < at][-NARRATIVE_PARAGRAPHS:]
        after = [i for i in dated if self.paragraphs.index(i) > at][:NARRATIVE_PARAGRAPHS]
        if len(before) + len(after) < NARRATIVE_PARAGRAPHS:
            return None
        earlier = [span for i in before for span in self.paragraph_dates[i]]
        later = [span for i in after for span in self.paragraph_dates[i]]
        firsts = [self.paragraph_dates[i][0][0] for i in before] + [held[0]]
        firsts += [self.paragraph_dates[i][0][0] for i in after]
        if firsts != sorted(firsts):
            return None
        if any(_order(span, held) == ">" for span in earlier) or any(
            _order(span, held) == "<" for span in later
        ):
            if not self.biography:  # the looser slot is a life's or a war's
                return None
            # Looser, in a biography: each paragraph opens in order around the answer (a look back
            # inside one, "1882", leaves the life's order standing): the slot lies between the
            # paragraphs' first dates.
            heads = [self.paragraph_dates[i][0] for i in before], [self.paragraph_dates[i][0] for i in after]
            if any(_order(span, held) == ">" for span in heads[0]) or any(
                _order(span, held) == "<" for span in heads[1]
            ):
                return None
            earlier, later = heads
        return (
            max(earlier, key=lambda span: span[0]) if earlier else None,
            min(later, key=lambda span: span[1]) if later else None,
        )

    def sharing(self, words: frozenset[str], least: int) -> set[int]:
        """The sentences (by index) that share at least ``least`` of ``words``."""
        shared = Counter(i for word in words for i in self._holding.get(word, ()))
        return {i for i, k in shared.items() if k >= least}

    def _around(self, paragraph: int, own: _Sentence) -> set[int]:
        """The sentences that share :data:`PASSAGE_WORDS` content words with a sentence of the
        paragraph other than ``own`` (cached per sentence)."""
        found: set[int] = set()
        for index, sentence in enumerate(self.sentences):
            if sentence.paragraph == paragraph and sentence is not own:
                key = (paragraph, index)
                if key not in self._near_passage:
                    self._near_passage[key] = frozenset(self.sharing(self._stems[index], PASSAGE_WORDS))
                found |= self._near_passage[key]
        return found

    def names(self, text: str) -> frozenset[str]:
        """The article's names that ``text`` writes capitalised."""
        return frozenset(_name(m.group()) for m in _CAPITALISED.finditer(text)) & self.vocabulary

    def sentence_of(self, paragraph: int, offset: int) -> _Sentence:
        return next(s for s in self.sentences if s.paragraph == paragraph and s.start <= offset < s.end)

    def tied(self, answer: Answer) -> tuple[_Sentence, list[_Sentence], list[_Sentence]]:
        """The answer's sentence, the other sentences of its paragraph, and the tied sentences of the
        article's other paragraphs (those that name a name of the answer's sentence or question)."""
        if answer not in self._tied:
            self._tied[answer] = self._find_tied(answer)
        return self._tied[answer]

    def _find_tied(self, answer: Answer) -> tuple[_Sentence, list[_Sentence], list[_Sentence]]:
        own = self.sentence_of(answer.paragraph, answer.start)
        names = (own.names | self.names(answer.question)) - self.topic
        if not names:  # the answer's sentence is about the topic itself ("the series' revival")
            names = own.names | self.names(answer.question) or self.every_topic
        passage = [s for s in self.sentences if s.paragraph == answer.paragraph and s is not own]
        words = stems(own.text) - stems(answer.core) - self.every_topic
        by_words = self.sharing(words, RESTATED_WORDS) | self._around(answer.paragraph, own)
        rest = [
            s
            for i, s in enumerate(self.sentences)
            if s.paragraph != answer.paragraph and (s.names & names or i in by_words)
        ]
        return own, passage, rest


@lru_cache(maxsize=65536)
def _name(word: str) -> str:
    """``word`` lower-cased, less a possessive ending ("Tesla's" is "tesla")."""
    return _POSSESSIVE.sub("", word).lower()


@lru_cache(maxsize=32768)
def stems(text: str) -> frozenset[str]:
    """The :func:`content_words` of ``text`` less their plural endings ("stations" and "station" meet)."""
    return frozenset(_stem(w) for w in content_words(text))


@lru_cache(maxsize=32768)
def content_words(text: str) -> frozenset[str]:
    """The words of ``text`` that say what it is about: no stopword, number or calendar name."""
    return frozenset(
        w for w in tokens(text) if len(w) >= 3 and not w.isdigit() and w not in QUESTION_WORDS | _CALENDAR
    )


class Believability:
    """The rules of :data:`RULES` over every article of a SQuAD file."""

    def __init__(self, squad: Squad, entities: list[list[Entity]]) -> None:
        self.squad = squad
        self.entities = entities
        by_title: dict[str, list[int]] = {}
        for index, paragraph in enumerate(squad.paragraphs):
            by_title.setdefault(paragraph.title, []).append(index)
        self.by_title = by_title
        self._articles: dict[str, Article] = {}
        self._question_findings: dict[tuple[Answer, frozenset[str]], Finding | None] = {}
        """What :meth:`_question_finding` found, by answer (its place, kind and question: the tied
        sentences depend on the question, the rules on the kind) and rules."""

    def article(self, paragraph: int) -> Article:
        title = self.squad.paragraphs[paragraph].title
        if title not in self._articles:
            self._articles[title] = Article(self.squad, self.by_title[title], self.entities)
        return self._articles[title]

    def problem(self, answer: Answer, alternative: str, rules: frozenset[str] = ALL_RULES) -> str | None:
        """The id of the first of ``rules`` (of :data:`RULES`) that rejects ``alternative``, or ``None``."""
        found = self.finding(answer, alternative, rules)
        return found.rule if found else None

    def finding(self, answer: Answer, alternative: str, rules: frozenset[str] = ALL_RULES) -> Finding | None:
        """The first of ``rules`` (of :data:`RULES`) that rejects ``alternative``, with the sentence that
        rules it out."""
        key = (answer, rules)
        if key not in self._question_findings:
            self._question_findings[key] = self._question_finding(answer, rules)
        if self._question_findings[key]:
            return self._question_findings[key]
        if "compatible_bound" in rules:
            context = self.squad.paragraphs[answer.paragraph].context
            end = answer.start + len(answer.core)
            if compatible_bound(context[: answer.start], answer.core, alternative, context[end:]):
                own = self.article(answer.paragraph).sentence_of(answer.paragraph, answer.start)
                return Finding("compatible_bound", own.text)
        found = None
        if answer.kind in {"year", "date"}:
            found = self._date_finding(answer, alternative, rules)
        elif answer.kind == "quantity":
            found = self._count_finding(answer, alternative)
        elif answer.kind == "person":
            found = self._person_alternative_finding(answer, alternative)
        return found or self._class_finding(answer, alternative, rules)

    def _class_finding(self, answer: Answer, alternative: str, rules: frozenset[str]) -> Finding | None:
        """The rules of issue 32's read (seeds 3434, 4949, 5353), after the others so that their counts
        are what the others let through: ``impossible_value``, ``number_in_name``, ``arithmetic_tie`` and
        ``date_chain_article`` (of ``rules``)."""
        if answer.kind not in {"year", "date", "quantity"}:
            return None
        article = self.article(answer.paragraph)
        own, passage, _ = article.tied(answer)
        checks = (
            ("impossible_value", lambda: _impossible_finding(answer, article, own, alternative)),
            ("number_in_name", lambda: _name_number_finding(answer, article, own)),
            ("arithmetic_tie", lambda: _arithmetic_finding(answer, article, own, passage, alternative)),
            ("date_chain_article", lambda: _chain_finding(answer, article, own, passage, alternative)),
            ("date_fixed_calendar", lambda: _calendar_finding(answer, article, own, alternative)),
            ("count_stated_proportion", lambda: _proportion_finding(answer, own, passage, alternative)),
            ("date_named_era", lambda: _era_finding(answer, own, passage, alternative)),
            ("count_tied_in_sentence", lambda: _tied_count_finding(answer, article, own, passage)),
        )
        for name, check in checks:
            found = check() if name in rules else None
            if found:
                return found
        return None

    def _question_finding(self, answer: Answer, rules: frozenset[str]) -> Finding | None:
        """A rule that rejects every alternative of the question."""
        if answer.kind == "person":
            return self._person_finding(answer)
        if answer.kind not in {"year", "date", "quantity"}:
            return None
        article = self.article(answer.paragraph)
        own, passage, rest = article.tied(answer)
        held = _answer_span(answer.core)
        words = stems(own.text) - stems(answer.core) - article.every_topic
        for sentence in rest:
            if len(stems(sentence.text) & words) < RESTATED_WORDS:
                continue
            if held is not None:
                if any(_restates(held, span) for _, _, span in date_spans(sentence.text)):
                    return Finding("restated_in_article", sentence.text)
            elif contains(sentence.text, answer.core):
                return Finding("restated_in_article", sentence.text)
        found = _anywhere_finding(answer, article, own)
        if found:
            return found
        if held is not None:
            for sentence in passage:
                if _YEARS_SPAN.search(sentence.text) and date_spans(sentence.text):
                    return Finding("date_span_passage", sentence.text)
            found = "date_duration_tied" in rules and _duration_finding(answer, own, passage, rest)
            found = found or ("date_relative_tied" in rules and _relative_finding(answer, article, own))
            found = found or ("date_numbered_series" in rules and _series_finding(answer, article, own))
            found = found or ("date_sequence_tied" in rules and _sequence_finding(answer, own, passage, rest))
            if found:
                return found
        if answer.kind != "quantity":
            return None
        value = number_value(answer.core)
        found = _label_finding(answer, own) or ("count_of_a_group" in rules and _group_finding(answer, own))
        found = found or _total_finding(answer, own, passage)
        found = found or ("count_product_stated" in rules and _product_finding(answer, article, own))
        found = found or _unit_finding(answer, own, passage)
        if found:
            return found
        later = [s for s in passage if s.start > own.start]
        if value <= SMALL_COUNT and later:
            markers = [s for s in later if _MARKER.search(s.text)]
            noun = self.counted_noun(answer)
            if len(markers) >= 2:
                return Finding("count_enumerated", " ".join(s.text for s in markers))
            if noun is not None and sum(_stem(w) == noun for w in tokens(later[0].text)) >= 2:
                return Finding("count_enumerated", later[0].text)
        for sentence in [own, *passage, *rest]:
            if any(k in {value, value + 1} for k in ordinals(sentence.text)):
                return Finding("count_ordinal", sentence.text)
        return _equivalent_finding(answer, own)

    def _person_finding(self, answer: Answer) -> Finding | None:
        """``person_credited``: another sentence of the article names the answer and tells the facts of
        the answer's sentence ("Miller had six total tackles (five solo), 2½ sacks, and two forced
        fumbles"), so they are the answer's, whoever the alternative is."""
        article = self.article(answer.paragraph)
        own = article.sentence_of(answer.paragraph, answer.start)
        named = {_name(w) for w in answer.core.split()} - article.topic - _STOP_NAMES
        words = stems(own.text) - stems(answer.core) - article.every_topic
        for sentence in article.sentences:
            if sentence is own or not sentence.names & named:
                continue
            if len(stems(sentence.text) & words) >= RESTATED_WORDS:
                return Finding("person_credited", sentence.text)
        return None

    def _person_alternative_finding(self, answer: Answer, alternative: str) -> Finding | None:
        """``person_credited``: the article names the alternative in a sentence on the facts of the
        answer's sentence, in another part ("Trevathan recovered the fumble")."""
        article = self.article(answer.paragraph)
        own = article.sentence_of(answer.paragraph, answer.start)
        named = {_name(w) for w in alternative.split()} - article.topic - _STOP_NAMES
        words = stems(own.text) - stems(answer.core) - article.every_topic
        for sentence in article.sentences:
            if sentence is not own and sentence.names & named and stems(sentence.text) & words:
                return Finding("person_credited", sentence.text)
        return None

    def counted_noun(self, answer: Answer) -> str | None:
        """The stem of what the count counts: its own unit word, else the word after it ("museums")."""
        unit = re.sub(r"^[\d,.$£€%]+|^\w+", "", answer.core).split()
        if unit:
            return _stem(unit[-1].lower())
        context = self.squad.paragraphs[answer.paragraph].context
        match = _NOUN_AFTER.match(context[answer.start + len(answer.core) :])
        return _stem(match[1].split()[-1]) if match else None

    def _date_finding(self, answer: Answer, alternative: str, rules: frozenset[str]) -> Finding | None:
        old, new = _answer_span(answer.core), _answer_span(alternative)
        if old is None or new is None:
            return None
        article = self.article(answer.paragraph)
        own, passage, rest = article.tied(answer)
        end = answer.start + len(answer.core)
        dated = [
            (sentence, span)
            for sentence in [own, *passage]
            for start, stop, span in date_spans(sentence.text)
            if sentence.start + stop <= answer.start or sentence.start + start >= end
        ]
        for sentence, span in dated:
            if not keeps_order(old, new, span):
                return Finding("date_order_passage", sentence.text)
        if dated:
            sentence, span = min(dated, key=lambda item: _gap_years(old, item[1]))
            gap = _gap_years(old, span)
            if _gap_years(new, span) > max(2 * gap, gap + DATE_GAP_YEARS):
                return Finding("date_gap_passage", sentence.text)
        named = own.names - article.every_topic
        for sentence in rest:
            spans = [span for _, _, span in date_spans(sentence.text)]
            if not all(keeps_order(old, new, span) for span in spans):
                return Finding("date_order_article", sentence.text)
            if sentence.names & named and any(
                _within(span, old) and not _within(span, new) for span in spans
            ):
                return Finding("date_same_year_article", sentence.text)
        return self._narrative_finding(answer, old, new) or self._later_date_finding(answer, old, new, rules)

    def _narrative_finding(self, answer: Answer, old: Span, new: Span) -> Finding | None:
        """``date_narrative_slot``: the alternative leaves the answer's slot in a narrative told in order
        (:meth:`Article.narrative_slot`)."""
        article = self.article(answer.paragraph)
        slot = article.narrative_slot(answer.paragraph, old)
        if slot is None:
            return None
        latest, earliest = slot
        for bound in (latest, earliest):
            if bound is not None and not keeps_order(old, new, bound):
                sentence = next(
                    s for s in article.sentences if any(span == bound for _, _, span in date_spans(s.text))
                )
                return Finding("date_narrative_slot", sentence.text)
        return None

    def _later_date_finding(
        self, answer: Answer, old: Span, new: Span, rules: frozenset[str]
    ) -> Finding | None:
        """``date_order_same_verb``, ``date_close_same_verb`` (of ``rules``) and ``date_days_apart`` (see
        :data:`RULES`)."""
        article = self.article(answer.paragraph)
        own = article.sentence_of(answer.paragraph, answer.start)
        verbs = {_verb_stem(m[1] + "ed") for m in _VERB.finditer(own.text.lower())}
        verbs = (verbs | {_verb_stem(m[1]) for m in _AFTER_DOING.finditer(own.text.lower())}) - _COMMON_VERBS
        for sentence in article.sentences:
            if sentence.paragraph == answer.paragraph or not verbs:
                continue
            spans = [span for _, _, span in date_spans(sentence.text)]
            if verbs & _verb_stems(sentence.text) and not all(keeps_order(old, new, span) for span in spans):
                return Finding("date_order_same_verb", sentence.text)
        own_closely = _closely(own.text)
        for sentence in article.sentences if verbs and "date_close_same_verb" in rules else ():
            if sentence is own or not verbs & _verb_stems(sentence.text):
                continue
            if (own_closely or _closely(sentence.text)) and any(
                _gap_years(new, span) > _gap_years(old, span) for _, _, span in date_spans(sentence.text)
            ):
                return Finding("date_close_same_verb", sentence.text)
        if old[0] != old[1]:
            return None
        end = answer.start + len(answer.core)
        near: list[tuple[int, str]] = []
        for sentence in article.sentences:
            for start, stop, span in date_spans(sentence.text):
                mine = sentence.paragraph == answer.paragraph and sentence.start + start < end
                mine = mine and sentence.start + stop > answer.start
                gap = max((span[0] - old[1]).days, (old[0] - span[1]).days)
                if mine or span[0] != span[1] or not 0 < gap <= DAYS_APART:
                    continue
                moved = max((span[0] - new[1]).days, (new[0] - span[1]).days)
                if not keeps_order(old, new, span) or moved > 2 * gap:
                    near.append((gap, sentence.text))
        if near:
            return Finding("date_days_apart", min(near)[1])
        return None

    def _count_finding(self, answer: Answer, alternative: str) -> Finding | None:
        old, new = number_value(answer.core), number_value(alternative)

        def crosses(other: float) -> bool:
            return (old > other) != (new > other) or (old < other) != (new < other)

        article = self.article(answer.paragraph)
        own, passage, rest = article.tied(answer)
        for sentence in [own, *passage]:
            if any(crosses(k) for k in ordinals(sentence.text)):
                return Finding("count_ordinal", sentence.text)
        found = share_finding(answer, article, old, new)
        if found:
            return found
        noun = self.counted_noun(answer)
        if noun is None:
            return None
        for sentence in [own, *passage, *rest]:
            for match in _COUNT.finditer(sentence.text):
                at = sentence.start + match.start()
                same = sentence.paragraph == answer.paragraph and at == answer.start
                counts_noun = noun in {_stem(w) for w in match["after"].split()}
                other = number_value(match["n"])
                restated = abs(other - old) <= NEAR_COUNT * old and abs(other - new) > NEAR_COUNT * old
                if not same and counts_noun and (crosses(other) or restated):
                    return Finding("count_order_same_noun", sentence.text)
        return None


_WHAT_NOUN = re.compile(r"\b(?:what|which)\s+([a-z][\w-]*)", re.IGNORECASE)
_OF_AFTER = re.compile(r"^\s+(?:out\s+)?of\s+(?:the\s+|its\s+|their\s+|all\s+)?[\d,]*\d")
_OF_BEFORE = re.compile(r"\d\s+(?:out\s+)?of\s+(?:the\s+|its\s+|their\s+|all\s+)?$")
_OF_CLAUSE = re.compile(r"(?:^|[;:]\s*)\W*Of\b[^,;]*\d[^,;]*,\s*$")


def _counts(text: str) -> list[tuple[int, float]]:
    """``(offset, value)`` of every number of ``text`` that may count something: no year."""
    found = []
    for match in _NUMBER.finditer(text):
        value = float(match[1].replace(",", ""))
        if not ("," not in match[1] and "." not in match[1] and 1000 <= value <= 2100):
            found.append((match.start(), value))
    return found


def share_finding(answer: Answer, article: Article, old: float, new: float) -> Finding | None:
    """``count_share_of_whole``: another share of the answer's whole restates it within
    :data:`SHARE_POINTS` ("61% of GDP" and "62% of GDP"), which any alternative contradicts, or the
    alternative, not the answer, would add up with another share of it past 100% ("80%" beside "22% of
    GDP")."""
    own = article.sentence_of(answer.paragraph, answer.start)
    at = answer.start - own.start
    whole = next((w for offset, _, w in _wholes(own.text) if at <= offset < at + len(answer.core)), None)
    if not whole:
        return None
    for sentence in article.sentences:
        for offset, share, other in _wholes(sentence.text):
            if (sentence is own and at <= offset < at + len(answer.core)) or other != whole:
                continue
            if abs(share - old) <= SHARE_POINTS or old + share <= 100 < new + share:
                return Finding("count_share_of_whole", sentence.text)
    return None


_DAY_MONTH = re.compile(
    r"^(?:(?P<d1>\d{1,2})(?:st|nd|rd|th)?\s+(?P<m1>[A-Z][a-z]+)|(?P<m2>[A-Z][a-z]+)\s+(?P<d2>\d{1,2})(?:st|nd|rd|th)?)$"
)


def _day_month(text: str) -> tuple[int, str] | None:
    """The day and month of a yearless date ("18 February", "February 18th"), else ``None``."""
    match = _DAY_MONTH.match(text.strip())
    if not match or (match["m1"] or match["m2"]).lower() not in _CALENDAR:
        return None
    return int(match["d1"] or match["d2"]), (match["m1"] or match["m2"]).lower()


_DAY_BEFORE_YEAR = re.compile(
    r"(?:\b[A-Z][a-z]+\.?\s+\d{1,2}(?:st|nd|rd|th)?,?|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?[A-Z][a-z]+\.?,?)\s*$"
)
"""A day and month right before a year ("November 20, 1985", "20 November 1985")."""


def _day_of(answer: Answer, own: _Sentence) -> Span | None:
    """The one day that a date answer, or a year answer with its day and month before it, names, else
    ``None``."""
    core = answer.core
    if answer_form(core) == "year":
        before = _DAY_BEFORE_YEAR.search(own.text[: answer.start - own.start])
        core = f"{before[0]}{core}" if before else core
    if answer_form(core) != "date":
        return None
    span = _answer_span(core)
    return span if span is not None and span[0] == span[1] else None


def _anywhere_finding(answer: Answer, article: Article, own: _Sentence) -> Finding | None:
    """``restated_anywhere``: another sentence of the article states the answer's value in any form,
    whatever its words (the same day and month; the answer's day as its month and year, "November 1985";
    the same number, or the number at lower precision; a
    whole number at a finer precision with its unit, "28° East" and "28.5°E"; a total that a count of the
    paragraph and its share imply)."""
    others = [s for s in article.sentences if s is not own]
    whole = _day_of(answer, own)
    if whole is not None:  # "on November 20, 1985" and "not released until November 1985"
        for sentence in others:
            for _, _, span in date_spans(sentence.text):
                if 27 <= (span[1] - span[0]).days <= 30 and _within(whole, span):
                    return Finding("restated_anywhere", sentence.text)
    day = _day_month(answer.core)
    if day is not None:
        for sentence in others:
            for match in re.finditer(
                r"\b(\d{1,2})(?:st|nd|rd|th)?\s+([A-Z][a-z]+)|\b([A-Z][a-z]+)\s+(\d{1,2})\b", sentence.text
            ):
                found = (int(match[1] or match[4]), (match[2] or match[3]).lower())
                if found == day:
                    return Finding("restated_anywhere", sentence.text)
        return None
    if answer.kind != "quantity":
        return None
    value = number_value(answer.core)
    digits = re.sub(r"\D", "", answer.core).rstrip("0")
    if len(digits) >= RESTATED_DIGITS:
        same = re.compile(rf"(?<![\w.,:/–-]){re.escape(answer.core)}(?![\w:/–-]|[.,]\d)")
        for sentence in others:
            if same.search(sentence.text):
                return Finding("restated_anywhere", sentence.text)
    for sentence in others:
        for match in _SCALED.finditer(sentence.text):
            scale = _SCALES[match[3].lower()]
            step = scale * 10.0 ** -len(match[2] or "")
            if (
                len(digits) >= RESTATED_DIGITS
                and value >= 10 * step  # two significant digits at least: "3.7 million", not "3 million"
                and abs(value - float(match[1]) * scale) < step
            ):
                return Finding("restated_anywhere", sentence.text)
    unit = _UNIT_AT.match(own.text[answer.start - own.start + len(answer.core) :])
    if unit and value >= 10 and re.fullmatch(r"\d+", answer.core):
        for sentence in others:
            for match in _FINER.finditer(sentence.text):
                finer = float(match[1])
                if _unit_key(match[2]) == _unit_key(unit[1]) and value in (int(finer), round(finer)):
                    return Finding("restated_anywhere", sentence.text)
    for sentence in article.sentences:
        if sentence.paragraph != answer.paragraph:
            continue
        for match in _COUNT_SHARE.finditer(sentence.text):
            count, share = float(match[1].replace(",", "")), float(match[2])
            if share <= 0 or count >= value:
                continue
            slack = value * (0.5 * 10.0 ** -len(match[3] or "") / share + 0.001)
            if abs(count * 100 / share - value) <= slack:
                return Finding("restated_anywhere", sentence.text)
    return None


def durations(text: str) -> list[float]:
    """The durations in years that ``text`` states (:data:`_DURATION`; "a year" is 1, "two decades" 20), and
    those of :data:`LEAST_MONTHS` months or more (:data:`_MONTHS`) as shares of years.

    >>> durations("his eleven-year military dictatorship; for 3 years; two decades later; a 13-year-old")
    [11, 3, 20]
    >>> durations("The pair ended their 18-month engagement in 2008, after a 2-month tour.")
    [1.5]
    >>> durations("crowned king in 1130 (exactly one century after Rainulf was crowned count)")
    [100]
    """
    found: list[float] = []
    for match in _DURATION.finditer(text):
        number, unit = re.split(r"[ -]", match.group().lower(), maxsplit=1)
        value = (
            1 if number in {"a", "an", "one"} else int(number) if number.isdigit() else number_value(number)
        )
        found.append(
            int(value) * (10 if unit.startswith("decade") else 100 if unit.startswith("centur") else 1)
        )
    for match in _MONTHS.finditer(text):
        number = re.split(r"[ -]", match.group().lower(), maxsplit=1)[0]
        months = int(number) if number.isdigit() else number_value(number)
        if months >= LEAST_MONTHS:
            found.append(months / 12)
    return found


def _duration_finding(
    answer: Answer, own: _Sentence, passage: list[_Sentence], rest: list[_Sentence]
) -> Finding | None:
    """``date_duration_tied``: the answer's paragraph states a duration of years ("his eleven-year
    military dictatorship") that is, within a year, the distance from the answer to another year of the
    paragraph ("killed in 1988"), so the arithmetic fixes the answer ("In July 1977, General Zia-ul-Haq
    overthrew …"); a duration in the answer's own sentence ("crowned king in 1130 (exactly one century
    after Rainulf was crowned count)") is read against the years of the article's sentences tied to it
    too ("Rainulf Drengot received the county of Aversa … in 1030")."""
    at, end = answer.start - own.start, answer.start - own.start + len(answer.core)
    held = _answer_span(answer.core)
    if held is None:
        return None
    years = {span[0].year for s in passage for _, _, span in date_spans(s.text)}
    years |= {span[0].year for start, stop, span in date_spans(own.text) if stop <= at or start >= end}
    gaps = {abs(year - held[0].year) for year in years}
    tied = {abs(span[0].year - held[0].year) for s in rest for _, _, span in date_spans(s.text)}
    for sentence in [own, *passage]:
        apart = gaps | tied if sentence is own else gaps
        if any(abs(gap - n) <= DURATION_SLACK for n in durations(sentence.text) for gap in apart):
            return Finding("date_duration_tied", sentence.text)
    return None


_SEQUENCE = re.compile(
    r"\b(" + "|".join(ORDINAL_WORDS[1:12]) + r"|\d{1,2}(?:st|nd|rd|th))\s+(?:year|season|term|semester)s?\b",
    re.IGNORECASE,
)
"""A step of a sequence counted in years ("his third year", "the 2nd season")."""


def sequence_years(text: str) -> int:
    """How many years ``text`` counts on: the largest ordinal year ("During his third year": 3) or
    duration of years (:func:`durations`), 0 where none.

    >>> sequence_years("During his first year ... During his third year, Tesla gambled"), sequence_years("In 1875.")
    (3, 0)
    """
    steps = [
        int(m[1][:-2]) if m[1][0].isdigit() else ORDINAL_WORDS.index(m[1].lower()) + 1
        for m in _SEQUENCE.finditer(text)
    ]
    return int(max([*steps, *durations(text)], default=0))


def _sequence_finding(
    answer: Answer, own: _Sentence, passage: list[_Sentence], rest: list[_Sentence]
) -> Finding | None:
    """``date_sequence_tied``: the answer's paragraph counts years on from it ("In 1875, Tesla enrolled
    …", "During his third year …") and a sentence tied to it dates a later event within that count
    and a year more ("In December 1878, Tesla left Graz"): the years between are spoken for, so a move
    later squeezes the sequence and a move earlier leaves years the article does not fill."""
    held = _answer_span(answer.core)
    counted = max(sequence_years(sentence.text) for sentence in [own, *passage])
    if held is None or counted < 2:
        return None
    year = held[0].year
    for sentence in [*passage, *rest]:
        if any(year < span[0].year <= year + counted + 1 for _, _, span in date_spans(sentence.text)):
            return Finding("date_sequence_tied", sentence.text)
    return None


def counts_a_group(before: str, after: str) -> bool:
    """The count between ``before`` and ``after`` is of a group the text has named (``count_of_a_group``).

    >>> counts_a_group("NASA awarded all ", " of these astronauts its highest honor")
    True
    >>> counts_a_group("Each of the ", " delegates cast a vote"), counts_a_group("It has ", " members")
    (True, False)
    """
    return bool(_GROUP_BEFORE.search(before) or _GROUP_AFTER.match(after))


def _group_finding(answer: Answer, own: _Sentence) -> Finding | None:
    """``count_of_a_group``: "all 32 of these astronauts", "these 12 apostles": a reader counts the group
    in the article (the missions and their crews), so any other count contradicts it."""
    at = answer.start - own.start
    if counts_a_group(own.text[:at], own.text[at + len(answer.core) :]):
        return Finding("count_of_a_group", own.text)
    return None


def _roman(numeral: str) -> int | None:
    """The value of a Roman numeral ("XXXVII": 37), else ``None``."""
    values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}
    total = 0
    for here, after in zip(numeral, [*numeral[1:], ""], strict=True):
        value = values[here]
        total += -value if after and values[after] > value else value
    return total if _to_roman(total) == numeral else None


def _to_roman(value: int) -> str:
    out = ""
    for amount, letters in (
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ):
        while value >= amount:
            out, value = out + letters, value - amount
    return out


def series_numbers(text: str) -> list[tuple[int, int, str, int]]:
    """``(start, end, series, number)`` of every numbered event of ``text``: a name and a number, Roman or
    in digits ("Super Bowl XXXVII", "Super Bowl 50"), or an ordinal and a name ("the 87th Academy Awards").

    >>> series_numbers("since Super Bowl XIX in 1985, and the 50th Grammy Awards")
    [(6, 20, 'super bowl', 19), (38, 56, 'grammy awards', 50)]
    """
    found = []
    for match in _SERIES.finditer(text):
        name, number = (match["name"], match["n"]) if match["n"] else (match["oname"], match["ord"][:-2])
        value = int(number) if number.isdigit() else _roman(number)
        words = [_name(w) for w in name.split()]
        if value and words[-1] not in _CALENDAR and not set(words) <= QUESTION_WORDS:
            found.append((match.start(), match.start() + len(match.group().rstrip()), " ".join(words), value))
    return found


def _series_finding(answer: Answer, article: Article, own: _Sentence) -> Finding | None:
    """``date_numbered_series``: the answer dates a numbered event of a series ("Super Bowl XXXVII took
    place in San Diego in 2003") that the article dates at another number ("Super Bowl XIX in 1985"):
    the numbering fixes the year."""
    at, end = answer.start - own.start, answer.start - own.start + len(answer.core)
    mine = [m for m in series_numbers(own.text[:at]) if at - m[1] <= SERIES_REACH]
    if not mine:
        return None
    _, _, series, number = mine[-1]
    for sentence in article.sentences:
        dates = [
            span
            for start, stop, span in date_spans(sentence.text)
            if sentence is not own or stop <= at or start >= end
        ]
        if dates and any(s == series and n != number for _, _, s, n in series_numbers(sentence.text)):
            return Finding("date_numbered_series", sentence.text)
    return None


def _unit_finding(answer: Answer, own: _Sentence, passage: list[_Sentence]) -> Finding | None:
    """``count_per_each`` (the size of each of a set of units), ``count_complement`` (the sentence goes on
    to the rest of the whole) and ``count_shares_listed`` (a percentage among other shares of its
    paragraph)."""
    at = answer.start - own.start
    before, after = own.text[:at], own.text[at + len(answer.core) :]
    if _EACH_BEFORE.search(before):
        return Finding("count_per_each", own.text)
    if _REST_AFTER.match(after):
        return Finding("count_complement", own.text)
    if _PERCENT.match(answer.core + after[:9]):
        shares = [m for s in [own, *passage] for m in _PERCENT.finditer(s.text)]
        if len(shares) - 1 >= SHARES_LISTED:
            return Finding("count_shares_listed", " ".join(s.text for s in [own, *passage]))
    return None


def _equivalent_finding(answer: Answer, own: _Sentence) -> Finding | None:
    """``count_equivalent``: a parenthesis of the answer's clause gives the number again in another form
    ("96.26% of all households … (or 300,794,157 Americans …)"), so any other breaks it."""
    after = own.text[answer.start - own.start + len(answer.core) :]
    match = _EQUIVALENT_AFTER.match(after)
    if match and _counts(match["n"].rstrip(".,")):
        return Finding("count_equivalent", own.text)
    return None


def _label_finding(answer: Answer, own: _Sentence) -> Finding | None:
    """``count_is_label``: the question asks "what pad" and the passage writes "pad 37": the number
    names a thing of a set the article may list ("LC-34 and LC-37"), it counts nothing."""
    before = tokens(own.text[: answer.start - own.start])
    asked = {_stem(m[1].lower()) for m in _WHAT_NOUN.finditer(answer.question)}
    if before and _stem(before[-1]) in asked:
        return Finding("count_is_label", own.text)
    return None


def _total_finding(answer: Answer, own: _Sentence, passage: list[_Sentence]) -> Finding | None:
    """``count_part_of_total``: the count is a part or the total of an "X of Y" ("39 of the 43
    previous MVPs", "Of Grainger Town's 450 buildings, 244 are listed"), which the passage or the
    article may go on to tell ("most are listed"). ``count_sum_in_passage``: the count adds up with
    the passage's other counts ("540,800 in public schools and 311,800 in private" against "462,000 in
    primary and 390,000 in secondary"), so another count breaks the sum."""
    at = answer.start - own.start
    before, after = own.text[:at], own.text[at + len(answer.core) :]
    if _OF_AFTER.match(after) or _OF_BEFORE.search(before) or _OF_CLAUSE.search(before):
        return Finding("count_part_of_total", own.text)
    value = number_value(answer.core)
    if value < SUM_MINIMUM:
        return None
    siblings = [v for offset, v in _counts(own.text) if not at <= offset < at + len(answer.core)]
    items = [(s.text, v) for s in passage for _, v in _counts(s.text)] + [(own.text, v) for v in siblings]
    items = [(text, v) for text, v in items if v >= SUM_MINIMUM]
    first_sibling = len(items) - sum(v >= SUM_MINIMUM for v in siblings)

    def near(a: float, b: float) -> bool:
        return abs(a - b) <= SUM_TOLERANCE * max(a, b)

    for k in [None, *range(first_sibling, len(items))]:
        total = value + (items[k][1] if k is not None else 0.0)
        pool = [item for j, item in enumerate(items) if j != k]
        for (t1, x), (t2, y) in combinations(pool, 2):
            if near(total, x + y) or near(total + y, x) or near(total + x, y):
                return Finding("count_sum_in_passage", " ".join(dict.fromkeys([t1, t2])))
    return None


_SHARED: list[Believability] = []


def shared_believability(squad: Squad, entities: list[list[Entity]]) -> Believability:
    """One :class:`Believability` per SQuAD file and its entities, so that the builder's candidates and
    the build report read each article once."""
    if not (_SHARED and _SHARED[0].squad is squad and _SHARED[0].entities is entities):
        _SHARED[:] = [Believability(squad, entities)]
    return _SHARED[0]


# The classes of the blind reads at seeds 3434, 4949 and 5353 (issue 32): values that arithmetic ties to
# other numbers of the article, values that cannot be, and numbers that are part of a name.

_UNIT = (
    r"(?:sq\.?\s*mi|square\s+(?:miles?|kilomet(?:re|er)s?|feet|foot|metres?|meters?|yards?)|km2|km²|mi2|mi²|"
    r"m2|m²|ft2|ha|hectares?|acres?|km|mi|miles?|kilomet(?:re|er)s?|metres?|meters?|m|ft|feet|foot|"
    r"kg|kilograms?|lbs?|pounds?|tonnes?|tons?|°\s*[CF]|litres?|liters?|gallons?|mph|km/h|inch(?:es)?|cm|mm|"
    r"(?:(?:kilo|mega|giga|tera)?watts?|[kMGT]?W)(?:h|-hours?)?(?:\s*(?:per|/)\s*(?:square\s+met(?:re|er)|m2|m²))?)"
)
_UNIT_AT = re.compile(rf"^\s*-?\s*({_UNIT}|°|%|percent\b)", re.IGNORECASE)
"""A unit right after a number ("573-meter", "28° East", "61.1%")."""
_FINER = re.compile(rf"(?<![\w.,])(\d+\.\d+)\s*-?\s*({_UNIT}|°|%|percent\b)", re.IGNORECASE)
"""A number with decimals and its unit ("28.5°E", "4.7 km"): the same value at a finer precision than a whole
number of the same unit ("28° East")."""


def _unit_key(unit: str) -> str:
    """One spelling of a unit ("metres", "meter" and "m" stay apart; "°E" and "°" are degrees)."""
    key = re.sub(r"[\s.]", "", unit.lower()).replace("metre", "meter").replace("percent", "%")
    return key[:-1] if key.endswith("s") and len(key) > 2 else key


_NUMBER_WORD = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|sixty|"
    r"seventy|eighty|ninety|hundred|thousand|million|half|dozen)"
)
_CONVERTED_AFTER = re.compile(
    rf"^\s*(?:(?:to|–|-)\s*[\d,.]+\s*)?-?\s*{_UNIT}\s*(?:\(|\[|/|\bor\b)\s*"
    r"(?:about|approximately|c\.|some|nearly|over)?\s*\d",
    re.IGNORECASE,
)
_CONVERTED_BEFORE = re.compile(
    rf"(?:\d[\d,.]*|\b{_NUMBER_WORD})\s*-?\s*{_UNIT}\s*(?:\(|\[|/|\bor\b)\s*"
    r"(?:about|approximately|c\.|some|nearly|over)?\s*$",
    re.IGNORECASE,
)
"""A number written beside its conversion into another unit ("305 square miles (790 km2)", "1,160,000 square
miles (3,000,000 km2)", "86 km / 53 mi", "a 573-meter (1,880 ft) track"), on either side, the first of a
range too ("150 to 300 watts per square meter or 3.5 to 7.0 kWh/m2"), in digits or words ("the
five-foot-five inch (165 cm)")."""
_RATIO = re.compile(
    r"\bper\s+(?:square\s+)?(?:mile|kilomet|km\b|sq\b|capita|household|family|person|head|acre)"
    r"|/\s*(?:sq\.?\s*mi|km2|km²|mi2|mi²)\b",
    re.IGNORECASE,
)
"""A density or a ratio of two stated numbers ("4,097.9 people per square mile", "1,427.9/sq mi")."""
_PERCENT_OF = re.compile(_PERCENT.pattern + r"\s+of\b")
"""A share of a whole ("about 30 percent of the city's total population"), not a change ("12% greater")."""
TOTAL_SLACK = 0.15
"""A count within this share of a total that a count and its share imply elsewhere in the article is that
total ("350,000 … 30% of the city" for Warsaw's 1,300,000): its alternative stays within it, on the same
side of the total."""
SHARES_TOTAL = 1.0
"""Shares of a paragraph that add up to 100 within this many points split one whole (52% and 48%)."""
_DAY_BESIDE = re.compile(
    r"\b(?:" + "|".join(sorted(_CALENDAR, key=len, reverse=True)) + r")\s*$", re.IGNORECASE
)
_MONTH_AFTER = re.compile(
    r"^\s*(?:of\s+)?(?:" + "|".join(sorted(_CALENDAR, key=len, reverse=True)) + r")\b", re.IGNORECASE
)
_YEAR_BEFORE = re.compile(
    r"\b(?:in|since|until|till|by|from|after|before|around|circa|c\.|AD|CE|year)\s+$", re.IGNORECASE
)
_YEAR_AFTER = re.compile(
    r"^(?:\s*[,.;:)–—-]|\s+(?:and|or|to|as|when|after|before|until|the|a|an|AD|BC|CE|BCE|by|with|under)\b|\s*$)"
)
"""A number of three or four digits after "in", "since", "until" … and before no noun is a year ("began in
911 as a fiefdom"), whatever the answer's kind."""
_CENTURY = re.compile(
    r"\b(\d{1,2})(?:st|nd|rd|th)[\s-]+century\b|\b(" + "|".join(ORDINAL_WORDS[1:22]) + r")[\s-]+century\b",
    re.IGNORECASE,
)
_MEASURE_EVENT = re.compile(
    r"^\s*(?:-|\s)?\s*(?:m|km|metres?|meters?|-metre|-meter|yards?|yd|miles?|mi|kilomet(?:re|er)s?)\b[\s-]*"
    r"(?:hurdles?|dash|relay|freestyle|backstroke|breaststroke|butterfly|medley|individual\s+medley|sprint|"
    r"steeplechase|run|race|walk)\b",
    re.IGNORECASE,
)
"""A distance that names a conventional event ("110 m hurdles", "100-meter dash", "400 m freestyle")."""
_QUANTIFIERS = frozenset(
    {
        "about",
        "nearly",
        "over",
        "some",
        "around",
        "approximately",
        "almost",
        "roughly",
        "only",
        "just",
        "exactly",
        "circa",
        "under",
        "up",
        "at",
        "least",
        "most",
    }
)
_NAME_BEFORE = re.compile(r"(?<![\w’'-])([A-Z][\w’'.-]*)\s+$")
_TIME_NOUNS = frozenset({"year", "years", "time", "century", "decade", "day", "month", "week", "season"})


def _share_value(text: str) -> float:
    """The number of a percentage ("52%", "30 per cent": 52.0, 30.0)."""
    return float(re.match(r"\d+(?:\.\d+)?", text)[0])  # type: ignore[index]


def _ordinal_value(match: re.Match[str]) -> int:
    return int(match[1]) if match[1] else ORDINAL_WORDS.index(match[2].lower()) + 1


def _year_of(core: str, before: str, after: str) -> int | None:
    """The year that ``core`` is: a year answer, or a number of three or four digits that reads as a year
    where it stands ("in 911 as a fiefdom"), else ``None``."""
    if (
        re.fullmatch(r"\d{3,4}", core)
        and 100 <= int(core) <= 2100
        and (answer_form(core) == "year" or (_YEAR_BEFORE.search(before) and _YEAR_AFTER.match(after)))
    ):
        return int(core)
    return None


def _arithmetic_finding(
    answer: Answer, article: Article, own: _Sentence, passage: list[_Sentence], alternative: str
) -> Finding | None:
    """``arithmetic_tie``: the number can be recomputed from numbers that stay (a conversion beside it, shares
    that add up to a whole, a total that a count and its share elsewhere imply, a density of the paragraph,
    the same number again in its paragraph)."""
    if answer.kind != "quantity":
        return None
    at = answer.start - own.start
    before, after = own.text[:at], own.text[at + len(answer.core) :]
    if _CONVERTED_AFTER.match(after) or _CONVERTED_BEFORE.search(before):
        return Finding("arithmetic_tie", own.text)
    if _year_of(answer.core, before, after) is not None:
        return None
    old, new = number_value(answer.core), number_value(alternative)
    paragraph = [own, *passage]
    if _PERCENT.match(answer.core + after[:9]):
        shares = [
            _share_value(m[0])
            for s in paragraph
            for m in _PERCENT.finditer(s.text)
            if not (s is own and m.start() <= at < m.end())
        ]
        for k in (1, 2):
            for group in combinations(shares, k):
                if abs(old + sum(group) - 100) <= SHARES_TOTAL:
                    return Finding("arithmetic_tie", own.text)
        return _share_of_stated_total(article, own, at, answer.core, old, new)
    if old >= SUM_MINIMUM and "." not in answer.core:
        again = re.compile(rf"(?<![\w.,$£€:/–-]){re.escape(answer.core)}(?![\w%:/–-]|[.,]\d)")
        for sentence in paragraph:
            if any(sentence is not own or m.start() != at for m in again.finditer(sentence.text)):
                return Finding("arithmetic_tie", sentence.text)
    others = _paragraphs(article, own)
    if old >= 1000 and "." not in answer.core:
        # parts that another paragraph counts and that add up to the total ("39,200 active personnel" and
        # "Army 21,000 … Navy 10,700 … Air Force 7,500")
        for paragraph_sentences in others:
            parts = [v for s in paragraph_sentences for _, v in _counts(s.text) if SUM_MINIMUM <= v < old]
            if len(parts) > PARTS_LISTED:
                continue
            for k in range(2, min(PARTS_SUMMED, len(parts)) + 1):
                if any(sum(g) == old for g in combinations(parts, k)):
                    return Finding("arithmetic_tie", " ".join(s.text for s in paragraph_sentences))
    if "." not in answer.core and old == int(old):
        # a part that, with two or three other counts of its passage, adds up to a total another paragraph
        # states ("33 Coalition, 25 Labor and 18 crossbench" and "76 senators")
        mine = [v for s in paragraph for _, v in _counts(s.text) if v >= SUM_MINIMUM and v != old]
        totals = {v: s.text for group in others for s in group for _, v in _counts(s.text)}
        if len(mine) <= PARTS_LISTED:
            for k in range(2, min(PARTS_SUMMED - 1, len(mine)) + 1):
                for group in combinations(mine, k):
                    if old + sum(group) in totals and old + sum(group) >= 2 * SUM_MINIMUM:
                        return Finding("arithmetic_tie", totals[old + sum(group)])
    if old >= 1000 and not _RATIO.match(after[:40].lstrip(" )")):
        noun = _NOUN_AFTER.match(after)
        counted = {_stem(w) for w in noun[1].split()} - STOPWORDS if noun else set()
        for sentence in paragraph:
            # A density of what the number counts ("427,652 people" and "4,097.9 people per square mile").
            if _RATIO.search(sentence.text) and counted & {_stem(w) for w in tokens(sentence.text)}:
                return Finding("arithmetic_tie", sentence.text)
        for sentence in article.sentences:
            shares = [_share_value(m[0]) for m in _PERCENT_OF.finditer(sentence.text)]
            counts = [
                v for _, v in _counts(sentence.text) if v < old and v >= SUM_MINIMUM and v not in shares
            ]
            if not shares or not counts or sentence is own or not 0 < shares[0] < 100:
                continue
            total = counts[0] * 100 / shares[0]
            crossed = (old - total) * (new - total) < 0  # 1,300,000 and 1,000,000 about 1,166,667
            if abs(old - total) <= TOTAL_SLACK * total and (
                crossed or TOTAL_SLACK * total < abs(new - total)
            ):
                return Finding("arithmetic_tie", sentence.text)
    return None


def _share_of_stated_total(
    article: Article, own: _Sentence, at: int, core: str, old: float, new: float
) -> Finding | None:
    """A share stated beside a count of its sentence, where another sentence of the article states a
    total that the count is that share of, rounded as the share is ("80,000 Muslims, 13% of the
    population" and "a population of 630,383": 12.7%), and the new share is not."""
    places = len(core.split(".")[1].rstrip("%").split()[0]) if "." in core else 0
    slack = 0.5 * 10**-places
    shares = [(m.start(), m.end()) for m in _PERCENT.finditer(own.text)]
    counts = [
        v
        for start, v in _counts(own.text)
        if v >= SHARE_COUNT_MINIMUM and not any(a <= start < b for a, b in shares) and start != at
    ]
    for sentence in article.sentences:
        if sentence is own:
            continue
        for _, total in _counts(sentence.text):
            for count in counts:
                if total > count:
                    implied = count * 100 / total
                    if abs(implied - old) < slack <= abs(implied - new):
                        return Finding("arithmetic_tie", sentence.text)
    return None


SHARE_COUNT_MINIMUM = 1000
"""Least count a share beside it is read against the article's totals for (smaller counts and totals
match a rounded share by chance)."""
PARTS_SUMMED = 4
"""At most this many counts of a paragraph add up to a total (three branches of an army)."""
PARTS_LISTED = 12
"""A paragraph with more counts than this is not read for parts (too many sums match by chance)."""


def _paragraphs(article: Article, own: _Sentence) -> list[list[_Sentence]]:
    """The sentences of each paragraph of ``article`` but ``own``'s."""
    grouped: dict[int, list[_Sentence]] = {}
    for sentence in article.sentences:
        if sentence.paragraph != own.paragraph:
            grouped.setdefault(sentence.paragraph, []).append(sentence)
    return list(grouped.values())


def _impossible_finding(answer: Answer, article: Article, own: _Sentence, alternative: str) -> Finding | None:
    """``impossible_value``: a day of a month edited as a count ("March 37") or to a day the month has not,
    a year edited as a count or moved out of a century the article names ("the 10th century"), a distance
    that names a conventional event ("110 m hurdles")."""
    at = answer.start - own.start
    before, after = own.text[:at], own.text[at + len(answer.core) :]
    if answer.kind == "quantity" and (_DAY_BESIDE.search(before) or _MONTH_AFTER.match(after)):
        return Finding("impossible_value", own.text)
    if answer.kind == "date":
        day = _day_month(alternative) or _day_month(re.sub(r",?\s*\d{3,4}$", "", alternative.strip()))
        months = [names[-1].lower() for names in parserinfo.MONTHS]
        if (
            day is not None
            and day[1] in months
            and not 1 <= day[0] <= monthrange(2000, months.index(day[1]) + 1)[1]
        ):
            return Finding("impossible_value", own.text)
    year = _year_of(answer.core, before, after)
    if year is not None:
        if answer.kind == "quantity":
            return Finding("impossible_value", own.text)
        moved = int(number_value(alternative)) if re.fullmatch(r"\d{3,4}", alternative) else None
        if moved is not None and (moved - 1) // 100 != (year - 1) // 100:
            for sentence in article.sentences:
                if any(_ordinal_value(m) == (year - 1) // 100 + 1 for m in _CENTURY.finditer(sentence.text)):
                    return Finding("impossible_value", sentence.text)
    if _MEASURE_EVENT.match(after):
        return Finding("impossible_value", own.text)
    return None


_NAMED_OF = re.compile(r"\b([A-Z][a-z]+)\s+of\s+$")
"""A name that a year ends ("War of 1812", "Revolutions of 1848", "Panic of 1873", "Class of 1990")."""
_SEASONS = frozenset({"spring", "summer", "autumn", "fall", "winter", "end", "beginning", "start", "middle"})


def _name_number_finding(answer: Answer, article: Article, own: _Sentence) -> Finding | None:
    """``number_in_name``: the number is part of a name ("Super Bowl 50", "Apollo 11", "Route 66"): a
    capitalised word that is no quantifier, month or weekday stands right before it, inside the sentence or
    one the article writes as a name."""
    before = own.text[: answer.start - own.start]
    named = _NAMED_OF.search(before)
    if named and before[: named.start()].strip() and named[1].lower() not in _SEASONS | _CALENDAR:
        return Finding("number_in_name", own.text)  # "the War of 1812", "the Revolutions of 1848"
    match = _NAME_BEFORE.search(before)
    if not match:
        return None
    word = match[1].rstrip(".")
    low = word.lower()
    if _POSSESSIVE.search(word):  # "Harvard's 2,400 professors": a possessor, not a name with a number
        return None
    if low in STOPWORDS or low in _QUANTIFIERS or low in _CALENDAR or low in QUESTION_WORDS:
        return None
    if before[: match.start()].strip() or _name(word) in article.vocabulary:
        return Finding("number_in_name", own.text)
    return None


CHAIN_REACH = 2
"""A sentence of the answer's paragraph at most this many sentences from the answer's tells of its event
(``date_chain_article``: "In 1501, … he entered the University of Erfurt" two before "He received his
master's degree in 1505")."""
_RANGE_BEFORE = re.compile(r"(?:\bbetween|\bfrom|[–—-])\s*$")
_RANGE_AFTER = re.compile(r"^\s*(?:[–—-]|and\s+\d|to\s+\d)")


def _range_end(text: str, start: int, stop: int) -> bool:
    """The date at ``text[start:stop]`` is an end of a range ("between 1550 and 1580", "1856 – 7 January
    1943"), which dates no event of its own."""
    return bool(_RANGE_BEFORE.search(text[:start]) or _RANGE_AFTER.match(text[stop:]))


def _chain_finding(
    answer: Answer, article: Article, own: _Sentence, passage: list[_Sentence], alternative: str
) -> Finding | None:
    """``date_chain_article``: a sentence of another paragraph on the same things (two content words of the
    answer's sentence or of one at most two sentences from it, the article's topic names left out) dates an event inside the
    answer's year ("in Virginia in 1676", "in July 1505 … law school"), which the alternative leaves."""
    old, new = _answer_span(answer.core), _answer_span(alternative)
    if old is None or new is None:
        return None
    near = [
        s for s in passage if abs(article.sentences.index(s) - article.sentences.index(own)) <= CHAIN_REACH
    ]
    words = [stems(s.text) - article.every_topic for s in [own, *near]]
    for sentence in article.sentences:
        if sentence.paragraph == answer.paragraph:
            continue
        inside = [
            span
            for start, stop, span in date_spans(sentence.text)
            if _within(span, old) and not _within(span, new) and not _range_end(sentence.text, start, stop)
        ]
        if not inside:
            continue
        mine = stems(sentence.text)
        if any(len(mine & w) >= RESTATED_WORDS for w in words):
            return Finding("date_chain_article", sentence.text)
    return None


def _calendar_finding(answer: Answer, article: Article, own: _Sentence, alternative: str) -> Finding | None:
    """``date_fixed_calendar``: the answer's sentence or the next one names an event of a fixed calendar
    (:data:`FIXED_CALENDARS`: "an Olympic torch relay … the 1964 Tokyo edition", "supported a Democrat for
    president in 1992", "The first census …") whose calendar holds the answer's year and not the
    alternative's."""
    if answer.kind not in {"year", "date"}:
        return None
    old, new = _answer_span(answer.core), _answer_span(alternative)
    if old is None or new is None or old[0].year == new[0].year:
        return None
    at = article.sentences.index(own)
    near = [s for s in article.sentences[at : at + 2] if s.paragraph == own.paragraph]
    for calendar in FIXED_CALENDARS:
        named = [s for s in near if calendar.cue.search(s.text)]
        text = " ".join(s.text for s in near)
        if (
            named
            and not (calendar.not_with and calendar.not_with.search(text))
            and calendar.holds(old[0].year)
            and not calendar.holds(new[0].year)
        ):
            return Finding("date_fixed_calendar", named[0].text)
    return None


def proportion(text: str) -> float | None:
    """The share of a whole that ``text`` states first (:data:`_PROPORTION`), else ``None``.

    >>> proportion("placed most of its metropolitan population within the city limits")
    0.5
    >>> proportion("two-thirds of the seats"), proportion("the most populous city")
    (0.6666666666666666, None)
    """
    match = _PROPORTION.search(text)
    if match is None:
        return None
    return _PROPORTIONS.get(re.split(r"[\s-]", match["word"].lower())[-1], 0.5)


def _proportion_finding(
    answer: Answer, own: _Sentence, passage: list[_Sentence], alternative: str
) -> Finding | None:
    """``count_stated_proportion``: the answer's sentence states a proportion ("51% of the vote would lead to
    a clear majority") that a percentage alternative crosses, or its paragraph states one ("placed most of its
    metropolitan population within the city limits") that the ratio of the answer to another count of the
    paragraph (its "853,382") keeps and the alternative's crosses or comes within
    :data:`PROPORTION_MARGIN` of."""
    if answer.kind != "quantity":
        return None
    old, new = number_value(answer.core), number_value(alternative)
    at = answer.start - own.start
    if _PERCENT.match(answer.core + own.text[at + len(answer.core) :][:9]):
        share = proportion(own.text)
        if share is not None and (old - 100 * share) * (new - 100 * share) <= 0:
            return Finding("count_stated_proportion", own.text)
        return None
    stated = [(s, proportion(s.text)) for s in [own, *passage]]
    stated = [(s, share) for s, share in stated if share is not None]
    if not stated or old <= 0 or new <= 0:
        return None
    sentence, share = stated[0]
    others = [v for offset, v in _counts(own.text) if not at <= offset < at + len(answer.core)]
    others += [v for s in passage for _, v in _counts(s.text)]
    for count in others:
        before, after = min(count, old) / max(count, old), min(count, new) / max(count, new)
        if before < PROPORTION_LEAST or count == old:
            continue
        if (before - share) * (after - share) <= 0 or abs(after - share) < PROPORTION_MARGIN:
            return Finding("count_stated_proportion", sentence.text)
    return None


_RELATIVE_YEAR = re.compile(
    r"^\W*(?:(?:in|during|by)\s+)?(?:the\s+(?:following|next|same)\s+year|that\s+(?:same\s+)?year"
    r"|(?P<n>a|an|one|two|three|four|five|\d)\s+years?\s+later)\b",
    re.IGNORECASE,
)
"""A sentence that dates its event from the year of the sentence before it ("The following year, the Soviet
Union collapsed", "Two years later, …")."""


def relative_year(sentence: str, before: str) -> int | None:
    """The year a sentence dates from the last year of the sentence ``before`` it (:data:`_RELATIVE_YEAR`),
    else ``None``.

    >>> relative_year("The following year, the Soviet Union collapsed.", "Disturbances began in 1990.")
    1991
    >>> relative_year("Two years later, it closed.", "It opened in 1850 and 1861."), relative_year("It closed.", "1850")
    (1863, None)
    """
    match = _RELATIVE_YEAR.match(sentence)
    years = [span[0].year for _, _, span in date_spans(before) if span[0].year == span[1].year]
    if match is None or not years:
        return None
    word = (match["n"] or "").lower()
    step = (
        1
        if word in {"a", "an", "one"}
        else int(word)
        if word.isdigit()
        else number_value(word)
        if word
        else 0
    )
    if not word:
        step = 0 if re.search(r"\bsame\b|\bthat\s+year", match.group(), re.IGNORECASE) else 1
    return years[-1] + int(step)


def _relative_finding(answer: Answer, article: Article, own: _Sentence) -> Finding | None:
    """``date_relative_tied``: a sentence of the article on the same event (a name of the answer's sentence
    besides the article's topic, or two of its content words) dates it from the sentence before ("Real
    disturbances did not occur … until 1990. The following year, the Soviet Union collapsed, and Tajikistan
    declared its independence") to the answer's year: the arithmetic fixes it."""
    held = _answer_span(answer.core)
    if held is None or held[0].year != held[1].year:
        return None
    named = own.names - article.every_topic
    words = stems(own.text) - stems(answer.core) - article.every_topic
    for before, sentence in zip(article.sentences, article.sentences[1:], strict=False):
        if sentence is own or sentence.paragraph != before.paragraph:
            continue
        if not (sentence.names & named or len(stems(sentence.text) & words) >= RESTATED_WORDS):
            continue
        if relative_year(sentence.text, before.text) == held[0].year:
            return Finding("date_relative_tied", sentence.text)
    return None


_GROUPS = re.compile(
    r"\b(?P<n>\d+|" + "|".join(NUMBER_WORDS) + r")\s+(?:groups|teams|sets|heats|pools|divisions|rounds|squads"
    r"|batches|rows|classes|units|flights|waves)\s+of\s+(?P<m>\d+|" + "|".join(NUMBER_WORDS) + r")\b",
    re.IGNORECASE,
)
"""A count stated as a product ("three groups of ten", "four teams of 5")."""


def _product_finding(answer: Answer, article: Article, own: _Sentence) -> Finding | None:
    """``count_product_stated``: another sentence of the article states the count as a product ("In season
    one, there were three groups of ten" semi-finalists beside "These were cut to 30 for the semifinal"):
    the arithmetic fixes it."""
    value = number_value(answer.core)
    for sentence in article.sentences:
        if sentence is own:
            continue
        for match in _GROUPS.finditer(sentence.text):
            if number_value(match["n"]) * number_value(match["m"]) == value:
                return Finding("count_product_stated", sentence.text)
    return None


@dataclass(frozen=True)
class Era:
    """A named span of years a reader knows without the article (``date_named_era``)."""

    name: re.Pattern[str]
    first: int
    last: int


NAMED_ERAS: tuple[Era, ...] = (
    Era(re.compile(r"\b(?:Second World War|World War II|WWII)\b"), 1939, 1945),
    Era(re.compile(r"\b(?:First World War|World War I|WWI|Great War)\b(?!I)"), 1914, 1918),
    Era(re.compile(r"\bEnglish Civil Wars?\b"), 1642, 1651),
    Era(re.compile(r"\bAmerican Civil War\b"), 1861, 1865),
    Era(re.compile(r"\b(?:American Revolutionary War|American War of Independence)\b"), 1775, 1783),
    Era(re.compile(r"\bKorean War\b"), 1950, 1953),
    Era(re.compile(r"\bSeven Years' War\b|\bSeven Years War\b"), 1756, 1763),
    Era(re.compile(r"\bThirty Years' War\b|\bThirty Years War\b"), 1618, 1648),
)
"""Named wars whose years a reader knows: one declaration each."""
_ERA_RELATION = re.compile(
    r"\b(after|following|since|during|in|throughout|before|until|prior to)\s+(?:the\s+)?$", re.IGNORECASE
)


def _era_side(year: int, era: Era, relation: str) -> bool:
    """``year`` keeps ``relation`` ("after", "during", "before") to ``era``."""
    if relation in {"after", "following", "since"}:
        return year >= era.last
    if relation in {"before", "until", "prior to"}:
        return year <= era.first
    return era.first <= year <= era.last


def _era_finding(
    answer: Answer, own: _Sentence, passage: list[_Sentence], alternative: str
) -> Finding | None:
    """``date_named_era``: the answer's sentence or paragraph places its events after, during or before a
    named war (:data:`NAMED_ERAS`: "The first comprehensives were set up after the Second World War",
    "in 1642, during the English Civil War") that the answer's year keeps and the alternative's leaves."""
    old, new = _answer_span(answer.core), _answer_span(alternative)
    if answer.kind not in {"year", "date"} or old is None or new is None:
        return None
    for sentence in [own, *passage]:
        for era in NAMED_ERAS:
            for match in era.name.finditer(sentence.text):
                relation = _ERA_RELATION.search(sentence.text[: match.start()])
                if relation is None:
                    continue
                how = relation[1].lower()
                if _era_side(old[0].year, era, how) and not _era_side(new[0].year, era, how):
                    return Finding("date_named_era", sentence.text)
    return None


_AGE = re.compile(r"(?:^-year-old|^\s*years?\s+old)|(?:\baged\s+|\bage\s+of\s+)$")
_AGE_ANYWHERE = re.compile(r"\b\d{1,3}-year-old\b|\baged\s+\d{1,3}\b|\bage\s+of\s+\d{1,3}\b")
_SHARE_AFTER = re.compile(
    r"^[^.;]{0,40}?\b(?:an?|the)\s+(?:increase|decrease|rise|fall|drop|growth|gain|loss|decline)\s+of\s+"
    r"\d+(?:\.\d+)?\s*(?:%|percent|per cent)"
)
_RECORD = re.compile(r"^\s*(?:wins?|losses|ties|victories|defeats|draws)\b", re.IGNORECASE)
_WIN_SHARE = re.compile(r"\bwinning (?:percentage|record)\b|\bwin percentage\b|(?<![\d])\.\d{3}\b")


def _tied_count_finding(
    answer: Answer, article: Article, own: _Sentence, passage: list[_Sentence]
) -> Finding | None:
    """``count_tied_in_sentence``: a count that a figure beside it restates: its own share ("will increase by
    289,000 people …, an increase of 18.8%"), a win-loss record beside its winning percentage ("105 wins,
    12 losses, and five ties" and ".881"), or an age where the article states the person's age at another
    date ("the 21-year-old Major George Washington" in October 1753, "22-year-old" in May 1754)."""
    if answer.kind != "quantity":
        return None
    at = answer.start - own.start
    before, after = own.text[:at], own.text[at + len(answer.core) :]
    if _SHARE_AFTER.match(after):
        return Finding("count_tied_in_sentence", own.text)
    if _RECORD.match(after):
        for sentence in [own, *passage]:
            if _WIN_SHARE.search(sentence.text):
                return Finding("count_tied_in_sentence", sentence.text)
    if _AGE.search(after[:12]) or _AGE.search(before[-12:]):
        named = own.names - article.topic
        for sentence in article.sentences:
            if (
                sentence is not own
                and sentence.names & (named or own.names)
                and _AGE_ANYWHERE.search(sentence.text)
            ):
                return Finding("count_tied_in_sentence", sentence.text)
    return None
