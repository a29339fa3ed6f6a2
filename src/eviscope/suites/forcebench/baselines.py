"""Deterministic ForceBench evaluators (contract §6): each scores a claim against the cited evidence.

- ``citation_presence``: 1 whenever there is cited evidence, so both claims tie (MVR 1, FS 0 by
  construction); the sanity check.
- ``token_overlap``: the share of the claim's distinct tokens (contract §1 ``tokens``) found in the evidence.
- ``entity_overlap``: Jaccard overlap of the entities and numbers (``lints.entities_and_numbers``) of
  the claim and of the evidence (0 when neither has any).
- ``copy_detector``: 1 when the claim stands word for word in the evidence (contract §1 ``contains``),
  else half its token overlap: it reads the evidence only as a string, so whichever claim copies the
  evidence wins (issue 33). ``token_overlap`` is the word-overlap evaluator of the same issue.
- ``rule_forcecheck``: token overlap, less 0.5 when the claim uses a strong-force word (``will``,
  ``always``, ``all``, ``causes``, ``proves``, …) that the evidence does not use.
- ``axis_forcecheck``: token overlap against the evidence sentence closest to the claim, less 0.25 for
  each axis on which the claim drops a limiter that sentence has (``may``, ``about``, ``some``,
  ``as of``, ``associated``, …) and 0.25 for each axis on which it adds a booster the sentence lacks.

The lexicons here are a generic hedge/booster list written apart from the drafting patterns; they
overlap in vocabulary, so on drafted rows the ForceCheck baselines are optimistic.

Evidence-blind baselines (contract §6) never read the evidence; they show what MVR alone cannot:

- ``shorter_claim``: prefers the shorter claim (score: minus its word count).
- ``fewer_force_words``: prefers the claim with fewer force words (score: minus its count of words of
  ``FORCE_WORDS``, the booster list above).
- ``edit_direction`` (a pair scorer, :data:`PAIR_BASELINES`): reads only the words in which the two
  claims differ (``lints.changed_runs``) and prefers the claim on the weaker side of that edit: a side
  whose changed words hold more boosters (``FORCE_WORDS``) less limiters (the hedges and qualifiers
  above) is the stronger one and scores 0, the other 1; an edit of no known direction ties at 0.5.
- ``claim_only_classifier`` (``classifier_predictions``): a logistic regression on the two claims'
  words and the words the edit removes and adds that tells ``pair_type``, cross-fitted (5 folds
  stratified by pair type, seeded): each row is predicted once, by a model fitted on the other folds;
  it gives a pair it calls a contrast ``(1, 0)`` and a control ``(1, 1)``. Its accuracy against
  chance (the share of the commoner pair type) says whether the claims alone give the pair type away.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from eviscope.core.normalize import contains, tokens
from eviscope.suites.forcebench.lints import changed_runs, entities_and_numbers

__all__ = [
    "BASELINES",
    "EVIDENCE_BLIND",
    "FORCE_WORDS",
    "PAIR_BASELINES",
    "baseline_predictions",
    "classifier_predictions",
]

Scorer = Callable[[str, str], float]
"""A claim's support score from (evidence, claim)."""
PairScorer = Callable[[str, str, str], tuple[float, float]]
"""Both claims' scores, (s_safe, s_raised), from (evidence, calibrated claim, raised claim)."""

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
FORCE_WORDS: frozenset[str] = _STRONG | frozenset(
    ["only", "entirely", "exactly", "precisely", "proves", "prove"]
)
"""The force lexicon of ``fewer_force_words``: the boosters of every axis."""
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


def copy_detector(evidence: str, claim: str) -> float:
    return 1.0 if contains(evidence, claim) else 0.5 * token_overlap(evidence, claim)


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


def shorter_claim(evidence: str, claim: str) -> float:
    return -float(len(claim.split()))


def fewer_force_words(evidence: str, claim: str) -> float:
    return -float(sum(word in FORCE_WORDS for word in tokens(claim)))


_LIMITER_WORDS = frozenset().union(*_LIMITERS.values()) - {"of", "to", "as", "up"}
"""Hedges and qualifiers of every axis, less the function words that only mark one in context."""


def _strength(words: Sequence[str]) -> int:
    """Boosters less limiters among ``words``."""
    lowered = [word for text in words for word in tokens(text)]
    return sum(w in FORCE_WORDS for w in lowered) - sum(w in _LIMITER_WORDS for w in lowered)


def edit_direction(evidence: str, calibrated: str, raised: str) -> tuple[float, float]:
    edits = changed_runs(calibrated, raised)
    weak_side = _strength([w for old, _ in edits for w in old])
    raised_side = _strength([w for _, new in edits for w in new])
    if weak_side == raised_side:
        return 0.5, 0.5
    return (1.0, 0.0) if raised_side > weak_side else (0.0, 1.0)


BASELINES: dict[str, Scorer] = {
    "citation_presence": citation_presence,
    "token_overlap": token_overlap,
    "entity_overlap": entity_overlap,
    "copy_detector": copy_detector,
    "rule_forcecheck": rule_forcecheck,
    "axis_forcecheck": axis_forcecheck,
    "shorter_claim": shorter_claim,
    "fewer_force_words": fewer_force_words,
}
"""Every deterministic evaluator that scores one claim at a time, by name, in reporting order."""

PAIR_BASELINES: dict[str, PairScorer] = {"edit_direction": edit_direction}
"""Deterministic evaluators that score the two claims of a pair together, reported after :data:`BASELINES`."""

EVIDENCE_BLIND: tuple[str, ...] = (
    "shorter_claim",
    "fewer_force_words",
    "edit_direction",
    "claim_only_classifier",
)
"""The evaluators that never read the evidence."""


def _pair_scores(name: str, row: Mapping[str, Any]) -> tuple[float, float]:
    evidence, calibrated, raised = row["evidence"], row["calibrated_claim"], row["raised_claim"]
    if name in PAIR_BASELINES:
        return PAIR_BASELINES[name](evidence, calibrated, raised)
    return BASELINES[name](evidence, calibrated), BASELINES[name](evidence, raised)


def baseline_predictions(
    rows: Sequence[Mapping[str, Any]], names: Sequence[str] = (*BASELINES, *PAIR_BASELINES)
) -> list[dict]:
    """One contract §6 prediction per (row, baseline), with scores given directly and no prompt."""
    predictions = []
    for name in names:
        for row in rows:
            safe, raised = _pair_scores(name, row)
            predictions.append(
                {"id": row["id"], "evaluator": f"baseline/{name}", "score_safe": safe, "score_raised": raised}
            )
    return predictions


def _claim_features(row: Mapping[str, Any]) -> str:
    """The text a claim-only classifier reads: both claims' words, then the removed and added words."""
    weak, strong = row["calibrated_claim"], row["raised_claim"]
    edits = " ".join(
        [f"del_{w.lower()}" for old, _ in changed_runs(weak, strong) for w in old]
        + [f"add_{w.lower()}" for _, new in changed_runs(weak, strong) for w in new]
    )
    return f"{weak} {strong} {edits or 'del_none add_none'}"


CLASSIFIER_FOLDS = 5
"""Folds of the claim-only classifier's cross-fitting, fewer when a pair type has fewer rows."""


def _folds(rows: Sequence[Mapping[str, Any]], seed: int, folds: int) -> list[list[int]]:
    """Row indices of each held-out fold: stratified by pair type and seeded, ``folds`` of them or as
    many as the rarer pair type has rows (at least 2); with a pair type of one row, not stratified.

    >>> kinds = ["contrast"] * 8 + ["licensed"] * 3
    >>> parts = _folds([{"pair_type": k} for k in kinds], seed=0, folds=5)
    >>> len(parts), sorted(i for part in parts for i in part) == list(range(11))
    (3, True)
    >>> [sum(kinds[i] == "licensed" for i in part) for part in parts]
    [1, 1, 1]
    """
    from sklearn.model_selection import KFold, StratifiedKFold

    kinds = [row["pair_type"] for row in rows]
    rarest = min(Counter(kinds).values())
    k = max(2, min(folds, rarest, len(rows)))
    if rarest >= 2 and len(set(kinds)) > 1:
        splitter = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
        return [list(test) for _, test in splitter.split(kinds, kinds)]
    splitter = KFold(n_splits=k, shuffle=True, random_state=seed)
    return [list(test) for _, test in splitter.split(kinds)]


def classifier_predictions(
    rows: Sequence[Mapping[str, Any]], seed: int = 0, folds: int = CLASSIFIER_FOLDS
) -> tuple[list[dict], dict[str, Any]]:
    """Cross-fit the claim-only ``pair_type`` classifier: ``rows`` fall into ``folds`` folds
    (stratified by pair type, seeded; :func:`_folds`), and each fold is predicted by a model fitted on
    the other folds only, so that every row, controls included, is predicted exactly once by a model
    that never saw it. Returns (its contract §6 predictions, one per row, a report with the ``folds``,
    the rows ``test``-ed, their ``ids``, the ``accuracy`` and ``chance``: the share of the commoner
    pair type, what always guessing it scores). A fold whose fitted rows hold one pair type is
    predicted as that type."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    rows = sorted(rows, key=lambda r: r["id"])
    features = [_claim_features(r) for r in rows]
    truth = [r["pair_type"] for r in rows]
    parts = _folds(rows, seed, folds)
    guesses: list[str] = [""] * len(rows)
    for part in parts:
        held = set(part)
        fitted = [i for i in range(len(rows)) if i not in held]
        kinds = sorted({truth[i] for i in fitted})
        if len(kinds) == 1:
            for i in part:
                guesses[i] = kinds[0]
            continue
        model = make_pipeline(
            CountVectorizer(ngram_range=(1, 2), lowercase=True, binary=True),
            LogisticRegression(max_iter=2000, random_state=seed),
        )
        model.fit([features[i] for i in fitted], [truth[i] for i in fitted])
        for i, guess in zip(part, model.predict([features[i] for i in part]), strict=True):
            guesses[i] = str(guess)
    accuracy = sum(g == t for g, t in zip(guesses, truth, strict=True)) / len(rows)
    chance = max(truth.count(kind) for kind in set(truth)) / len(rows)
    predictions = [
        {
            "id": row["id"],
            "evaluator": "baseline/claim_only_classifier",
            "score_safe": 1.0,
            "score_raised": 0.0 if guess == "contrast" else 1.0,
        }
        for row, guess in zip(rows, guesses, strict=True)
    ]
    report = {
        "folds": len(parts),
        "test": len(rows),
        "accuracy": accuracy,
        "chance": chance,
        "ids": [r["id"] for r in rows],
    }
    return predictions, report
