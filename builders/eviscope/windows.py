"""A balanced config's (``eviscope-xl``) conflict windows: a window of whole sentences around the
edited one (:func:`conflict_window`) that stands alone (:func:`window_problem`), cut to a drawn length
gap (:func:`gap_target`); the copies of :mod:`~eviscope.builders.eviscope.near_duplicates` are cut to
the same gap, so that neither lengths nor length gaps tell the variants apart
(:mod:`eviscope.suites.eviscope.shortcuts`)."""

from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING

from eviscope.builders.eviscope.conflict_lints import (
    ConflictCase,
    run_lints,
    substituted_phrase,
    without_cue_sentences,
)
from eviscope.builders.eviscope.eligibility import _NAME, _POINTS_BACK, _occurrences
from eviscope.core.normalize import STOPWORDS, tokens
from eviscope.core.sentences import sentence_spans
from eviscope.suites.eviscope.squad_source import Squad

if TYPE_CHECKING:
    from eviscope.builders.eviscope.candidates import Candidate


_CONNECTIVE = re.compile(
    r"^[\"'“‘(]?(?:Besides|However|Finally|Further|Furthermore|Afterwards?|Subsequently|Indeed|Notably|"
    r"Nonetheless|Also|Thus|In addition|After (?:this|that)|At that time|By then|Until then|Since then|"
    r"Even so|In the end|Ultimately|Overall|Here|There(?:after|fore|by)|Other|Such|Similar|Each|Both)\b"
    r"|^[\"'“‘(]?(?:He|She|It|They|We|This|These|Those|That|Its|Their|His|Her|Them|Him)\b"
)
"""A window's first sentence that leans on the cut sentences before it (besides :data:`_POINTS_BACK`): a
connective ("Besides, … there are also:", "However", "In addition") or a pronoun or demonstrative
opening it."""
_DEFINITE = re.compile(r"\b[Tt]he\s+([a-z][a-z-]{2,})(?:\s+([a-z][a-z-]{2,}))?")
_NEEDS_EVENT = frozenset(
    [
        "perpetrators",
        "victims",
        "survivors",
        "attackers",
        "assailants",
        "culprits",
        "killers",
        "rioters",
        "defenders",
        "mourners",
        "aftermath",
        "incident",
        "affair",
        "latter",
        "former",
        "remainder",
        "rest",
    ]
)
"""Heads of a definite description that always refer back to an event or a set named before ("An amnesty
granted in 1574 pardoned the perpetrators": of the massacre the window cut)."""
_ENUMERATION = re.compile(
    r"^\W*(?:First(?:ly)?|Second(?:ly)?|Third(?:ly)?|Fourth(?:ly)?|Fifth(?:ly)?|Next|Lastly|Finally|"
    r"\d{1,2}[.)]|\([a-z0-9]\))(?:\W|$)"
)
"""A sentence that opens an item of an enumeration ("First, …", "Lastly, …", "(2) …")."""


def _stem(word: str) -> str:
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def _inside_quotation(text: str, at: int) -> bool:
    """``text[at]`` stands inside a quotation that opened before it (an odd number of straight double
    quotes, or more “ than ” before it)."""
    before = text[:at]
    return before.count('"') % 2 == 1 or before.count("“") > before.count("”")


def window_problem(text: str, spans: list[tuple[int, int]], first: int, last: int) -> str | None:
    """Why the run of sentences ``spans[first : last + 1]`` of ``text`` does not stand alone, or ``None``.

    Its first sentence, where a sentence before it is cut, opens on no connective, pronoun or
    demonstrative (:data:`_POINTS_BACK`, :data:`_CONNECTIVE`), and names no definite description ("the
    massacre", "the perpetrators") whose head the window has not named but the cut part has, or that
    always refers back (:data:`_NEEDS_EVENT`); no cut falls inside a quotation; the window neither ends
    on a sentence that announces a list (``:``) nor cuts an enumeration (:data:`_ENUMERATION`).

    >>> text = "In 1572 the massacre began. An amnesty granted in 1574 pardoned the perpetrators. It held."
    >>> spans = sentence_spans(text)
    >>> window_problem(text, spans, 1, 1), window_problem(text, spans, 0, 1)
    ('cut_referent', None)
    >>> window_problem("Parks grew. Besides, there are also: A, B and C. Zoos came in 1927.", [(0, 11), (12, 47), (48, 67)], 1, 2)
    'opens_on_connective'
    >>> text = 'He said "We won. We will win in 1920." Then he left.'
    >>> window_problem(text, sentence_spans(text), 0, 0)
    'cuts_quotation'
    """
    start, end = spans[first][0], spans[last][1]
    opening = text[start : spans[first][1]]
    if _inside_quotation(text, start) or _inside_quotation(text, end):
        return "cuts_quotation"
    if first:
        if _POINTS_BACK.match(opening) or _CONNECTIVE.match(opening):
            return "opens_on_connective"
        cut = {_stem(w) for w in tokens(text[:start])} - STOPWORDS
        for match in _DEFINITE.finditer(opening):
            said = {_stem(w) for w in tokens(opening[: match.start()])}
            heads = [w for w in match.groups() if w and w not in STOPWORDS]
            if any(h in _NEEDS_EVENT or (_stem(h) in cut and _stem(h) not in said) for h in heads[:1]):
                return "cut_referent"
        if _ENUMERATION.match(opening) or text[: spans[first - 1][1]].rstrip("”\"' )").endswith(":"):
            return "cuts_list"
    if text[start:end].rstrip("”\"' )").endswith(":"):
        return "cuts_list"
    if last + 1 < len(spans) and _ENUMERATION.match(text[spans[last + 1][0] : spans[last + 1][1]]):
        return "cuts_list"
    return None


GAP_RANGE = (0.05, 0.35)
"""The length gaps a balanced config draws, uniformly, for its conflict windows (a window is at least
a sentence shorter than its passage, so the range starts well above 0)."""


WHOLE_GAP = 0.01
"""A length gap at most this small is a whole passage's (its edit alone changes its length): a window
or a copy cut to it is the whole passage, else the nearest shorter one."""


def gap_target(seed: int, question_id: str) -> float:
    """The length gap drawn for a question's conflict window (:data:`GAP_RANGE`); its second
    same-article passage is then chosen as much shorter than the support as the window is, so that
    neither the gap between two same-article passages nor their lengths tell a variant apart
    (:mod:`eviscope.suites.eviscope.shortcuts`)."""
    return random.Random(f"{seed}:{question_id}:gap").uniform(*GAP_RANGE)


def _gap(a: int, b: int) -> float:
    """The relative length difference of two texts (as the shortcut audit measures it)."""
    return abs(a - b) / max(a, b, 1)


def conflict_window(squad: Squad, candidate: Candidate, gap: float) -> tuple[str, str] | None:
    """The run of whole sentences of the repaired conflict passage, holding the edited sentence, whose
    length gap to the support is nearest ``gap``, and the same run of the support: a window that stands
    alone (:func:`window_problem`), else the whole passage; ``None`` where none passes the lints.

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
    if old is None:
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
            if (first, last) != (0, len(spans) - 1) and window_problem(text, spans, first, last) is None:
                length = spans[last][1] - spans[first][0]
                options.append((abs(_gap(len(support), length) - gap), first, last))
    # Where no shorter window stands alone, the whole passage; first where the gap asked is a whole one's.
    whole = [(0.0, 0, len(spans) - 1)]
    for _, first, last in whole + sorted(options) if gap <= WHOLE_GAP else [*sorted(options), *whole]:
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
