"""The cited claims of AttributionBench as ForceBench calibrated claims (contract §5, issue 14).

An attributable AttributionBench row holds a ``claim`` that a cited-QA system wrote and the passages
it cites. ``claim_sentences`` splits the claim into sentences and tidies each one without changing
its wording: citation markers (``[1]``, ``[1][3]``, ``[2, 4]``) are dropped, the first letter is
capitalised and a missing final full stop is added. A sentence is kept when it is self-contained
(``eligible_sentence``). ``best_span`` picks the decisive span for a claim sentence: the sentence
(or, failing that, the pair of consecutive sentences) of the cited passages that holds most of its
content words (``lints.coverage``); whether that span licenses the claim's force marker is left to
the lints.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from eviscope.core.sentences import ABBREVIATIONS, sentence_spans
from eviscope.suites.forcebench.lints import MIN_COVERAGE, coverage

__all__ = ["MAX_EVIDENCE_CHARS", "Span", "best_span", "claim_sentences", "passage_spans"]

MAX_EVIDENCE_CHARS = 1200
MAX_SPAN_WORDS = 80

_CITATION = re.compile(r"\s*\[\d+(?:\s*[,–-]\s*\d+)*\]")


_LOWER_BOUNDARY = re.compile(r"(?<=[a-z][.!?])\s+(?=[a-z])")


def _split_lower(text: str) -> list[str]:
    """``text`` split at a full stop followed by a lower-case word, unless it ends an abbreviation."""
    pieces, start = [], 0
    for match in _LOWER_BOUNDARY.finditer(text):
        last = text[start : match.start()].rsplit(None, 1)[-1].rstrip(".!?").lower()
        if last in ABBREVIATIONS or len(last) == 1:
            continue
        pieces.append(text[start : match.start()])
        start = match.end()
    pieces.append(text[start:])
    return pieces


@dataclass(frozen=True)
class Span:
    """A sentence of a cited passage and its verbatim evidence excerpt."""

    text: str
    evidence: str


def claim_sentences(claim: str) -> list[str]:
    """The sentences of a cited claim, citation markers dropped, first letter capitalised, ending
    in a full stop. A lower-case claim is also split where a full stop is followed by a lower-case
    word.

    >>> claim_sentences("coffee may reduce fatigue [1][3]. It is popular [2]")
    ['Coffee may reduce fatigue.', 'It is popular.']
    >>> claim_sentences("yes. they have released 6 albums, e.g. two live ones")
    ['Yes.', 'They have released 6 albums, e.g. two live ones.']
    """
    text = _CITATION.sub("", claim)
    pieces = []
    for start, end in sentence_spans(text):
        pieces.extend(_split_lower(text[start:end]))
    out = []
    for piece in pieces:
        sentence = " ".join(piece.split())
        if not sentence:
            continue
        sentence = sentence[0].upper() + sentence[1:]
        if sentence[-1] not in ".!?":
            sentence += "."
        out.append(sentence)
    return out


def passage_spans(reference: str, sentences: int = 1) -> Iterator[Span]:
    """Every run of ``sentences`` consecutive sentences of one cited passage (3 to
    ``MAX_SPAN_WORDS`` words), each with its evidence: the paragraph that holds it, or the run and
    two sentences either side when the paragraph is longer than ``MAX_EVIDENCE_CHARS``. Both are
    verbatim."""
    for paragraph in re.finditer(r"[^\n]+", reference):
        para = paragraph.group(0)
        bounds = sentence_spans(para)
        for i in range(len(bounds) - sentences + 1):
            j = i + sentences - 1
            text = para[bounds[i][0] : bounds[j][1]]
            if not 3 <= len(text.split()) <= MAX_SPAN_WORDS:
                continue
            if len(para) <= MAX_EVIDENCE_CHARS:
                evidence = para.strip()
            else:
                lo, hi = bounds[max(0, i - 2)][0], bounds[min(len(bounds) - 1, j + 2)][1]
                evidence = para[lo:hi]
            yield Span(text, evidence)


def best_span(claim: str, references: list[str]) -> Span | None:
    """The decisive span for ``claim``: the sentence of the cited passages holding the largest share
    of its content words (the first on a tie); when that share is under ``MIN_COVERAGE``, the pair of
    consecutive sentences holding the largest share, if it reaches ``MIN_COVERAGE``. ``None`` when no
    sentence shares a content word."""
    best: tuple[float, Span | None] = (0.0, None)
    for sentences in (1, 2):
        for reference in references:
            for span in passage_spans(reference, sentences):
                cover = coverage(span.text, claim)
                if cover > best[0]:
                    best = (cover, span)
        if best[0] >= MIN_COVERAGE:
            break
    return best[1]
