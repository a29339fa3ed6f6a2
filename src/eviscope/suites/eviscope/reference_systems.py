"""Reference systems that need no GPU: each turns rows into contract §3 predictions.

- ``oracle``: reads the gold labels; joint success 1.0 and every quartet metric 1.0 by construction.
- ``always-answer``: answers every row with the first gold alias (citing the supporting documents,
  or the first shown one when none is supporting): perfect answer accuracy with no evidence
  sensitivity at all (ERS = CS = QCS = 0), the failure that answer-only scoring hides.
- ``lexical``: a deterministic extractive baseline that reads only the question and documents. Each
  document's best sentence is the one covering most of the question's content words; a document
  whose coverage reaches ``threshold`` supports the candidate answer extracted from that sentence
  (the longest run of words not in the question, preferring a run with a digit for questions asking
  when, what year or how many, and a capitalized run for who / where questions). No supporting document: abstain. Two
  supporting documents with different candidates (neither contains the other): flag a conflict.
  Else answer with the best document's candidate, citing and quoting it.
- ``doc-count``, ``title-count``, ``length-gaps``, ``layout``: evidence-blind systems. Each chooses
  the action that the row's layout predicts (:mod:`eviscope.suites.eviscope.shortcuts`: the number of
  documents; the number carrying the question's article title; the smallest length differences
  between documents; every layout feature together), from a decision tree
  fitted on the other half of the quartets' gold actions, and copies the ``lexical`` prediction where
  that action is ``answer``. A score above ``lexical`` is what a config's layout gives away to a
  system that never reads a passage for its action.
- ``near-duplicate``, ``diff``: string-matching systems that compare the documents with each other and
  never read the question (:mod:`eviscope.suites.eviscope.surface`). ``near-duplicate`` flags a
  conflict when two documents share at least :data:`NEAR_DUPLICATE_SYSTEM` of their words (the
  containment of :func:`~eviscope.suites.eviscope.surface.closest_pair`), citing both; ``diff`` flags
  one when such a pair differs in a year or another number. Elsewhere each is the ``lexical`` system.
  A score above ``lexical`` is what a config's edited copies give away to string matching.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eviscope.core.normalize import QUESTION_WORDS, contains, norm, tokens
from eviscope.core.sentences import sentence_spans
from eviscope.suites.eviscope.shortcuts import cross_fit_actions
from eviscope.suites.eviscope.surface import Pair, closest_pair, differing_kinds

__all__ = [
    "DEFAULT_THRESHOLD",
    "NEAR_DUPLICATE_SYSTEM",
    "SYSTEMS",
    "always_answer",
    "evidence_blind",
    "lexical",
    "oracle",
    "predict",
    "string_matching",
]

Row = Mapping[str, Any]
DEFAULT_THRESHOLD = 0.5
"""Least share of the question's content words a sentence must cover to support an answer."""
NEAR_DUPLICATE_SYSTEM = 0.9
"""Least word containment at which the ``near-duplicate`` and ``diff`` systems take two documents for
copies of one passage (issue 32's "share at least 90% of their words")."""

_LEXICAL_NOT_CONTENT = (
    QUESTION_WORDS
    | {"been", "being", "can", "could", "had", "has", "have", "would", "from", "her", "his", "its", "those"}
    | {"s", "first", "name", "year", "years"}
) - {"but", "if", "into", "no", "such", "then", "they"}
"""Question words that name no content for the lexical system: the suite's
:data:`~eviscope.core.normalize.QUESTION_WORDS`, more auxiliaries and pronouns, and the words of dates
and names (``first``, ``year``); less the conjunctions and prepositions it has always counted as
content. It is a reference system, so its predictions stay as released: the leak check's
:data:`~eviscope.suites.eviscope.leaks.NOT_CONTENT` as its base (the same words added and removed) changes 11 of the 1,720
``eviscope-xl`` predictions (none of ``eviscope-v1`` or ``eviscope-v1.1``)."""
_NUMERIC_QUESTION = re.compile(
    r"\b(when|(what|which) (year|date|percentage|percent|number)|how (many|much|long|old|far|large|big))\b"
)
_NAME_QUESTION = re.compile(r"^\s*(who|whom|whose|where)\b")


def oracle(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """The gold action, first alias, supporting citations and support spans of every row."""
    preds = []
    for row in rows:
        action = row["expected_action"]
        pred: dict[str, Any] = {"id": row["id"], "action": action}
        if action == "answer":
            pred["answer"] = row["answers"][0]
            pred["citations"] = list(row["supporting_doc_ids"])
            pred["quotes"] = [dict(span) for span in row["support_spans"]]
        elif action == "flag_conflict":
            pred["citations"] = [*row["supporting_doc_ids"], *row["conflicting_doc_ids"]]
        preds.append(pred)
    return preds


def always_answer(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """Answer every row with its first gold alias, whatever the evidence says."""
    return [
        {
            "id": row["id"],
            "action": "answer",
            "answer": row["answers"][0],
            "citations": list(row["supporting_doc_ids"]) or [row["documents"][0]["doc_id"]],
        }
        for row in rows
    ]


@dataclass(frozen=True)
class _Support:
    doc_id: str
    sentence: str
    coverage: float
    candidate: str


def _candidate(sentence: str, question_tokens: set[str], question: str) -> str:
    """The longest run of sentence words outside the question, preferring the question's type."""
    runs: list[list[str]] = [[]]
    for word in sentence.split():
        word_tokens = tokens(word)
        if (word_tokens and not set(word_tokens) <= question_tokens) or (runs[-1] and not word_tokens):
            runs[-1].append(word)
        elif runs[-1]:
            runs.append([])
    runs = [run for run in runs if tokens(" ".join(run))]
    if not runs:
        return ""
    asked = question.lower()
    if _NUMERIC_QUESTION.search(asked):
        preferred = [run for run in runs if any(ch.isdigit() for ch in "".join(run))]
    elif _NAME_QUESTION.match(asked):
        preferred = [run for run in runs if run[0][:1].isupper()]
    else:
        preferred = []
    best = max(preferred or runs, key=len)  # max keeps the first of equally long runs
    return " ".join(best).strip(" ,;:.!?\"'()")


def _supports(row: Row, threshold: float) -> list[_Support]:
    question_tokens = set(tokens(row["question"]))
    content = question_tokens - _LEXICAL_NOT_CONTENT
    supports = []
    for doc in row["documents"]:
        best: tuple[float, str] = (0.0, "")
        for sentence in (doc["text"][start:end] for start, end in sentence_spans(doc["text"])):
            coverage = len(content & set(tokens(sentence))) / len(content) if content else 0.0
            best = max(best, (coverage, sentence), key=lambda pair: pair[0])
        coverage, sentence = best
        if coverage >= threshold:
            candidate = _candidate(sentence, question_tokens, row["question"])
            if candidate:
                supports.append(_Support(doc["doc_id"], sentence, coverage, candidate))
    return sorted(supports, key=lambda s: -s.coverage)


def _agree(a: str, b: str) -> bool:
    return norm(a) == norm(b) or contains(a, b) or contains(b, a)


def lexical(rows: Sequence[Row], threshold: float = DEFAULT_THRESHOLD) -> list[dict[str, Any]]:
    """The lexical extractive baseline described in the module docstring."""
    preds = []
    for row in rows:
        supports = _supports(row, threshold)
        if not supports:
            preds.append({"id": row["id"], "action": "abstain"})
            continue
        best = supports[0]
        rival = next((s for s in supports[1:] if not _agree(s.candidate, best.candidate)), None)
        if rival is not None:
            preds.append(
                {
                    "id": row["id"],
                    "action": "flag_conflict",
                    "citations": [best.doc_id, rival.doc_id],
                    "quotes": [
                        {"doc_id": best.doc_id, "text": best.sentence},
                        {"doc_id": rival.doc_id, "text": rival.sentence},
                    ],
                }
            )
            continue
        preds.append(
            {
                "id": row["id"],
                "action": "answer",
                "answer": best.candidate,
                "citations": [best.doc_id],
                "quotes": [{"doc_id": best.doc_id, "text": best.sentence}],
            }
        )
    return preds


def evidence_blind(feature_set: str) -> Callable[[Sequence[Row]], list[dict[str, Any]]]:
    """The evidence-blind system of ``feature_set`` (see the module docstring)."""

    def system(rows: Sequence[Row]) -> list[dict[str, Any]]:
        actions = cross_fit_actions(rows, feature_set)
        return [
            pred if action == "answer" else {"id": row["id"], "action": action}
            for row, action, pred in zip(rows, actions, lexical(rows), strict=True)
        ]

    system.__doc__ = f"The lexical system, its action replaced by the one {feature_set!r} predicts."
    return system


def _copies(pair: Pair | None) -> bool:
    return pair is not None and pair.containment >= NEAR_DUPLICATE_SYSTEM


def _number_edit(pair: Pair | None) -> bool:
    if not _copies(pair):
        return False
    kinds = differing_kinds(pair.differing)
    return bool(kinds["year"] or kinds["number"])


STRING_TESTS: dict[str, Callable[[Pair | None], bool]] = {
    "near-duplicate": _copies,
    "diff": _number_edit,
}
"""When each string-matching system flags a conflict, from the row's closest pair of documents."""


def string_matching(name: str) -> Callable[[Sequence[Row]], list[dict[str, Any]]]:
    """The string-matching system ``name`` of :data:`STRING_TESTS` (see the module docstring)."""
    test = STRING_TESTS[name]

    def system(rows: Sequence[Row]) -> list[dict[str, Any]]:
        preds = []
        for row, pred in zip(rows, lexical(rows), strict=True):
            pair = closest_pair(row)
            if test(pair):
                documents = row["documents"]
                citations = [documents[pair.inner]["doc_id"], documents[pair.outer]["doc_id"]]
                pred = {"id": row["id"], "action": "flag_conflict", "citations": citations}
            preds.append(pred)
        return preds

    system.__doc__ = f"The lexical system, flagging a conflict where {name!r} finds one (module docstring)."
    return system


SYSTEMS: dict[str, Callable[[Sequence[Row]], list[dict[str, Any]]]] = {
    "lexical": lexical,
    "oracle": oracle,
    "always-answer": always_answer,
    "doc-count": evidence_blind("doc-count"),
    "title-count": evidence_blind("title-count"),
    "length-gaps": evidence_blind("length-gaps"),
    "layout": evidence_blind("layout"),
    **{name: string_matching(name) for name in STRING_TESTS},
}


def predict(system: str, rows: Sequence[Row]) -> list[dict[str, Any]]:
    """The predictions of reference system ``system`` (a key of :data:`SYSTEMS`) on ``rows``."""
    return SYSTEMS[system](rows)
