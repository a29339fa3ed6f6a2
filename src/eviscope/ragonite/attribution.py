"""Counterfactual attribution (contract §7, from RAGONITE) and the naive cosine baseline.

For each row (a question, the evidences shown, and the model's original answer):

1. embed the evidences and cluster them with DBSCAN (cosine distance; ``eps`` and ``min_samples``
   are explicit parameters, never fitted to gold labels); every noise point is a cluster of its own,
   so near-duplicates fall together and removing one of them cannot make the other look causal;
2. for every cluster, build the counterfactual input without it, ``repeats`` times;
3. generate the answers of every counterfactual of every row in ONE call of the batched
   ``generate(requests) -> answers`` callable (the caller's backend);
4. score each cluster ``1 - mean cos(original answer, counterfactual answer)`` over its repeats;
5. normalize the scores over clusters by a masked softmax with temperature ``t``: a cluster whose
   removal changed nothing (score ``<= 0``) is masked and gets 0.

The top cluster is the argmax of the distribution; its top evidence is the member most similar to
the answer (clusters hold near-duplicates, so this only breaks ties). The naive baseline scores each
evidence by ``cos(answer, evidence)``.

Against evidence-level gold (EviScope's ``supporting_doc_ids``) :func:`evaluate_attribution` gives
the share of rows whose top evidence is gold, over all rows given: a row without an answer, without
an attribution, with no gold evidence among those shown, or whose counterfactuals all left the
answer unchanged counts as a failure. McNemar compares the two methods row by row.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from eviscope.core.errors import EviScopeError
from eviscope.core.stats import mcnemar_p

__all__ = [
    "DEFAULT_EPS",
    "DEFAULT_MIN_SAMPLES",
    "DEFAULT_TEMPERATURE",
    "Attribution",
    "AttributionAccuracy",
    "CounterfactualRequest",
    "Evidence",
    "Generate",
    "Row",
    "attribute",
    "cluster_evidences",
    "evaluate_attribution",
    "masked_softmax",
]

DEFAULT_EPS = 0.005
"""DBSCAN radius in cosine distance: the paper's value (near-duplicates only)."""
DEFAULT_MIN_SAMPLES = 2
"""DBSCAN core size: the paper's value (two copies make a cluster)."""
DEFAULT_TEMPERATURE = 0.05
"""Softmax temperature: the paper's value; it changes the distribution's sharpness, never its argmax."""

Embed = Callable[[Sequence[str]], np.ndarray]
"""Texts in, one vector per text out (need not be normalized)."""


@dataclass(frozen=True)
class Evidence:
    doc_id: str
    text: str
    title: str = ""


@dataclass(frozen=True)
class Row:
    """One question with the evidences shown to the model and the model's original answer."""

    row_id: str
    question: str
    documents: tuple[Evidence, ...]
    answer: str | None
    """``None`` or empty when the model did not answer: such a row is not attributed."""


@dataclass(frozen=True)
class CounterfactualRequest:
    """One generation the backend must run: the question with one cluster of evidences removed."""

    row_id: str
    question: str
    documents: tuple[Evidence, ...]
    """The evidences left, in their original order."""
    removed: tuple[str, ...]
    """Doc ids of the removed cluster."""
    repeat: int
    """0 … ``repeats`` − 1: the same input asked again (for sampling backends)."""


Generate = Callable[[list[CounterfactualRequest]], list[str]]
"""The batched backend: one answer per request, in order."""


@dataclass(frozen=True)
class Attribution:
    """The attribution of one row: clusters, their contributions and distribution, the top evidence."""

    row_id: str
    clusters: tuple[tuple[str, ...], ...]
    """Doc ids per cluster, clusters in the order of their first evidence."""
    contributions: tuple[float, ...]
    """``1 - mean cos(original, counterfactual)`` per cluster."""
    distribution: tuple[float, ...]
    """Masked softmax of the contributions; all 0 when no removal changed the answer."""
    top_cluster: int | None
    top_doc_id: str | None
    naive_scores: tuple[float, ...]
    """``cos(answer, evidence)`` per document, in document order."""
    naive_top_doc_id: str | None
    counterfactual_answers: tuple[tuple[str, ...], ...]
    """The ``repeats`` answers generated without each cluster."""
    repeats: int

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def cluster_evidences(vectors: np.ndarray, eps: float, min_samples: int) -> list[list[int]]:
    """Group evidence indices by DBSCAN on cosine distance; noise points become singleton clusters.

    >>> cluster_evidences(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.001]]), eps=0.01, min_samples=2)
    [[0, 2], [1]]
    """
    if len(vectors) == 0:
        return []
    from sklearn.cluster import DBSCAN

    labels = DBSCAN(eps=eps, min_samples=min_samples, metric="cosine").fit_predict(vectors)
    clusters: dict[object, list[int]] = {}
    for index, label in enumerate(labels.tolist()):
        clusters.setdefault(("noise", index) if label == -1 else label, []).append(index)
    return sorted(clusters.values(), key=lambda members: members[0])


def masked_softmax(scores: Sequence[float], mask: Sequence[bool], temperature: float) -> np.ndarray:
    """Softmax of ``scores / temperature`` over the unmasked entries; masked entries get 0.

    >>> masked_softmax([0.2, 0.0, 0.2], [True, False, True], temperature=0.05).tolist()
    [0.5, 0.0, 0.5]
    >>> masked_softmax([0.3, 0.1], [False, False], temperature=1.0).tolist()
    [0.0, 0.0]
    """
    if temperature <= 0:
        raise EviScopeError(f"the softmax temperature must be positive, not {temperature}")
    values = np.asarray(scores, dtype=np.float64) / temperature
    keep = np.asarray(mask, dtype=bool)
    out = np.zeros_like(values)
    if keep.any():
        shifted = np.exp(values[keep] - values[keep].max())
        out[keep] = shifted / shifted.sum()
    return out


def _cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine of every row of ``a`` with every row of ``b``; a zero vector has cosine 0 with all."""

    def unit(x: np.ndarray) -> np.ndarray:
        norms = np.linalg.norm(x, axis=1, keepdims=True)
        return np.divide(x, norms, out=np.zeros_like(x, dtype=np.float64), where=norms > 0)

    return unit(np.atleast_2d(a).astype(np.float64)) @ unit(np.atleast_2d(b).astype(np.float64)).T


def attribute(
    rows: Sequence[Row],
    generate: Generate,
    embed: Embed,
    *,
    eps: float = DEFAULT_EPS,
    min_samples: int = DEFAULT_MIN_SAMPLES,
    temperature: float = DEFAULT_TEMPERATURE,
    repeats: int = 1,
) -> list[Attribution | None]:
    """Counterfactual and naive attribution of every row; ``None`` for a row without an answer.

    ``generate`` is called once, with every counterfactual of every answered row (``repeats`` per
    cluster), and must return one answer per request in order. ``embed`` is called once for the
    evidences of all ``rows`` (answered or not, so the call is the same for every run over the same
    rows and a caching ``embed`` computes it once) and once for the answers.
    """
    if repeats < 1:
        raise EviScopeError(f"repeats must be at least 1, not {repeats}")
    ids = [row.row_id for row in rows]
    if len(set(ids)) != len(ids):
        raise EviScopeError(f"duplicate row ids: {sorted({i for i in ids if ids.count(i) > 1})}")
    answered = [row for row in rows if row.answer]
    # Every row's evidences, answered or not: the texts (so a cache key) then depend only on the rows,
    # and another run over the same rows reuses them.
    texts = sorted({doc.text for row in rows for doc in row.documents}) if answered else []
    evidence_vectors = dict(zip(texts, embed(texts), strict=True)) if texts else {}
    clusters: dict[str, list[list[int]]] = {}
    requests: list[CounterfactualRequest] = []
    for row in answered:
        vectors = np.array([evidence_vectors[doc.text] for doc in row.documents])
        clusters[row.row_id] = cluster_evidences(vectors, eps, min_samples)
        for members in clusters[row.row_id]:
            kept = tuple(doc for i, doc in enumerate(row.documents) if i not in members)
            removed = tuple(row.documents[i].doc_id for i in members)
            requests.extend(
                CounterfactualRequest(row.row_id, row.question, kept, removed, r) for r in range(repeats)
            )
    generated = generate(requests) if requests else []
    if len(generated) != len(requests):
        raise EviScopeError(
            f"the backend returned {len(generated)} answers for {len(requests)} counterfactuals"
        )
    answer_texts = [row.answer or "" for row in answered] + [answer or "" for answer in generated]
    answer_vectors = embed(answer_texts) if answer_texts else np.zeros((0, 0))
    original = dict(zip((row.row_id for row in answered), answer_vectors[: len(answered)], strict=True))
    cursor = len(answered)
    by_row: dict[str, Attribution] = {}
    for row in answered:
        doc_vectors = np.array([evidence_vectors[doc.text] for doc in row.documents])
        naive = _cosine(original[row.row_id], doc_vectors)[0] if row.documents else np.zeros(0)
        contributions, answers = [], []
        for _members in clusters[row.row_id]:
            vectors = answer_vectors[cursor : cursor + repeats]
            answers.append(tuple(generated[cursor - len(answered) : cursor - len(answered) + repeats]))
            contributions.append(float(1.0 - _cosine(original[row.row_id], vectors)[0].mean()))
            cursor += repeats
        distribution = masked_softmax(contributions, [c > 0 for c in contributions], temperature)
        top_cluster = int(distribution.argmax()) if distribution.any() else None
        top_doc = None
        if top_cluster is not None:
            best = max(clusters[row.row_id][top_cluster], key=lambda i: naive[i])
            top_doc = row.documents[best].doc_id
        by_row[row.row_id] = Attribution(
            row_id=row.row_id,
            clusters=tuple(tuple(row.documents[i].doc_id for i in m) for m in clusters[row.row_id]),
            contributions=tuple(contributions),
            distribution=tuple(float(p) for p in distribution),
            top_cluster=top_cluster,
            top_doc_id=top_doc,
            naive_scores=tuple(float(s) for s in naive),
            naive_top_doc_id=row.documents[int(naive.argmax())].doc_id if len(naive) else None,
            counterfactual_answers=tuple(answers),
            repeats=repeats,
        )
    return [by_row.get(row.row_id) if row.answer else None for row in rows]


@dataclass(frozen=True)
class AttributionAccuracy:
    """Attribution accuracy of both methods over the same rows, with exact McNemar between them."""

    rows: int
    counterfactual: float
    naive: float
    b: int
    """Rows where counterfactual attribution is right and naive attribution is not."""
    c: int
    """Rows where naive attribution is right and counterfactual attribution is not."""
    p_value: float
    counterfactual_hits: tuple[bool, ...]
    naive_hits: tuple[bool, ...]

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def evaluate_attribution(
    rows: Sequence[Mapping[str, Any]], attributions: Mapping[str, Attribution | None]
) -> AttributionAccuracy:
    """Share of ``rows`` whose top evidence is in the row's ``supporting_doc_ids``, for both methods.

    ``rows`` are EviScope rows (``id``, ``documents``, ``supporting_doc_ids``), all of them counted;
    ``attributions`` maps row id to its attribution (missing or ``None``: not answered, a failure).
    A gold id must also be among the row's shown documents, or the row fails for both methods.
    """
    cf_hits, naive_hits = [], []
    for row in rows:
        shown = {str(doc["doc_id"]) for doc in row["documents"]}
        gold = {str(doc_id) for doc_id in row["supporting_doc_ids"]} & shown
        found = attributions.get(str(row["id"]))
        cf_hits.append(found is not None and found.top_doc_id in gold)
        naive_hits.append(found is not None and found.naive_top_doc_id in gold)
    cf, nv = np.array(cf_hits, dtype=bool), np.array(naive_hits, dtype=bool)
    b, c = int((cf & ~nv).sum()), int((~cf & nv).sum())
    return AttributionAccuracy(
        rows=len(rows),
        counterfactual=float(cf.mean()) if len(rows) else 0.0,
        naive=float(nv.mean()) if len(rows) else 0.0,
        b=b,
        c=c,
        p_value=mcnemar_p(b, c),
        counterfactual_hits=tuple(bool(x) for x in cf),
        naive_hits=tuple(bool(x) for x in nv),
    )
