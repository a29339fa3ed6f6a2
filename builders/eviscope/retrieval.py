"""The passages a quartet shows besides its support: the related same-article passages BM25 ranks
highest for the question (:class:`_RelatedPassages`) and the two other-article passages
(:func:`_distractors`), each holding no gold alias and passing the leak check
(:mod:`~eviscope.suites.eviscope.leaks`)."""

from __future__ import annotations

import random
from collections import Counter
from typing import TYPE_CHECKING

import bm25s

from eviscope.core.normalize import contains
from eviscope.suites.eviscope.leaks import holds_alias, leak
from eviscope.suites.eviscope.squad_source import Question, Squad

if TYPE_CHECKING:
    from eviscope.builders.eviscope.candidates import Candidate


RELATED_POOL = 16
"""How many related same-article passages (BM25's best that pass the leak check) a balanced config
chooses its two same-article passages from."""


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
        self._found: dict[tuple[str, tuple[str, ...]], list[int]] = {}
        """What :meth:`related` found for each question, so a second construction of the same build
        does not rank and leak-check its passages again (nor count their rejections twice)."""
        for index, paragraph in enumerate(squad.paragraphs):
            self.by_article.setdefault(paragraph.title, []).append(index)

    def related(self, squad: Squad, question: Question, aliases: tuple[str, ...]) -> list[int]:
        """The :data:`RELATED_POOL` highest-ranked other paragraphs of the question's article that hold
        no gold alias and pass the leak check, best first (fewer where the article has fewer)."""
        key = (question.id, aliases)
        if key not in self._found:
            self._found[key] = self._related(squad, question, aliases)
        return list(self._found[key])

    def _related(self, squad: Squad, question: Question, aliases: tuple[str, ...]) -> list[int]:
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
