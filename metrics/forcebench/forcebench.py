"""ForceBench: MVR, FS, LPR and CPA of a citation evaluator.

A thin `evaluate` face over ``eviscope.suites.forcebench.scoring`` (contract §6); the README is the metric card.
"""

from __future__ import annotations

from collections.abc import Iterator

import datasets
import evaluate

from eviscope.core.errors import EviScopeError, plain
from eviscope.suites.forcebench.scoring import (
    ForcePrediction,
    check_rows,
    score_predictions,
    validate_predictions,
)

_CITATION = """\
@misc{eviscope_forcebench,
  title = {ForceBench: evidence-force calibration for cited RAG (EviScope suite)},
  note = {Metric definitions: EviScope suite contract (docs/contract.md), section 6}
}
"""

_DESCRIPTION = """\
Each ForceBench pair holds the cited evidence fixed and pairs a weaker claim with a stronger one
(one local force increase on one axis). On a contrast pair the evidence warrants only the weaker
(calibrated) claim; on a control (`pair_type: licensed`) it warrants the stronger one too. An
evaluator scores both claims. MVR is the share of contrast units where the raised claim scores at
least as high as the calibrated one (a tie is a violation); FS is the mean margin s_safe - s_raised
over contrast units. LPR is the share of control units where the warranted stronger claim scores
below the weaker one. CPA = 1/2 (1 - MVR) + 1/2 (1 - LPR), a balanced accuracy: an evaluator that
distrusts strong wording without reading the evidence has a low MVR, a high LPR and a CPA near 0.5.
Lower MVR and LPR, higher FS and CPA are better. A unit with a missing score (unparsable output,
refusal, or a label outside its prompt's label set) is a violation or a penalty with margin 0.
Several evaluators pool their units.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: one dict per (pair, evaluator) unit with `id`, `evaluator`, and either the scores
        `score_safe` / `score_raised` (non-LLM evaluators, `prompt` None) or the judge `prompt`
        (`generic`, `axis_free`, `force_aware`, `dummy_axis`) and its labels `label_safe` /
        `label_raised`, which are mapped to scores.
    references: for each prediction, the ForceBench row it scores: `id`, `axis`, `severity`,
        `pair_type` (`contrast` or `licensed`; absent: `contrast`) and optionally `split` (`eval` or
        `pool`). Every evaluator must score every referenced row exactly once. When some references
        are in the `eval` split, the results are on those rows (the headline, as `eviscope score`
        gives it) and the predictions on the others are set aside (`set_aside`; every row:
        `all_rows`).
Raises:
    EviScopeError (a ValueError): a prediction or reference that breaks the contract (docs/contract.md §6 or §5; the message
        names its position and field; a key that is a near miss of a known one the prediction lacks,
        as `label_raise`), a prediction paired with another row's reference, a duplicate (id,
        evaluator), or a referenced row an evaluator left out.
Warns:
    EviScopeWarning (a UserWarning), one line each: an unknown key that is no near miss (ignored;
        once per key); labels outside their prompt's label set, counted per value (each scores
        null, as the contract says: a violation or a penalty).
Returns:
    `mvr`, `fs`, `n` (contrast units), `violations`, `lpr`, `n_licensed` (control units), `penalties`,
    `cpa` (None unless both kinds are present) and `missing`; the same under `per_axis`,
    `per_severity` and `per_evaluator` (which also holds per-axis and per-severity results); `split`
    (`eval`, or `all` when no reference is in the eval split) and `set_aside`.
Examples:
    >>> import evaluate
    >>> forcebench = evaluate.load("metrics/forcebench")
    >>> refs = [{"id": "fb-1", "axis": "modality", "severity": 2}, {"id": "fb-2", "axis": "numeric", "severity": 1}]
    >>> preds = [
    ...     {"id": "fb-1", "evaluator": "judge", "prompt": "force_aware",
    ...      "label_safe": "force_calibrated", "label_raised": "force_gap"},
    ...     {"id": "fb-2", "evaluator": "judge", "prompt": "force_aware",
    ...      "label_safe": "force_calibrated", "label_raised": "force_calibrated"},
    ... ]
    >>> result = forcebench.compute(predictions=preds, references=refs)
    >>> result["mvr"], result["fs"], result["per_axis"]["numeric"]["mvr"]
    (0.5, 0.5, 1.0)

    A control whose stronger claim the judge calls a force gap is a licensed penalty:

    >>> refs.append({"id": "fb-3", "axis": "scope", "severity": 2, "pair_type": "licensed"})
    >>> preds.append({"id": "fb-3", "evaluator": "judge", "prompt": "force_aware",
    ...               "label_safe": "force_calibrated", "label_raised": "force_gap"})
    >>> result = forcebench.compute(predictions=preds, references=refs)
    >>> result["mvr"], result["lpr"], result["cpa"]
    (0.5, 1.0, 0.25)
"""

_PREDICTION = {
    "id": datasets.Value("string"),
    "evaluator": datasets.Value("string"),
    "prompt": datasets.Value("string"),
    "label_safe": datasets.Value("string"),
    "label_raised": datasets.Value("string"),
    "score_safe": datasets.Value("float64"),
    "score_raised": datasets.Value("float64"),
}


def _quiet(message: str) -> None:
    """Warnings of the check ``compute`` makes before storing, which scoring then gives once."""


def _complete(predictions: list[dict] | None, warn=None) -> list[dict] | None:
    """Predictions validated by the library, with every field (`evaluate` checks the string fields of
    the first example with isinstance, so an absent string is "")."""
    if predictions is None:
        return None
    return [
        {
            name: ("" if value.dtype == "string" and pred[name] is None else pred[name])
            for name, value in _PREDICTION.items()
        }
        for pred in (p.model_dump() for p in validate_predictions(predictions, warn=warn))
    ]


def _references(references: list[dict] | None) -> list[dict] | None:
    if references is None:
        return None
    return [
        {
            **{name: ref.get(name) for name in _REFERENCE},
            "pair_type": ref.get("pair_type", "contrast"),
            "split": ref.get("split") or "",
        }
        for ref in check_rows(references, "references")
    ]


_REFERENCE = {
    "id": datasets.Value("string"),
    "axis": datasets.Value("string"),
    "severity": datasets.Value("int32"),
    "pair_type": datasets.Value("string"),
    "split": datasets.Value("string"),
}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Forcebench(evaluate.Metric):
    """MVR, FS, LPR and CPA, overall, per axis, per severity and per evaluator (contract §6)."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            module_type="metric",
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": _PREDICTION, "references": _REFERENCE}),
            reference_urls=["https://huggingface.co/datasets/osunlp/AttributionBench"],
        )

    def add_batch(
        self, *, predictions: list[dict] | None = None, references: list[dict] | None = None, **kwargs
    ):
        """Add a batch, validated by the library first (a bad prediction or reference is an
        :class:`EviScopeError` naming it); fields contract §6 lets a line leave out may be absent or None."""
        predictions, references = _complete(predictions), _references(references)
        if predictions is not None and references is not None and len(predictions) != len(references):
            raise EviScopeError(
                f"got {len(predictions)} predictions and {len(references)} references; give each "
                "prediction the row it scores"
            )
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction: dict | None = None, reference: dict | None = None, **kwargs):
        """Add one prediction and its row, validated by the library first."""
        return super().add(
            prediction=None if prediction is None else _complete([prediction])[0],
            reference=None if reference is None else _references([reference])[0],
            **kwargs,
        )

    def compute(
        self, *, predictions: list[dict] | None = None, references: list[dict] | None = None, **kwargs
    ):
        """Score; predictions and references given here are validated and joined by the library
        before anything is stored, so a bad one raises an :class:`EviScopeError` and leaves no cache."""
        if predictions is not None and references is not None:
            predictions = list(predictions) if isinstance(predictions, Iterator) else predictions
            references = list(references) if isinstance(references, Iterator) else references
            _scored(_complete(predictions, _quiet), _references(references), _quiet)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def _compute(self, predictions: list[dict], references: list[dict]) -> dict:
        return _scored(predictions, references)


def _scored(predictions: list[dict], references: list[dict], warn=None) -> dict:
    """The library's headline results (``score_predictions``: the eval split when the references hold
    one) of completed predictions and references, paired by position."""
    if len(predictions) != len(references):
        raise EviScopeError(
            f"got {len(predictions)} predictions and {len(references)} references; give each "
            "prediction the row it scores"
        )
    rows: dict[str, dict] = {}
    preds = []
    for index, (pred, ref) in enumerate(zip(predictions, references, strict=True)):
        if pred["id"] != ref["id"]:
            raise EviScopeError(
                f"prediction {index + 1}: id '{plain(pred['id'], 60)}' is paired with reference id "
                f"'{plain(ref['id'], 60)}'"
            )
        row = rows.setdefault(ref["id"], ref)
        if (row["axis"], row["severity"], row["pair_type"]) != (
            ref["axis"],
            ref["severity"],
            ref["pair_type"],
        ):
            raise EviScopeError(
                f"reference {index + 1} (id {plain(ref['id'], 60)}): axis {ref['axis']}, severity "
                f"{ref['severity']}, pair_type {ref['pair_type']} disagrees with an earlier reference of the "
                f"same id (axis {row['axis']}, severity {row['severity']}, pair_type {row['pair_type']})"
            )
        preds.append(
            ForcePrediction.model_validate({k: v for k, v in pred.items() if v is not None and v != ""})
        )
    return score_predictions(list(rows.values()), preds, warn=warn)
