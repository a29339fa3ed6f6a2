"""Believable same-type alternatives to a base question's core answer, most believable first
(:func:`_alternatives`): years, dates and numbers made from the core, person names from the same
article's role words (:class:`_NamePool`)."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from eviscope.builders.eviscope.answer_forms import (
    NUMBER_WORDS,
    answer_form,
    number_value,
    substitute_number,
    substitute_year,
)
from eviscope.builders.eviscope.answer_types import Entity
from eviscope.builders.eviscope.date_forms import date_alternatives, parse_date
from eviscope.builders.eviscope.eligibility import _Eligible
from eviscope.builders.eviscope.surface_types import TITLES
from eviscope.core.normalize import STOPWORDS, contains, tokens
from eviscope.core.sentences import sentence_at
from eviscope.suites.eviscope.squad_source import Squad

_NUMBER_IN_TEXT = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.,])\d+(?:\.\d+)?")


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


@dataclass(frozen=True)
class Moves:
    """How far a config's alternative may move from the answer (:func:`_alternatives`).

    The defaults are the paper's construction (``v1.1`` keeps them): a year within ten years, a number
    within 40%. :data:`NEAR_MOVES` is ``eviscope-xl``'s, from the strict whole-article reads: the
    alternatives a reader did not believe had moved far (Tesla in Budapest 1881 → 1872, the American
    colonies lost 1776 → 1785, the Wesleys in Georgia 1735 → 1728, the last 7–4–2–3 graduates 1992 →
    1986; Tesla's patent 1,655,114 → 2,289,197, Fresno 494,665 → 425,403, Los Angeles 3,792,621 →
    3,380,585, 96.26% → 69.26%, 61.1% → 44.1% Christian) or counted a few well-known things (Maxwell's
    4 → 5 vector equations, each electorate's five → six members), where the article or a reader's
    general knowledge pins the value; a small move at the same precision leaves it in place.
    """

    years: int = 10
    """A year moves at most this many years."""
    share: float | None = None
    """A number moves at most this share of its value (``None``: the paper's 40%)."""
    precise_share: float | None = None
    """A number of :data:`PRECISE_DIGITS` significant digits or more moves at most this share."""
    points: float | None = None
    """A percentage moves at most this many points."""
    least_count: int = 0
    """A count below this (a few named things) is not edited."""


PRECISE_DIGITS = 3
"""A number with this many significant digits or more is a precise figure ("781", "494,665", "61.1%")."""
PAPER_MOVES = Moves()
NEAR_MOVES = Moves(years=2, share=0.2, precise_share=0.05, points=5.0, least_count=10)


def significant_digits(number: str) -> int:
    """How many significant digits a number answer writes.

    >>> significant_digits("3,792,621"), significant_digits("60,000"), significant_digits("61.1%")
    (7, 1, 3)
    """
    written = re.sub(r"[^\d.]", "", number.split(" ")[0])
    digits = written.replace(".", "").lstrip("0")
    return len(digits) if "." in written else len(digits.rstrip("0"))


_PERCENT_AFTER = re.compile(r"\s?(?:%|percent\b|per cent\b)")


def is_percentage(core: str, after: str) -> bool:
    """``core`` is a percentage, by its own sign or word or by the text ``after`` it ("71" in "71%")."""
    return "%" in core or "percent" in core or _PERCENT_AFTER.match(after) is not None


def spread(core: str, moves: Moves, percentage: bool = False) -> float | None:
    """The share of its value that ``core`` (a ``percentage`` or not) may move under ``moves``."""
    if moves.share is None:
        return None
    value = number_value(core)
    allowed = moves.share
    if moves.precise_share is not None and significant_digits(core) >= PRECISE_DIGITS:
        allowed = min(allowed, moves.precise_share)
    if moves.points is not None and (percentage or is_percentage(core, "")) and value:
        allowed = min(allowed, moves.points / value)
    return allowed


def _near_options(
    core: str, kind: str, moves: Moves, rng: random.Random, percentage: bool = False
) -> list[str]:
    """The alternatives of a year or number (a ``percentage`` or not) within ``moves``, before the order checks."""
    if kind == "year":
        year = int(core)
        near = range(year - moves.years, year + moves.years + 1)
        return [str(v) for v in near if v != year and 1000 <= v <= 2016]
    if number_value(core) < moves.least_count:
        return []
    try:
        return sorted({substitute_number(core, rng, spread(core, moves, percentage)) for _ in range(16)})
    except ValueError:
        return []


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
    item: _Eligible,
    context: str,
    title: str,
    rng: random.Random,
    names: _NamePool,
    moves: Moves = PAPER_MOVES,
) -> list[str]:
    """Same-type alternatives to the core, most believable first, that the support does not state.

    A year stays within ten years, no later than the passage's latest year, in the same order to every
    year of the passage; a date keeps its form within the window of its kind, in the same order to
    every date and year of the passage (:func:`~eviscope.builders.eviscope.date_forms.date_alternatives`),
    keeping any part of it the question names and adding none; a number keeps its form, roundness and order to every other number of its
    sentence (a part stays below its total). ``moves`` (:class:`Moves`) says how far a year or number may
    move. A name comes from :meth:`_NamePool.options`, with a
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
        census = item.type == "year" and re.match(
            r"^[^.;]{0,30}\b[Cc]ensus\b", context[item.core_start + len(item.core) :]
        )

        def keep(found: list[str]) -> list[str]:
            found = [o for o in found if usable(o) and _keeps_order(item.core, o, others)]
            if item.type == "year":
                latest = max([int(item.core), *(x for x in others if x == int(x))])
                found = [o for o in found if int(o) <= latest]
                if census:
                    found = [o for o in found if int(o) % 10 == int(item.core) % 10]  # censuses are decennial
            if "%" in item.core or "percent" in item.core:
                found = [o for o in found if number_value(o) <= 100]
            return found

        if item.type == "year" and not 990 <= int(item.core) <= 2026:
            return []  # no other year within ten years lies in the corpus's past (substitute_year)
        make = substitute_year if item.type == "year" else substitute_number
        options = keep(sorted({make(item.core, rng) for _ in range(16)}))
        rng.shuffle(options)
        if moves == PAPER_MOVES:
            return options
        # The paper's options that stay near come first, in the paper's order (a quartet whose
        # alternative was already near keeps it), then the other near ones.
        percentage = is_percentage(item.core, context[item.core_start + len(item.core) :])
        near = keep(_near_options(item.core, item.type, moves, rng, percentage))
        rng.shuffle(near)
        return [o for o in options if o in near] + [o for o in near if o not in options]
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
