"""Whether EviScope predictions were made for the rows they are scored against.

``eviscope-v1`` and ``eviscope-v1.1`` share their row ids (``q01-sufficient``), so the predictions of
one join the rows of the other without an error and score as a system that cites and quotes nothing
it was shown (issue 35: the lexical baseline's ``eviscope-v1.1`` predictions scored 0.294 joint
success on ``eviscope-v1``, 0.544 on their own config). What a prediction takes from its row's
documents tells: each cited doc id should be one of them, and each non-empty quote should occur in
one (contract §1 ``contains``). When at most half of that evidence does, :func:`mismatch_warning`
says so in one line and names the other configs whose rows more than half of it fits.

A constrained model cites only its row's doc ids, so even a model whose quotes are its own words
fits its config (SmolLM2's ``eviscope-v1.1`` runs: 161 and 174 of 243 and 244 pieces of evidence
fit ``eviscope-v1.1``, 12 and 11 fit ``eviscope-v1``).

>>> row = {"id": "q1", "documents": [{"doc_id": "d1", "text": "The battle was fought in 1066."}]}
>>> evidence_fit({"q1": row}, [Prediction(id="q1", action="answer", citations=["d1", "d9"],
...                                       quotes=[{"doc_id": "d1", "text": "fought in 1066"}])])
(2, 3)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from eviscope.core.errors import EviScopeError
from eviscope.core.normalize import contains
from eviscope.suites.eviscope.predictions import Prediction

__all__ = ["MAX_CHECKED", "MIN_EVIDENCE", "evidence_fit", "mismatch_warning"]

MIN_EVIDENCE = 8
"""The fewest cited ids and quotes from which the share that fits says anything."""

MAX_CHECKED = 2000
"""The most predictions checked (evenly spread over the file), so the check stays cheap on big files."""

Rows = Sequence[Mapping[str, Any]]


def evidence_fit(rows_by_id: Mapping[str, Mapping[str, Any]], preds: Iterable[Prediction]) -> tuple[int, int]:
    """(fitting, total) over the cited doc ids and non-empty quotes of ``preds``: a cited id fits when
    it is a document of the prediction's row, a quote when its text occurs in one of them; a
    prediction whose id is not among the rows fits nowhere."""
    fitting = total = 0
    for pred in preds:
        row = rows_by_id.get(pred.id)
        documents = row["documents"] if row is not None else ()
        ids = {doc["doc_id"] for doc in documents}
        for cited in pred.citations or ():
            total += 1
            fitting += cited in ids
        for quote in pred.quotes or ():
            if quote.text.strip():
                total += 1
                fitting += any(contains(doc["text"], quote.text) for doc in documents)
    return fitting, total


def _checked(preds: Sequence[Prediction]) -> Sequence[Prediction]:
    step = -(-len(preds) // MAX_CHECKED)
    return preds[::step] if step > 1 else preds


def mismatch_warning(
    rows: Rows,
    preds: Sequence[Prediction],
    source: str,
    config: str | None = None,
    others: Mapping[str, Callable[[], Rows]] | None = None,
) -> str | None:
    """One line when at most half of what ``preds`` cite and quote is in their rows' documents (of
    ``config``, or of the references when None), naming each config of ``others`` (name → its rows;
    one that cannot be loaded is passed over) whose rows more than half of it fits; else None."""
    checked = _checked(preds)
    fitting, total = evidence_fit({row["id"]: row for row in rows}, checked)
    if total < MIN_EVIDENCE or 2 * fitting > total:
        return None
    fit = []
    for name, load in (others or {}).items():
        try:
            other_rows = load()
        except (EviScopeError, OSError):  # not built, or not served: not one to name
            continue
        there, _ = evidence_fit({row["id"]: row for row in other_rows}, checked)
        if 2 * there > total:
            fit.append(f"{name} ({there} of {total})")
    where = f"in {config}" if config else "in the references"
    if fit:
        verdict = f"they fit {', '.join(fit)}: were they made for that config?"
    elif others is not None:
        verdict = "they fit no other built config either"
    else:
        verdict = "were they made for another config?"
    return (
        f"{source}: {total - fitting} of {total} cited doc ids and quotes are not in their rows' "
        f"documents {where}; {verdict}"
    )
