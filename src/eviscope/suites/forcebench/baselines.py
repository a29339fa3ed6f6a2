"""Deterministic ForceBench evaluators (contract §6): each scores a claim against the cited evidence.

- ``citation_presence``: 1 whenever there is cited evidence, so both claims tie (MVR 1, FS 0 by
  construction); the sanity check.
- ``token_overlap``: the share of the claim's distinct tokens (contract §1 ``tokens``) found in the evidence.
- ``entity_overlap``: Jaccard overlap of the entities and numbers (``lints.entities_and_numbers``) of
  the claim and of the evidence (0 when neither has any).
- ``rule_forcecheck``: token overlap, less 0.5 when the claim uses a strong-force word (``will``,
  ``always``, ``all``, ``causes``, ``proves``, …) that the evidence does not use.
- ``axis_forcecheck``: token overlap against the evidence sentence closest to the claim, less 0.25 for
  each axis on which the claim drops a limiter that sentence has (``may``, ``about``, ``some``,
  ``as of``, ``associated``, …) and 0.25 for each axis on which it adds a booster the sentence lacks.

The lexicons here are a generic hedge/booster list written apart from the drafting patterns; they
overlap in vocabulary, so on drafted rows the ForceCheck baselines are optimistic.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from eviscope.core.normalize import tokens
from eviscope.suites.forcebench.lints import entities_and_numbers

__all__ = ["BASELINES", "baseline_predictions"]

Scorer = Callable[[str, str], float]

_BOOSTERS: dict[str, frozenset[str]] = {
    "relation": frozenset(
        [
            "cause",
            "causes",
            "caused",
            "causing",
            "prevent",
            "prevents",
            "prevented",
            "cure",
            "cures",
            "cured",
            "proves",
            "proved",
            "require",
            "requires",
            "required",
            "determines",
            "ensures",
        ]
    ),
    "modality": frozenset(
        ["will", "definitely", "certainly", "always", "undoubtedly", "proven", "known", "guaranteed", "must"]
    ),
    "scope": frozenset(["all", "every", "everyone", "everywhere", "universally", "entire", "whole"]),
    "temporal": frozenset(["currently", "always", "now", "today", "forever", "permanently", "still", "time"]),
    "numeric": frozenset(["exactly", "precisely"]),
}
_LIMITERS: dict[str, frozenset[str]] = {
    "relation": frozenset(
        [
            "associated",
            "association",
            "linked",
            "link",
            "correlated",
            "correlation",
            "related",
            "risk",
            "contribute",
            "contributes",
            "contributed",
            "help",
            "helps",
            "helped",
            "recommend",
            "recommends",
            "recommended",
            "treat",
            "treats",
        ]
    ),
    "modality": frozenset(
        [
            "may",
            "might",
            "could",
            "possibly",
            "potentially",
            "perhaps",
            "probably",
            "likely",
            "suggest",
            "suggests",
            "suggested",
            "indicate",
            "indicates",
            "thought",
            "believed",
            "considered",
            "often",
            "usually",
            "sometimes",
            "generally",
            "typically",
            "commonly",
            "frequently",
        ]
    ),
    "scope": frozenset(
        [
            "some",
            "many",
            "several",
            "most",
            "majority",
            "children",
            "adults",
            "women",
            "men",
            "mice",
            "rats",
            "patients",
            "among",
            "certain",
        ]
    ),
    "temporal": frozenset(
        [
            "as",
            "of",
            "since",
            "expected",
            "projected",
            "predicted",
            "forecast",
            "scheduled",
            "was",
            "were",
            "had",
            "formerly",
            "previously",
        ]
    ),
    "numeric": frozenset(
        [
            "about",
            "approximately",
            "around",
            "roughly",
            "nearly",
            "almost",
            "over",
            "under",
            "least",
            "up",
            "than",
            "estimated",
            "between",
            "to",
        ]
    ),
}
_STRONG = frozenset().union(*_BOOSTERS.values())
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def citation_presence(evidence: str, claim: str) -> float:
    return 1.0 if evidence.strip() else 0.0


def token_overlap(evidence: str, claim: str) -> float:
    claim_tokens = set(tokens(claim))
    return len(claim_tokens & set(tokens(evidence))) / len(claim_tokens) if claim_tokens else 0.0


def entity_overlap(evidence: str, claim: str) -> float:
    claim_entities, evidence_entities = entities_and_numbers(claim), entities_and_numbers(evidence)
    union = claim_entities | evidence_entities
    return len(claim_entities & evidence_entities) / len(union) if union else 0.0


def rule_forcecheck(evidence: str, claim: str) -> float:
    unwarranted = (set(tokens(claim)) & _STRONG) - set(tokens(evidence))
    return max(0.0, token_overlap(evidence, claim) - (0.5 if unwarranted else 0.0))


def _numeric_limiter(text_tokens: list[str]) -> bool:
    """A limiter word followed by a number, or a range ``N to M``."""
    for i, word in enumerate(text_tokens[:-1]):
        if word in _LIMITERS["numeric"] and re.match(r"\d", text_tokens[i + 1]):
            return True
    return False


def axis_forcecheck(evidence: str, claim: str) -> float:
    claim_tokens = tokens(claim)
    sentences = [s for s in _SENTENCE.split(evidence) if s.strip()] or [evidence]
    closest = max(sentences, key=lambda s: token_overlap(s, claim))
    sentence_tokens = tokens(closest)
    claim_set, sentence_set = set(claim_tokens), set(sentence_tokens)
    penalty = 0.0
    for axis in _BOOSTERS:
        if axis == "numeric":
            dropped = _numeric_limiter(sentence_tokens) and not _numeric_limiter(claim_tokens)
        else:
            dropped = bool((sentence_set - claim_set) & _LIMITERS[axis])
        added = bool((claim_set - sentence_set) & _BOOSTERS[axis])
        penalty += 0.25 * dropped + 0.25 * added
    return max(0.0, token_overlap(closest, claim) - penalty)


BASELINES: dict[str, Scorer] = {
    "citation_presence": citation_presence,
    "token_overlap": token_overlap,
    "entity_overlap": entity_overlap,
    "rule_forcecheck": rule_forcecheck,
    "axis_forcecheck": axis_forcecheck,
}
"""Every deterministic evaluator by name, in reporting order."""


def baseline_predictions(
    rows: Sequence[Mapping[str, Any]], names: Sequence[str] = tuple(BASELINES)
) -> list[dict]:
    """One contract §6 prediction per (row, baseline), with scores given directly and no prompt."""
    return [
        {
            "id": row["id"],
            "evaluator": f"baseline/{name}",
            "score_safe": BASELINES[name](row["evidence"], row["calibrated_claim"]),
            "score_raised": BASELINES[name](row["evidence"], row["raised_claim"]),
        }
        for name in names
        for row in rows
    ]
