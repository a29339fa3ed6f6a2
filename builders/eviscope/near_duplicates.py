"""``eviscope-xl``'s near-duplicates: a copy of a passage in every multi-document variant, so that only
reading the question tells a conflict from noise (contract §2, issue 32).

The conflict passage of a conflicting row is a window of the support with the answer changed. Shown
alone, that is a string tell: two documents that share nearly all their words and differ in one value
are a conflict. So every ``noisy`` row of ``eviscope-xl`` shows beside the support a window of it in
which a value that does *not* answer the question was changed (a *question-irrelevant edit*, best in
the answer's own sentence), and every ``insufficient`` row shows beside its related passage such a
window of that passage (:func:`near_duplicates`). Each copy differs from its passage in one token of
the same kind (year, number, other: :func:`diff_kinds`) as the conflict window from the support; the
edited value is of the answer's kind where one passes, else of another kind whose edit changes a token
of that kind (:data:`EDITED_KINDS`: a date's year or day, a count), read by its own kind's rules. Each
copy is cut to the same length gap, so the largest word containment, whether a near-duplicate
pair differs, and what differs are the same in the three variants. Every edit passes the lints and the
rules of believability that a conflict edit passes (same form, no conflict cue, no compatible bound,
its order to every date and number of the article), and every window stands alone
(:func:`~eviscope.builders.eviscope.windows.window_problem`). A copy of the related passage holds no
gold alias and passes the leak check; a copy of the support still states the answer, so the noisy row
cites either.
"""

from __future__ import annotations

import difflib
import random
import re
from dataclasses import dataclass, replace

from eviscope.builders.eviscope.alternatives import (
    NEAR_MOVES,
    _keeps_order,
    _numbers_in,
    is_percentage,
    spread,
)
from eviscope.builders.eviscope.answer_forms import number_value, substitute_number
from eviscope.builders.eviscope.believability import Answer, Believability
from eviscope.builders.eviscope.candidates import Candidate, answer_of
from eviscope.builders.eviscope.conflict_lints import (
    ConflictCase,
    conflict_cues_in,
    lint_grammatical_substitution,
    lint_no_compatible_bound,
    lint_no_conflict_cue,
)
from eviscope.builders.eviscope.date_forms import date_alternatives, date_mentions, parse_date
from eviscope.builders.eviscope.windows import (
    GAP_RANGE,
    WHOLE_GAP,
    Around,
    _gap,
    around,
    conflict_window,
    gap_target,
    window_problem,
)
from eviscope.core.normalize import contains, tokens
from eviscope.core.sentences import sentence_spans
from eviscope.suites.eviscope.leaks import leak
from eviscope.suites.eviscope.squad_source import Squad
from eviscope.suites.eviscope.surface import containment, differing_tokens

_YEAR = re.compile(r"(?<![\w.,$£€–—/-])(1\d{3}|20[01]\d)(?![\w%]|\s*[–—-]\s*\d|[,.]\d)")
GAP_TOLERANCE = 0.01
"""How far a copy's length gap may fall from the conflict window's before other edits are tried for a
nearer one."""
SHARE_WEIGHT = 10.0
"""How much a copy's distance from the conflict window's word containment weighs beside its distance from
the length gap: containments of one-token edits differ by thousandths (0.975 against 0.982, a few
distinct words more or fewer), gaps by hundredths."""
LEAST_SHARE = 0.85
"""Least share of its distinct words that a conflict window or a copy shares with its passage."""
EDITED_KINDS: dict[str, tuple[str, ...]] = {
    "year": ("year", "date"),
    "number": ("quantity", "date"),
    "other": ("date",),
}
"""The kinds of value (:func:`_values`) whose edit may change a token of each :func:`token_kind`: a
year (a bare year, or a date's), a number (a count or quantity, or a date's day), another word (a
date's month)."""
_NUMBER = re.compile(r"(?<![\w.,$£€–—/-])(\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w]|\s*[–—-]\s*\d|[,.]\d)")


def token_kind(token: str) -> str:
    """``year``, ``number`` or ``other``: what kind of token a diff sees.

    >>> token_kind("1881,"), token_kind("61.1%"), token_kind("May")
    ('year', 'number', 'other')
    """
    core = token.strip(".,;:()[]\"'“”‘’")
    if re.fullmatch(r"1\d{3}|20\d{2}", core):
        return "year"
    return "number" if re.search(r"\d", core) else "other"


def diff_kinds(a: str, b: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The kinds (:func:`token_kind`) of the white-space tokens in which ``a`` and ``b`` differ, each side.

    >>> diff_kinds("Tesla left in 1878, aged 22.", "Tesla left in 1879, aged 22.")
    (('year',), ('year',))
    """
    x, y = a.split(), b.split()
    left: list[str] = []
    right: list[str] = []
    for op, i, j, k, m in difflib.SequenceMatcher(None, x, y, autojunk=False).get_opcodes():
        if op != "equal":
            left += map(token_kind, x[i:j])
            right += map(token_kind, y[k:m])
    return tuple(sorted(left)), tuple(sorted(right))


@dataclass(frozen=True)
class Edit:
    """A value of a passage (``text[start:start + len(old)]``) and the value it becomes."""

    start: int
    old: str
    new: str


@dataclass(frozen=True)
class NearDuplicates:
    """The copies a quartet of ``eviscope-xl`` shows beside its support and its related passage."""

    support_copy: str
    """A window of the support with a question-irrelevant edit, shown in the ``noisy`` row."""
    support_edit: Edit
    related: tuple[int, int]
    """The related passage of the ``insufficient`` row: a paragraph and the end of its first sentences."""
    related_copy: str
    """A window of the related passage with a question-irrelevant edit, shown beside it."""
    related_edit: Edit
    window: tuple[str, str]
    """The conflict passage and the same window of the support: the candidate's
    (:attr:`~eviscope.builders.eviscope.candidates.Candidate.window`), or, where the support's copy
    cannot be cut to its length gap, a window cut again to the copy's."""


def _values(text: str, kind: str) -> list[tuple[int, str]]:
    """The values of ``text`` of the answer's ``kind`` (``year``, ``quantity`` or ``date``), by offset."""
    if kind == "year":
        return [(m.start(), m.group()) for m in _YEAR.finditer(text)]
    if kind == "quantity":
        found = [(m.start(), m.group()) for m in _NUMBER.finditer(text)]
        return [
            (s, v) for s, v in found if not _YEAR.fullmatch(v) and number_value(v) >= NEAR_MOVES.least_count
        ]
    return [
        (m.start, text[m.start : m.end])
        for m in date_mentions(text)
        if not _YEAR.fullmatch(text[m.start : m.end]) and parse_date(text[m.start : m.end]) is not None
    ]


def _options(text: str, kind: str, start: int, old: str, rng: random.Random) -> list[str]:
    """Values that may replace ``old`` at ``start``: as near as ``eviscope-xl``'s alternatives move
    (:data:`~eviscope.builders.eviscope.alternatives.NEAR_MOVES`), in the same order to the passage's
    other years (a year, never past its latest) or its sentence's other numbers (a number)."""
    if kind == "year":
        others = [float(v) for s, v in _values(text, "year") if s != start]
        latest = max([int(old), *map(int, others)])
        found = [str(int(old) + d) for d in (-1, 1, -2, 2)]
        found = [o for o in found if 1000 <= int(o) <= min(latest, 2016) and _keeps_order(old, o, others)]
    elif kind == "quantity":
        s = text.rfind(". ", 0, start) + 1
        e = text.find(". ", start)
        e = len(text) if e < 0 else e
        others = _numbers_in(text[s:start] + " " + text[start + len(old) : e])
        percentage = is_percentage(old, text[start + len(old) :])
        try:
            made = {substitute_number(old, rng, spread(old, NEAR_MOVES, percentage)) for _ in range(16)}
        except ValueError:
            return []
        found = [
            o
            for o in sorted(made)
            if _keeps_order(old, o, others) and (not percentage or number_value(o) <= 100)
        ]
    else:
        parsed = parse_date(old)
        found = [o.text for o in date_alternatives(parsed, text, start)] if parsed else []
    rng.shuffle(found)
    return [o for o in found if not contains(text, o)]


def _windows(
    text: str, hold: list[int], length: int, gap: float, context: Around | None = None
) -> list[tuple[int, int]]:
    """``(start, end)`` of the runs of whole sentences of ``text`` that hold every offset of ``hold``,
    stand alone (:func:`~eviscope.builders.eviscope.windows.window_problem`) and hold no conflict cue,
    the nearest ``gap`` shorter than ``length`` first; the whole text last, or first where ``gap`` is a
    whole text's (:data:`~eviscope.builders.eviscope.windows.WHOLE_GAP`)."""
    spans = sentence_spans(text)
    inside = [next(i for i, (s, e) in enumerate(spans) if s <= at < e) for at in hold]
    options = []
    for first in range(min(inside) + 1):
        for last in range(max(inside), len(spans)):
            if (first, last) == (0, len(spans) - 1) or window_problem(text, spans, first, last, context):
                continue
            start, end = spans[first][0], spans[last][1]
            if not conflict_cues_in(text[start:end]):
                options.append((abs(_gap(length, end - start) - gap), start, end))
    whole = [(0, len(text))] if not conflict_cues_in(text) else []
    # As a conflict window is the whole passage only where no shorter one stands alone.
    ordered = [(s, e) for _, s, e in sorted(options)]
    return whole + ordered if gap <= WHOLE_GAP else ordered + whole


def irrelevant_copy(
    checker: Believability,
    paragraph: int,
    text: str,
    candidate: Candidate,
    avoid: tuple[int, int] | None,
    signature: tuple[tuple[str, ...], tuple[str, ...]],
    gap: float,
    rules: frozenset[str],
    rng: random.Random,
    context: Around | None = None,
    share: float | None = None,
) -> tuple[str, Edit] | None:
    """A window of ``text`` (paragraph ``paragraph``, or the run of its first sentences) with a value
    changed that is not the answer (outside ``avoid``, the answer's span, whose sentence the window then
    holds: values of that sentence are tried first), whose differing tokens are ``signature``
    (:func:`diff_kinds`, one token a side), nearest ``gap`` shorter than ``text``; ``None`` where none
    passes the lints, the rules of believability and, outside the support, the leak check. Values of
    the answer's kind are tried first, then those of the other kinds of :data:`EDITED_KINDS` for the
    signature's token; each value moves as its own kind's alternatives do (:func:`_options`) and passes
    its own kind's rules of believability. Each window stands alone in its article as a conflict window
    must (:func:`~eviscope.builders.eviscope.windows.window_problem` with ``context``, the paragraph's
    neighbours and topic). With ``share``, of the edits and windows nearest ``gap`` the one whose share of
    its words in ``text`` (:func:`~eviscope.suites.eviscope.surface.containment`) comes nearest ``share``,
    the conflict window's in the support: the largest containment of a row's documents, which the surface
    audit reads, then tells no variant."""
    question = candidate.question.question
    if len(signature[0]) != 1 or len(signature[1]) != 1:
        return None  # a copy changes one token, as a conflict edit of one value does
    kinds = [candidate.type, *(k for k in EDITED_KINDS[signature[0][0]] if k != candidate.type)]
    # A number of another kind than the answer's that stands in a date (its day) is a date's: it is
    # edited as a date, under the rules of dates, never as a count.
    dated = [(m.start, m.end) for m in date_mentions(text)] if "quantity" in kinds[1:] else []
    values = [
        (s, v, kind)
        for kind in kinds
        for s, v in _values(text, kind)
        if (avoid is None or not avoid[0] - len(v) < s < avoid[1])
        and not (
            kind != candidate.type and kind == "quantity" and any(a < s + len(v) and s < b for a, b in dated)
        )
    ]
    own = None if avoid is None else next((s, e) for s, e in sentence_spans(text) if s <= avoid[0] < e)
    if own is not None:
        values.sort(
            key=lambda item: (
                item[2] != candidate.type,
                not own[0] <= item[0] < own[1],
                abs(item[0] - avoid[0]),
            )
        )
    else:
        values.sort(key=lambda item: item[2] != candidate.type)
    best: tuple[float, str, Edit] | None = None
    for start, old, kind in values:
        for new in _options(text, kind, start, old, rng):
            if any(contains(new, a) or contains(a, new) for a in candidate.aliases):
                continue
            if checker.problem(Answer(paragraph, start, old, kind, question), new, rules):
                continue
            edited = text[:start] + new + text[start + len(old) :]
            # The answer's offset in the edited text: an edit before it moves it by the change in length.
            moved = len(new) - len(old) if avoid is not None and start < avoid[0] else 0
            hold = [start] if avoid is None else [start, avoid[0] + moved]
            for s, e in _windows(edited, hold, len(text), gap, context):
                window, original = edited[s:e], text[s : e - len(new) + len(old)]
                case = ConflictCase(question, (old,), original, original, window, new)
                lints = (lint_grammatical_substitution, lint_no_conflict_cue, lint_no_compatible_bound)
                if not all(lint(case).ok for lint in lints) or diff_kinds(original, window) != signature:
                    continue
                read = sorted(differing_tokens(tokens(window), tokens(text)))
                if read != sorted(differing_tokens(tokens(window), tokens(original))):
                    continue  # an alignment of the words reads more than the edit (a repeated opener)
                if avoid is None and leak(question, list(candidate.aliases), window, True):
                    continue
                miss = abs(_gap(len(text), len(window)) - gap)
                if share is not None:  # as much of its words in its passage as the conflict window has
                    miss += SHARE_WEIGHT * abs(containment(tokens(window), tokens(text)) - share)
                if best is None or miss < best[0]:
                    best = (miss, window, Edit(start, old, new))
                break  # the windows come nearest the gap first: this edit has no nearer one
            if best is not None and best[0] <= GAP_TOLERANCE:
                return best[1], best[2]
    return None if best is None else (best[1], best[2])


def _support_side(
    squad: Squad,
    checker: Believability,
    candidate: Candidate,
    rules: frozenset[str],
    gap: float,
    rng: random.Random,
) -> tuple[tuple[str, Edit], tuple[str, str]] | None:
    """The support's copy nearest ``gap``, and the conflict window: the candidate's, or, where the copy
    cannot reach its gap, one cut again to the copy's (the copy is the most bound: it holds the
    answer's sentence and the edited value)."""
    assert candidate.window is not None
    window, original = candidate.window
    signature = diff_kinds(original, window)
    answer = answer_of(squad, candidate)
    support = squad.paragraphs[answer.paragraph].context
    avoid = (answer.start, answer.start + len(answer.core))
    found = irrelevant_copy(
        checker,
        answer.paragraph,
        support,
        candidate,
        avoid,
        signature,
        gap,
        rules,
        rng,
        around(squad, answer.paragraph),
        containment(tokens(window), tokens(support)),
    )
    if found is None:
        return None
    shown = candidate.window
    shown_gap = _gap(len(support), len(window))
    copied = _gap(len(support), len(found[0]))
    if abs(copied - shown_gap) > GAP_TOLERANCE and copied <= GAP_RANGE[1]:
        recut = conflict_window(squad, candidate, copied)
        if (
            recut is not None
            and diff_kinds(recut[1], recut[0]) == signature
            and abs(_gap(len(support), len(recut[0])) - copied) < abs(shown_gap - copied)
        ):
            shown = recut
    return found, shown


def _related_side(
    squad: Squad,
    checker: Believability,
    candidate: Candidate,
    rules: frozenset[str],
    signature: tuple[tuple[str, ...], tuple[str, ...]],
    length: int,
    gap: float,
    rng: random.Random,
    share: float,
) -> tuple[tuple[int, int], tuple[str, Edit]] | None:
    """A related passage (a paragraph of the pool and the end of its first sentences) and its copy: of
    the runs of first sentences that stand alone, the run and copy that together come nearest
    ``length``, ``gap`` and ``share``, the word containment of the conflict window in the support (so
    that the largest containment of a row's documents does not tell its variant)."""
    pool = list(candidate.related_pool)
    runs: list[tuple[int, int]] = []
    for i in pool:
        context = squad.paragraphs[i].context
        spans = sentence_spans(context)
        stands = [
            end
            for k, (_, end) in enumerate(spans)
            if window_problem(context, spans, 0, k, around(squad, i)) is None
        ]
        runs += [(i, end) for end in stands]
    best: tuple[float, tuple[int, int], tuple[str, Edit]] | None = None
    for i, end in sorted(runs, key=lambda run: (_gap(length, run[1]), pool.index(run[0]))):
        if best is not None and _gap(length, end) > best[0]:
            break  # the runs come nearest the support's length first: none later can do better
        text = squad.paragraphs[i].context[:end]
        copy = irrelevant_copy(
            checker, i, text, candidate, None, signature, gap, rules, rng, around(squad, i), share
        )
        if copy is not None:
            miss = _gap(length, end) + abs(_gap(end, len(copy[0])) - gap)
            miss += SHARE_WEIGHT * abs(containment(tokens(copy[0]), tokens(text)) - share)
            if best is None or miss < best[0]:
                best = (miss, (i, end), copy)
    return None if best is None else (best[1], best[2])


def near_duplicates(
    squad: Squad, checker: Believability, candidate: Candidate, rules: frozenset[str], seed: int
) -> NearDuplicates | None:
    """The copies of :class:`NearDuplicates` for a candidate with a conflict window, or ``None``: the
    support's (:func:`_support_side`), and a related passage's (:func:`_related_side`, of
    :attr:`~eviscope.builders.eviscope.candidates.Candidate.related_pool`), each cut to the conflict
    window's length gap and differing in tokens of the kinds the conflict window differs in. Where the
    related copy cannot reach that gap, the support's copy and the window are cut again to the related
    copy's, if the three pairs then differ in length less: so that the pairs of the three rows differ
    in length alike, whatever the source's paragraphs."""
    if candidate.window is None:
        return None
    signature = diff_kinds(candidate.window[1], candidate.window[0])
    support = len(squad.paragraphs[candidate.question.paragraph].context)
    rng = random.Random(f"{seed}:{candidate.question.id}:near-duplicates")
    side = _support_side(squad, checker, candidate, rules, _gap(support, len(candidate.window[0])), rng)
    if side is None:
        return None
    found, shown = side
    gap = _gap(support, len(shown[0]))
    support_text = squad.paragraphs[candidate.question.paragraph].context
    share = containment(tokens(shown[0]), tokens(support_text))
    related = _related_side(squad, checker, candidate, rules, signature, support, gap, rng, share)
    if related is None:
        return None

    def spread(copy: str, window: str, run: tuple[int, int], related_copy: str) -> float:
        pair_gap = _gap(support, len(window))
        return max(abs(_gap(support, len(copy)) - pair_gap), abs(_gap(run[1], len(related_copy)) - pair_gap))

    reached = _gap(related[0][1], len(related[1][0]))
    if abs(reached - gap) > GAP_TOLERANCE and reached <= GAP_RANGE[1]:
        again = _support_side(squad, checker, candidate, rules, reached, rng)
        if again is not None and spread(again[0][0], again[1][0], related[0], related[1][0]) < spread(
            found[0], shown[0], related[0], related[1][0]
        ):
            found, shown = again
    pairs = [(shown[0], shown[1]), (found[0], squad.paragraphs[candidate.question.paragraph].context)]
    pairs.append((related[1][0], squad.paragraphs[related[0][0]].context[: related[0][1]]))
    if any(containment(tokens(copy), tokens(text)) < LEAST_SHARE for copy, text in pairs):
        return None  # a short window shares too few words with its passage to read as a near-duplicate
    return NearDuplicates(*found, related[0], *related[1], shown)


def with_near_duplicates(
    squad: Squad, checker: Believability, candidate: Candidate, rules: frozenset[str], seed: int
) -> Candidate:
    """``candidate`` with its :class:`NearDuplicates` (:func:`near_duplicates`) and its conflict window
    as they cut it; where its alternative has no conflict window or no near-duplicates, the first of its
    further believable alternatives (:attr:`~eviscope.builders.eviscope.candidates.Candidate.alternates`)
    that has both, as its conflict passage, alternative and window. An alternative whose conflict window
    differs from the support in tokens of the same kinds (:func:`diff_kinds`) as one already tried is
    not tried: the copies of the support and the related passage match those kinds, not the edit.
    Unchanged (no near-duplicates) where none has both."""
    tried: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    for text, new in ((candidate.conflict_text, candidate.conflict_answer), *candidate.alternates):
        made = candidate
        if (text, new) != (candidate.conflict_text, candidate.conflict_answer):
            made = replace(candidate, conflict_text=text, conflict_answer=new, window=None)
            made = replace(made, window=conflict_window(squad, made, gap_target(seed, made.question.id)))
        if made.window is None:
            continue
        signature = diff_kinds(made.window[1], made.window[0])
        if signature in tried:
            continue
        tried.add(signature)
        found = near_duplicates(squad, checker, made, rules, seed)
        if found is not None:
            return replace(made, near_duplicates=found, window=found.window)
    return candidate
