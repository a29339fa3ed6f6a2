"""A small, deterministic sentence splitter that keeps character offsets, so spans stay verbatim.

>>> text = "Dr. J. Smith came in 1901. He left in 1910! The U.S. Army stayed. Aged 5. Then 6."
>>> [text[s:e] for s, e in sentence_spans(text)]
['Dr. J. Smith came in 1901.', 'He left in 1910!', 'The U.S. Army stayed.', 'Aged 5.', 'Then 6.']
>>> [len(sentence_spans(t)) for t in ("Then came president Fr. Walsh in 1922.", "Sen. Byrd and Warner Bros. Pictures met.")]
[1, 1]
"""

from __future__ import annotations

import re
from functools import lru_cache

ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "st",
        "jr",
        "sr",
        "vs",
        "etc",
        "inc",
        "co",
        "ltd",
        "corp",
        "gen",
        "gov",
        "lt",
        "col",
        "sgt",
        "capt",
        "mt",
        "ft",
        "no",
        "vol",
        "rev",
        "est",
        "approx",
        "ca",
        "c",
        "fig",
        "al",
        "op",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "u.s",
        "u.k",
        "e.g",
        "i.e",
        "a.d",
        "b.c",
        # titles before a name, of clergy, office and rank ("college president Fr. Matthew Walsh")
        "fr",
        "msgr",
        "sen",
        "rep",
        "pres",
        "hon",
        "adm",
        "maj",
        "brig",
        "cmdr",
        "supt",
        "atty",
        "mme",
        "mlle",
        "messrs",
        # abbreviations inside names and addresses ("Warner Bros. Pictures", "Pharm. D.", "Fifth Ave.")
        "bros",
        "pharm",
        "ave",
        "blvd",
        "dept",
        "univ",
    ]
)
"""Words that end in a period without ending a sentence (lower-case, without the final period): a
title before a name, a month, a word abbreviated inside a name or address; a class, not the words one
passage held (issue 32's read: a window cut after "college president Fr.")."""

_BOUNDARY = re.compile(r"[.!?][\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-Z0-9])")
_LAST_WORD = re.compile(r"([\w.]+)\.$")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of each sentence in ``text``, white space excluded."""
    return list(_spans(text))


@lru_cache(maxsize=8192)
def _spans(text: str) -> tuple[tuple[int, int], ...]:
    """:func:`sentence_spans`, cached: a build asks for the spans of one paragraph many times."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.end() - len(match.group()) + len(match.group().rstrip())
        last = _LAST_WORD.search(text[start : match.start() + 1])
        if last and (
            last.group(1).lower() in ABBREVIATIONS or (len(last.group(1)) == 1 and last.group(1).isalpha())
        ):
            continue
        spans.append((start, end))
        start = match.end()
    if text[start:].strip():
        spans.append((start, len(text.rstrip())))
    return tuple(spans)


def sentence_at(text: str, offset: int) -> tuple[int, int]:
    """The span of the sentence that holds character ``offset``."""
    for start, end in sentence_spans(text):
        if start <= offset < end:
            return start, end
    raise ValueError(f"offset {offset} is outside every sentence")
