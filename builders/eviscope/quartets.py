"""The EviScope builder: SQuAD v1.1 questions to quartets of evidence variants (contract §2).

One pass over SQuAD finds every *eligible* base question; each config then draws its quartets from
them with the same seed:

1. **Eligible.** The shortest gold alias (the *core*) has a semantic type that can be told confidently
   (:mod:`~eviscope.builders.eviscope.answer_types`: spaCy entities confirmed by the question) and is a
   plain year, number or name, or a date of a form :mod:`~eviscope.builders.eviscope.date_forms` alters;
   every alias contains the core; the core occurs exactly once in the paragraph, on word boundaries; the
   sentence around it would still read right with another answer
   (:func:`~eviscope.builders.eviscope.eligibility._context_problem`); no conflict cue stands in the
   answer's sentences, and where the paragraph holds one elsewhere, the paragraph still reads as a whole
   without the sentences that hold one (:func:`~eviscope.builders.eviscope.eligibility._cue_problem`); a
   believable same-type alternative exists (:mod:`~eviscope.builders.eviscope.alternatives`) and the
   repaired conflict passage passes all six lints; and a *related* passage exists
   (:mod:`~eviscope.builders.eviscope.retrieval`): the paragraph of the same article that BM25 ranks
   highest for the question among those that hold no gold alias and pass the leak check
   (:mod:`~eviscope.suites.eviscope.leaks`). Its alternative must also be believable against the whole
   article (:mod:`~eviscope.builders.eviscope.believability`): where the first alternative that passes
   the lints is not, the next that passes both is taken, and a question with none is drawn only by the
   legacy construction (``v1``).
2. **Selected.** The eligible questions are ordered by ``sha256(f"{seed}:{question id}")`` and taken in
   that order while their article has fewer than ``per_article_cap`` quartets, until ``n_quartets`` (with
   ``first_release``, as in ``v1`` and ``v1.1``, only what the first release's construction drew: no date
   answers and no conflict passage that drops cue sentences), passing over a question whose paragraph and
   gold answer, or whose question (:func:`question_key`), a drawn one already has (:data:`SKIPPED`).
3. **Variants** (:func:`~eviscope.builders.eviscope.assembly.quartet_rows`). The paper's layout (``v1``,
   ``v1.1``): *sufficient*: the support paragraph. *noisy*: the support and two paragraphs of other
   articles drawn with a per-question seed, each holding no gold alias (ranges split, number words read).
   *insufficient*: the same two paragraphs and the related passage. *conflicting*: the support and the
   conflict passage. The balanced layout (``xl``) shows three documents, two of the question's article,
   in every row but *sufficient*, so that neither the number of documents nor of same-article ones tells
   the variants apart (:mod:`eviscope.suites.eviscope.shortcuts`); its conflict passage is a window of
   whole sentences around the edited one (:func:`~eviscope.builders.eviscope.windows.conflict_window`), a
   drawn gap shorter than the support, and its noisy and insufficient rows show, beside the support and
   a related passage, a copy of each cut to the same gap with a question-irrelevant edit
   (:mod:`~eviscope.builders.eviscope.near_duplicates`), so that neither lengths, length gaps nor a
   string comparison of the documents tell them apart.

Documents get ``doc-<first 8 hex of sha256(text)>`` ids, so the same text has the same id wherever it
appears and an id says nothing of a document's role; each row's documents are shuffled with a seed
derived from the row id. A repaired conflict replaces the core with a believable alternative of the same
type (:mod:`~eviscope.builders.eviscope.alternatives`), in the support paragraph or, where the paragraph
holds a conflict cue outside the answer's sentences, in the paragraph less its whole sentences that hold
one (:func:`~eviscope.builders.eviscope.conflict_lints.without_cue_sentences`), so that constraint 6
holds; the alternative is still checked against every number of the whole paragraph.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from eviscope.builders.eviscope.candidates import Candidate
from eviscope.builders.eviscope.conflict_edits import legacy_conflict
from eviscope.builders.eviscope.retrieval import _distractors
from eviscope.core.normalize import norm, tokens
from eviscope.suites.eviscope.leaks import NOT_CONTENT
from eviscope.suites.eviscope.squad_source import Squad


@dataclass(frozen=True)
class QuartetParams:
    """How many quartets a config draws, and how many at most from one article."""

    n_quartets: int | None
    """How many quartets; ``None``: every one that can be drawn (``eviscope-xl``, whatever its sources)."""
    per_article_cap: int
    first_release: bool = False
    """Draw only what the first release's construction drew, so that ``v1`` and ``v1.1`` keep their 40
    quartets: no answer of type ``date`` and no conflict passage that drops cue sentences."""
    balanced: bool = False
    """Show every variant but ``sufficient`` as three documents, two of the question's article and one
    of another (:func:`~eviscope.builders.eviscope.assembly.quartet_rows`), so that no count tells the
    variants apart; each quartet also needs two same-article passages that pass the leak check."""


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
    (:func:`~eviscope.builders.eviscope.windows.conflict_window`); ``None``: the repaired passage is shown
    whole."""


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
    "passage_not_standalone": (
        "the paper's layout (v1.1) shows the repaired conflict passage whole, and it does not stand alone in "
        "its article: it opens on a connective, a pronoun or a definite description whose referent the "
        "previous paragraph holds, or ends on a colon or a list's lead-in (window_problem)"
    ),
    "no_irrelevant_edit": (
        "a balanced config shows a copy of the support and of a related passage with a value that does "
        "not answer the question changed, and no such edit (of the answer's kind, or of another kind "
        "whose edit changes a token of the conflict edit's kind) passes the lints, the rules of "
        "believability and the leak check, or differs in one token of the conflict edit's kind, for "
        "any of the question's believable alternatives"
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
    """``params.n_quartets`` candidates (``None``: all that can be) drawn with ``seed`` under the
    per-article cap, in source order.

    Candidates are taken in the order of ``sha256(f"{seed}:{question id}")``, so the draw depends on
    each question alone: a change in who else is eligible swaps only the questions it touches.
    With ``params.first_release`` date answers and conflict passages that drop cue sentences are left out;
    with ``params.balanced`` questions without a conflict window or near-duplicates. A question that repeats
    a drawn one (its paragraph and gold answer, or :func:`question_key`) is passed over; ``skipped``
    counts what was passed over, by :data:`SKIPPED` id.
    """
    skipped = Counter() if skipped is None else skipped
    if params.first_release:
        candidates = [c for c in candidates if not c.drops_cue_sentences and c.type != "date"]
    if params.balanced:
        skipped["no_conflict_window"] += sum(c.window is None for c in candidates)
        candidates = [c for c in candidates if c.window is not None]
        skipped["no_irrelevant_edit"] += sum(c.near_duplicates is None for c in candidates)
        candidates = [c for c in candidates if c.near_duplicates is not None]

    def rank(index: int) -> str:
        return hashlib.sha256(f"{seed}:{candidates[index].question.id}".encode()).hexdigest()

    order = sorted(range(len(candidates)), key=rank)
    per_article: Counter[tuple[str, str]] = Counter()
    chosen: list[int] = []
    drawn_answers: set[tuple[str, str]] = set()
    drawn_questions: set[frozenset[str]] = set()
    for index in order:
        candidate = candidates[index]
        title = (candidate.question.source, candidate.title)
        if per_article[title] < params.per_article_cap:
            answer_key = (norm(candidate.support), _core(candidate))
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
    if params.n_quartets is None and chosen:
        return [candidates[i] for i in sorted(chosen)]
    raise ValueError(
        f"only {len(chosen)} of {params.n_quartets} quartets can be drawn with at most "
        f"{params.per_article_cap} per article from {len(candidates)} eligible questions"
    )


def standing_alone(
    candidates: list[Candidate], params: QuartetParams, skipped: Counter[str]
) -> list[Candidate]:
    """``candidates`` less those whose repaired conflict passage, shown whole, does not stand alone
    (:attr:`Candidate.stands_alone`), counted in ``skipped`` among those :func:`select` would consider."""
    considered = [
        c for c in candidates if not params.first_release or (not c.drops_cue_sentences and c.type != "date")
    ]
    skipped["passage_not_standalone"] += sum(c.stands_alone is not None for c in considered)
    return [c for c in candidates if c.stands_alone is None]


def make_quartets(
    squads: Mapping[str, Squad],
    chosen: list[Candidate],
    seed: int,
    rejected: Counter[str] | None = None,
    balanced: bool = False,
) -> list[Quartet]:
    """Ids, distractors and the legacy conflict passage of each chosen candidate, each read in its own
    question source of ``squads`` (by name; its other-article passages too); ``rejected`` counts
    the other-article passages the leak check passed over, by reason id. ``balanced``: each conflict
    passage is its window (:attr:`Candidate.window`)."""
    width = max(2, len(str(len(chosen))))
    quartets = []
    for index, candidate in enumerate(chosen):
        donor = chosen[(index + 1) % len(chosen)].aliases[0]
        squad = squads[candidate.question.source]
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
