"""The contextualization ablation on ConfQuestions: retrieval P@1 without and with evidence context.

P@1 of one turn is 1 when the top-ranked unit comes from one of the turn's gold pages (joined by
numeric page id), else 0; the ablation reports its mean over the turns, for every question form
(completed and original, English and German), retriever (BM25, dense, RRF of both) and setting:

- ``raw``: the unit's own text;
- ``context``: the page title and the previous heading prepended (:mod:`.contextualize`);
- ``neighbours``: also the units just before and after it on its page.

The paper reports retrieval P@1 0.398 → 0.528 for its own RAGONITE pipeline; its retrievers,
reranker and question rewriting differ from these simple open retrievers, so the two are put side by
side, not compared as equals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from itertools import groupby

import numpy as np

from eviscope.core.errors import EviScopeError
from eviscope.ragonite.confquestions import QUESTION_FIELDS, Turn, Unit
from eviscope.ragonite.contextualize import Context, contextualize, neighbours
from eviscope.ragonite.retrieval import Embed, bm25_rankings, dense_rankings, rrf

__all__ = ["PAPER_P_AT_1", "RETRIEVERS", "SETTINGS", "Measurement", "p_at_1", "run_ablation", "unit_texts"]

RETRIEVERS: tuple[str, ...] = ("bm25", "dense", "rrf")
SETTINGS: tuple[str, ...] = ("raw", "context", "neighbours")
PAPER_P_AT_1 = {"raw": 0.398, "context": 0.528}
"""Retrieval P@1 the paper reports for its pipeline without and with contextualization (arXiv 2412.10571)."""

_DEPTH = 100
"""How many units each retriever ranks before fusion."""


@dataclass(frozen=True)
class Measurement:
    questions: str
    """One of :data:`~eviscope.ragonite.confquestions.QUESTION_FIELDS`."""
    retriever: str
    setting: str
    p_at_1: float
    turns: int

    def to_dict(self) -> dict[str, str | float | int]:
        return asdict(self)


def unit_texts(units: Sequence[Unit], setting: str) -> list[str]:
    """The text each unit is indexed with under ``setting`` (``raw``, ``context`` or ``neighbours``).

    >>> units = [Unit("1", "passage", "Alpha.", "Page", "Intro"), Unit("1", "passage", "Beta.", "Page", "Intro")]
    >>> unit_texts(units, "raw")
    ['Alpha.', 'Beta.']
    >>> print(unit_texts(units, "neighbours")[0])
    Title: Page
    Heading: Intro
    After: Beta.
    Evidence: Alpha.
    """
    if setting not in SETTINGS:
        raise EviScopeError(f"unknown context setting {setting!r}; choose from {', '.join(SETTINGS)}")
    if setting == "raw":
        return [u.text for u in units]
    out = []
    for _, page in groupby(units, key=lambda u: u.page_id):
        page_units = list(page)
        raw = [u.text for u in page_units]
        for i, u in enumerate(page_units):
            before, after = neighbours(raw, i) if setting == "neighbours" else ("", "")
            out.append(contextualize(u.text, Context(u.title, u.heading, before, after)))
    return out


def p_at_1(rankings: np.ndarray, units: Sequence[Unit], turns: Sequence[Turn]) -> float:
    """Share of turns whose top-ranked unit is on one of their gold pages."""
    hits = [
        units[int(ranking[0])].page_id in turn.gold_page_ids
        for ranking, turn in zip(rankings, turns, strict=True)
    ]
    return float(np.mean(hits)) if hits else 0.0


def run_ablation(
    units: Sequence[Unit],
    turns: Sequence[Turn],
    *,
    retrievers: Sequence[str] = RETRIEVERS,
    settings: Sequence[str] = ("raw", "context"),
    questions: Sequence[str] = QUESTION_FIELDS,
    embed: Embed | None = None,
) -> list[Measurement]:
    """P@1 of every (questions, retriever, setting); ``embed`` is needed for ``dense`` and ``rrf``.

    ``units`` must be grouped by page, in page order (as :attr:`ConfQuestions.units` is).
    """
    unknown = sorted(set(retrievers) - set(RETRIEVERS)) + sorted(set(questions) - set(QUESTION_FIELDS))
    if unknown:
        raise EviScopeError(
            f"unknown retriever or question form {unknown}; retrievers: {', '.join(RETRIEVERS)}"
        )
    needs_dense = bool({"dense", "rrf"} & set(retrievers))
    if needs_dense and embed is None:
        raise EviScopeError("dense and rrf retrieval need an embedder")
    results = []
    for setting in settings:
        corpus = unit_texts(units, setting)
        corpus_vectors = embed(corpus) if needs_dense and embed is not None else None
        for field in questions:
            queries = [turn.questions[field] for turn in turns]
            ranked: dict[str, np.ndarray] = {}
            if {"bm25", "rrf"} & set(retrievers):
                ranked["bm25"] = bm25_rankings(corpus, queries, _DEPTH)
            if corpus_vectors is not None and embed is not None:
                ranked["dense"] = dense_rankings(corpus_vectors, embed(queries), _DEPTH)
            if "rrf" in retrievers:
                ranked["rrf"] = rrf([ranked["bm25"], ranked["dense"]])
            for retriever in retrievers:
                score = p_at_1(ranked[retriever], units, turns)
                results.append(Measurement(field, retriever, setting, score, len(turns)))
    return results
