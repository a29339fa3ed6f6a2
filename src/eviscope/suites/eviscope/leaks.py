"""The leak check: whether a passage shown beside (or instead of) the support answers the question.

Contract §2 guarantees that apart from the support passage no document of a ``noisy``,
``insufficient`` or ``conflicting`` row holds a gold alias. The suite's normalization (contract §1)
is not enough to see every alias: it drops punctuation, so a range "1754–1763" becomes the one token
``17541763`` and holds neither year. The leak check reads a passage more strictly, and a passage
that fails it is never shown as a related, same-article or other-article passage. Each reason has
an id (:data:`LEAK_REASONS`), counted in the build report. The builder
(:mod:`eviscope.builders.eviscope.retrieval`) checks every passage it shows; the contextualization
guard (:mod:`eviscope.suites.eviscope.row_context`) checks every neighbouring paragraph it adds.

>>> leak("When did the war end?", ["1763"], "The French and Indian War (1754–1763) was a war.", False)
'alias_after_splitting'
>>> leak("How many manned missions did Skylab support?", ["3"], "Skylab supported three manned missions.", False)
'alias_after_splitting'
>>> leak("How much does the services sector contribute to GDP?", ["61%"],
...      "Services now contribute 62% of GDP. Farming is 22%.", True)
'answer_type_value'
>>> leak("When was King George's war?", ["1740s"], "King George's War formally ended in 1748.", True)
'answer_type_value'
>>> leak("When was King George's war?", ["1740s"], "King George's War formally ended in 1748.", False) is None
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from eviscope.core.normalize import QUESTION_WORDS, tokens
from eviscope.core.sentences import sentence_spans

NUMBER_WORDS = [
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]
"""Numbers written as words, from two ("one" is left alone: it is also a pronoun). The leak check
reads them as digits; a conflict edit may change them (:mod:`eviscope.builders.eviscope.answer_forms`)."""

LEAK_REASONS: dict[str, str] = {
    "alias_after_splitting": (
        "the passage holds a gold alias once ranges and dashes are split (1754–1763: 1754 and 1763; "
        "1973–74: 1973 and 1974), number words are read as digits (three: 3) and % as percent"
    ),
    "answer_type_value": (
        "a same-article passage whose sentence sharing at least three quarters of the question's content words "
        "holds a value of the gold's type (a year or decade for a year, a year or month for a date, a "
        "percentage for a percentage, a number for a number, a name for a name)"
    ),
}
"""Why a passage answers the question, by id: the reasons the leak check rejects a passage."""

_SHORT_RANGE = re.compile(r"\b(\d{2})(\d{2})\s*[–—‐-]\s*(\d{2})\b(?![\d,.])")
_DIGIT_DASH = re.compile(r"(?<=\d)\s*[–—‐/-]\s*(?=\d)")
_DASH = re.compile(r"[–—‐]")
_PERCENT = re.compile(r"\s*%|\s*\bper\s?cent\b", re.IGNORECASE)
_DIGITS_OF_WORD = {word: str(value) for value, word in enumerate(NUMBER_WORDS, 2)}


_ANY_SPLIT = re.compile(r"[–—‐%]|(?<=\d)\s*[/-]|\bper\s?cent\b", re.IGNORECASE)


@lru_cache(maxsize=16384)
def _split(text: str) -> str:
    """``text`` with ranges split ("1973–74" → "1973 1974", "1754–1763" → "1754 1763"), dashes spaced
    and % written as " percent"."""
    if not _ANY_SPLIT.search(text):
        return text
    text = _SHORT_RANGE.sub(lambda m: f"{m[1]}{m[2]} {m[1]}{m[3]}", text)
    return _PERCENT.sub(" percent", _DASH.sub(" ", _DIGIT_DASH.sub(" ", text)))


@lru_cache(maxsize=16384)
def leak_tokens(text: str) -> tuple[str, ...]:
    """The contract §1 tokens of ``text`` once :func:`_split`, with number words as digits.

    >>> leak_tokens("The war (1754–1763) cost 62% and three lives.")
    ('war', '1754', '1763', 'cost', '62', 'percent', 'and', '3', 'lives')
    """
    return tuple(_DIGITS_OF_WORD.get(token, token) for token in tokens(_split(text)))


@lru_cache(maxsize=16384)
def _padded(text: str) -> str:
    return " " + " ".join(leak_tokens(text)) + " "


def holds_alias(text: str, aliases: Sequence[str]) -> bool:
    """Some alias's :func:`leak_tokens` are a contiguous run of the text's."""
    hay = _padded(text)
    return any(len(needle := _padded(alias)) > 2 and needle in hay for alias in aliases)


_YEAR = r"\b(?:1\d{3}|20\d{2})(?:s|’s|'s)?\b"
_MONTH = (
    r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December|"
    r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\b\.?"
)
_NUMBER = r"(?<![\w.,])\d+(?:[.,]\d+)*\b|\b(?i:" + "|".join(NUMBER_WORDS) + r")\b"
_VALUES = {
    "year": re.compile(_YEAR),
    "date": re.compile(f"{_YEAR}|{_MONTH}"),
    "percent": re.compile(r"\d\s*%|\d\s*per\s?cent\b|\bpercent\b", re.IGNORECASE),
    "number": re.compile(_NUMBER),
    "name": re.compile(r"(?<=[\s(“\"‘'])[A-Z][\w’'-]+"),
}
"""A value of each gold type, as it stands in a sentence."""


_DATE_WORDS = re.compile(rf"{_MONTH}|\b\d{{2,3}}0s\b|(?i:\bcentur(?:y|ies)\b)")


@lru_cache(maxsize=4096)
def _gold_type(aliases: tuple[str, ...]) -> str:
    """``year``, ``date``, ``percent``, ``number`` or ``name``: the type of the shortest alias.

    >>> [_gold_type((a,)) for a in ("1763", "10 February 1763", "1740s", "61%", "three museums", "Tesla")]
    ['year', 'date', 'date', 'percent', 'number', 'name']
    """
    core = min(aliases, key=len).strip()
    if re.fullmatch(r"(?:1\d{3}|20\d{2})", core):
        return "year"
    if _DATE_WORDS.search(core):
        return "date"
    if re.match(r"[$£€]?\d|(?i:" + "|".join(NUMBER_WORDS) + r")\b", core):
        return "percent" if re.search(r"%|\bper\s?cent\b", core, re.IGNORECASE) else "number"
    return "name"


NOT_CONTENT = QUESTION_WORDS | {"year", "years", "date", "first", "name", "number", "percent", "percentage"}
"""Words that say what kind of answer a question asks for, not what it is about: the suite's
:data:`~eviscope.core.normalize.QUESTION_WORDS` and the names of answer kinds."""


@lru_cache(maxsize=4096)
def _asked(question: str) -> tuple[frozenset[str], frozenset[str]]:
    """The question's content words (:data:`NOT_CONTENT` dropped) and all its words."""
    return frozenset(leak_tokens(question)) - NOT_CONTENT, frozenset(tokens(question))


@lru_cache(maxsize=4096)
def _sentences(text: str) -> tuple[tuple[str, frozenset[str], str], ...]:
    """Each sentence of ``text``, the first one to five letters of each of its :func:`leak_tokens`,
    and its :func:`_split` form."""
    out = []
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        prefixes = frozenset(w[:n] for w in leak_tokens(sentence) for n in range(1, 6))
        out.append((sentence, prefixes, _split(sentence)))
    return tuple(out)


def _shares(content: frozenset[str], prefixes: frozenset[str]) -> bool:
    """The sentence (its words' first one to five letters, ``prefixes``) holds at least three
    quarters of the question's ``content`` words, by their first five letters ("launched" for
    "launch", "agricultural" for "agriculture")."""
    shared = sum(c[:5] in prefixes for c in content)
    return bool(content) and 4 * shared >= 3 * len(content)


def answer_type_sentence(question: str, aliases: Sequence[str], text: str) -> str | None:
    """The first sentence of ``text`` that shares the question's content words and holds a value of
    the gold's type (:data:`LEAK_REASONS` ``answer_type_value``), or ``None``."""
    content, asked = _asked(question)
    kind = _gold_type(tuple(aliases))
    for sentence, prefixes, split in _sentences(text):
        if not _shares(content, prefixes):
            continue
        for match in _VALUES[kind].finditer(split):
            value = match.group()
            if kind == "number" and re.fullmatch(r"1\d{3}|20\d{2}", value):
                continue  # a year is no count
            if kind == "name" and set(tokens(value)) <= asked:
                continue  # a name the question names is not an answer to it
            return sentence
    return None


def leak(question: str, aliases: Sequence[str], text: str, same_article: bool) -> str | None:
    """Why ``text`` would answer the question (a key of :data:`LEAK_REASONS`), or ``None``.

    Every passage is checked for a gold alias (:func:`holds_alias`); a passage of the question's own
    article also for a sentence that answers it with another value (:func:`answer_type_sentence`).
    """
    if holds_alias(text, aliases):
        return "alias_after_splitting"
    if same_article and answer_type_sentence(question, aliases, text) is not None:
        return "answer_type_value"
    return None
