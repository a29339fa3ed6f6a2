"""A balanced config's (``eviscope-xl``) conflict windows and length-matched same-article passages:
a window of whole sentences around the edited one (:func:`conflict_window`), a drawn length gap
(:func:`gap_target`), and the two same-article passages that stand to each other as the support and
its window do (:func:`_balanced_pair`), so that neither lengths nor length gaps tell the variants
apart (:mod:`eviscope.suites.eviscope.shortcuts`)."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from eviscope.builders.eviscope.conflict_lints import (
    ConflictCase,
    run_lints,
    substituted_phrase,
    without_cue_sentences,
)
from eviscope.builders.eviscope.eligibility import _NAME, _POINTS_BACK, _occurrences
from eviscope.core.sentences import sentence_spans
from eviscope.suites.eviscope.squad_source import Squad

if TYPE_CHECKING:
    from eviscope.builders.eviscope.candidates import Candidate


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
