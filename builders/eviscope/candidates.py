"""Every eligible base question of SQuAD as a :class:`Candidate` (:func:`find_candidates`): past the
cheap checks (:mod:`~eviscope.builders.eviscope.eligibility`), with a believable same-type alternative
(:mod:`~eviscope.builders.eviscope.alternatives`) whose repaired conflict passage passes all six lints,
a related passage (:mod:`~eviscope.builders.eviscope.retrieval`), and, for a balanced config, a
conflict window (:mod:`~eviscope.builders.eviscope.windows`). Its alternative must also be believable
against the whole article (:mod:`~eviscope.builders.eviscope.believability`): where the first
alternative that passes the lints is not, the next that passes both is taken, and a question with none
is drawn only by the legacy construction (``v1``)."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

from eviscope.builders.eviscope.alternatives import PAPER_MOVES, Moves, _alternatives, _NamePool
from eviscope.builders.eviscope.answer_types import Entity, article_labels, paragraph_entities
from eviscope.builders.eviscope.believability import PAPER_RULES, Answer, Believability, shared_believability
from eviscope.builders.eviscope.conflict_edits import repaired_conflict
from eviscope.builders.eviscope.conflict_lints import (
    ConflictCase,
    conflict_cues_in,
    run_lints,
    without_cue_sentences,
)
from eviscope.builders.eviscope.eligibility import (
    Rejection,
    _cheap_checks,
    _Eligible,
    _occurrences,
    typed_paragraphs,
)
from eviscope.builders.eviscope.retrieval import _RelatedPassages
from eviscope.builders.eviscope.windows import around, conflict_window, gap_target, window_problem
from eviscope.core.normalize import tokens
from eviscope.core.sentences import sentence_spans
from eviscope.suites.eviscope.squad_source import Question, Squad

if TYPE_CHECKING:
    from eviscope.builders.eviscope.near_duplicates import NearDuplicates

Construction = tuple[Moves, frozenset[str]]
"""How a config makes its alternatives: how far they move and the rules of believability they pass."""


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
    related_pool: tuple[int, ...]
    """Paragraph indices of the related passages, best first (the first is :attr:`related`): a balanced
    config shows the run of first sentences of one of them, and a copy of it with a question-irrelevant
    edit, in its ``insufficient`` row (:mod:`~eviscope.builders.eviscope.near_duplicates`)."""
    conflict_text: str
    conflict_answer: str
    drops_cue_sentences: bool
    """The conflict passage is made on the support less its sentences that hold a conflict cue."""
    window: tuple[str, str] | None = None
    """A balanced config's conflict passage and the same window of the support
    (:func:`~eviscope.builders.eviscope.windows.conflict_window`), cut to a length gap drawn as the other
    rows' gaps are (:func:`~eviscope.builders.eviscope.windows.gap_target`); ``None``: none passes."""
    unbelievable: str | None = None
    """The rule of :data:`~eviscope.builders.eviscope.believability.RULES` that rejects the alternative
    the six lints alone would take (the first that passes them), or ``None``."""
    near_duplicates: NearDuplicates | None = None
    """A balanced config's copies of the support and of a related passage with question-irrelevant
    edits (:func:`~eviscope.builders.eviscope.near_duplicates.near_duplicates`), set where a balanced
    config draws; ``None``: none found, or not looked for."""
    believable: bool = True
    """An alternative passes the six lints and every rule of believability against the article
    (:attr:`conflict_answer` is it); else the question is drawn only by the legacy construction
    (``v1``), whose conflict passage is not this one."""
    support: str = ""
    """The support paragraph's text: no two drawn quartets share it and a gold answer, across sources."""
    stands_alone: str | None = None
    """Why the repaired conflict passage, shown whole (``eviscope-v1.1``), does not stand alone in its
    article (:func:`~eviscope.builders.eviscope.windows.window_problem`), or ``None``."""
    alternates: tuple[tuple[str, str], ...] = ()
    """The conflict passages and alternatives after :attr:`conflict_answer`, in its order, that also pass
    the six lints and every rule of believability: a balanced config takes the first of them whose
    conflict window and near-duplicates exist where :attr:`conflict_answer`'s do not
    (:func:`~eviscope.builders.eviscope.near_duplicates.with_near_duplicates`); listed only for the
    constructions that ask (:func:`find_candidates`), else empty."""


def find_candidates(
    squad: Squad,
    seed: int,
    progress: Callable[[Iterable], Iterable] = iter,
    moves: tuple[Construction, ...] = ((PAPER_MOVES, PAPER_RULES),),
    alternates: frozenset[Construction] = frozenset(),
) -> tuple[dict[Construction, list[Candidate]], Counter[Rejection], list[list[Entity]], Counter[str]]:
    """Every eligible base question of ``squad``, in source order, under each of ``moves`` (how far
    alternatives move, :class:`~eviscope.builders.eviscope.alternatives.Moves`, and the rules of
    believability they must pass, of :data:`~eviscope.builders.eviscope.believability.RULES`); why the others were not
    (by :class:`~eviscope.builders.eviscope.eligibility.Rejection`), the paragraphs' named entities, and
    how many same-article passages the leak check passed over (by reason id), both under the first of
    ``moves``. Under the constructions of ``alternates`` each candidate also lists its further believable
    alternatives (:attr:`Candidate.alternates`)."""
    rejected: Counter[Rejection] = Counter()
    eligible: list[_Eligible] = []
    typed = typed_paragraphs(squad)
    entities = paragraph_entities(squad, progress, typed)
    known = article_labels(squad, entities)
    cued = {i for i, p in enumerate(squad.paragraphs) if conflict_cues_in(p.context)}
    for question in progress(squad.questions):
        if typed is not None and question.paragraph not in typed:
            rejected[Rejection("not_typed")] += 1
            continue
        title = squad.paragraphs[question.paragraph].title
        checked = _cheap_checks(squad, question, cued, entities[question.paragraph], known[title])
        if isinstance(checked, Rejection):
            rejected[checked] += 1
        else:
            eligible.append(checked)

    names = _NamePool(squad, entities)
    retriever = _RelatedPassages(squad)
    believability = shared_believability(squad, entities)

    pools: dict[Construction, list[Candidate]] = {}
    leaked: Counter[str] = Counter()
    for index, how in enumerate(moves):
        counted = rejected if index == 0 else Counter()
        candidates: list[Candidate] = []
        for item in eligible:
            made = _make_candidate(
                squad, item, seed, names, retriever, believability, *how, alternates=how in alternates
            )
            if isinstance(made, Rejection):
                counted[made] += 1
            else:
                candidates.append(made)
                if not made.believable:
                    counted[Rejection("unbelievable", made.unbelievable)] += 1
        pools[how] = candidates
        if index == 0:
            leaked = Counter(retriever.rejected)
    return pools, rejected, entities, leaked


@lru_cache(maxsize=16384)
def _passes_lints(case: ConflictCase) -> bool:
    """All six lints pass on ``case``; a build's constructions share most of their options, so each
    conflict passage is linted once."""
    return all(r.ok for r in run_lints(case).values())


def _make_candidate(
    squad: Squad,
    item: _Eligible,
    seed: int,
    names: _NamePool,
    retriever: _RelatedPassages,
    believability: Believability,
    moves: Moves,
    rules: frozenset[str] = PAPER_RULES,
    alternates: bool = False,
) -> Candidate | Rejection:
    paragraph = squad.paragraphs[item.question.paragraph]
    rng = random.Random(f"{seed}:{item.question.id}:conflict")
    options = _alternatives(item, paragraph.context, paragraph.title, rng, names, moves)
    if not options:
        return Rejection("no_same_type_alternative", item.type)
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
        return (conflict_text, alternative) if _passes_lints(case) else None

    made = next(filter(None, map(passage, options[:12])), None)
    if made is None:
        return Rejection("no_alternative_passes_lints")
    related = retriever.related(squad, item.question, item.aliases)
    if not related:
        return Rejection("no_related_passage")
    answer = Answer(item.question.paragraph, item.core_start, item.core, item.type, item.question.question)
    unbelievable = believability.problem(answer, made[1], rules)
    believable = made
    if unbelievable:
        fits = (passage(o) for o in options if believability.problem(answer, o, rules) is None)
        believable = next(filter(None, fits), None)
    further: list[tuple[str, str]] = []
    if alternates and believable is not None:
        for option in options[options.index(believable[1]) + 1 if believable[1] in options else 0 :]:
            found = passage(option) if believability.problem(answer, option, rules) is None else None
            if found is not None and found != believable and found not in further:
                further.append(found)
    candidate = Candidate(
        item.question,
        paragraph.title,
        item.aliases,
        item.type,
        item.support_span,
        related[0],
        tuple(related),
        *(believable or made),
        base != paragraph.context,
        unbelievable=unbelievable,
        believable=believable is not None,
        support=paragraph.context,
        alternates=tuple(further),
    )
    spans = sentence_spans(candidate.conflict_text)
    context = around(squad, item.question.paragraph)
    candidate = replace(
        candidate, stands_alone=window_problem(candidate.conflict_text, spans, 0, len(spans) - 1, context)
    )
    window = conflict_window(squad, candidate, gap_target(seed, item.question.id))
    return candidate if window is None else replace(candidate, window=window)


def answer_of(squad: Squad, candidate: Candidate) -> Answer:
    """Where the candidate's core answer stands, for the rules of believability."""
    core = min(candidate.aliases, key=lambda a: (len(tokens(a)), len(a)))
    paragraph = candidate.question.paragraph
    start = _occurrences(squad.paragraphs[paragraph].context, core)[0]
    return Answer(paragraph, start, core, candidate.type, candidate.question.question)
