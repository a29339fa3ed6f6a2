"""ForceBench: monotonicity violation rate (MVR) and force sensitivity (FS) of a citation evaluator.

A thin `evaluate` face over ``eviscope.forcebench.scoring`` (SPEC §6); the README is the metric card.
"""

from __future__ import annotations

import datasets
import evaluate

from eviscope.errors import EviScopeError
from eviscope.forcebench.scoring import ForcePrediction, Unit, score_units

_CITATION = """\
@misc{eviscope_forcebench,
  title = {ForceBench: evidence-force calibration for cited RAG (EviScope suite)},
  note = {Metric definitions: EviScope SPEC, section 6}
}
"""

_DESCRIPTION = """\
Each ForceBench pair holds the cited evidence fixed and pairs a calibrated claim (warranted by the
evidence) with a raised claim (one local force increase on one axis). An evaluator scores both
claims. MVR is the share of (pair, evaluator) units where the raised claim scores at least as high
as the calibrated one (a tie is a violation); FS is the mean margin s_safe - s_raised. Lower MVR
and higher FS are better. A unit with a missing score (unparsable output, refusal, or a label
outside its prompt's label set) is a violation with margin 0. Several evaluators pool their units.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: one dict per (pair, evaluator) unit with `id`, `evaluator`, and either the scores
        `score_safe` / `score_raised` (non-LLM evaluators, `prompt` None) or the judge `prompt`
        (`generic`, `axis_free`, `force_aware`, `dummy_axis`) and its labels `label_safe` /
        `label_raised`, which are mapped to scores.
    references: for each prediction, the ForceBench row it scores: `id`, `axis`, `severity`.
Returns:
    `mvr`, `fs`, `n`, `violations`, `missing` over all units; the same under `per_axis`,
    `per_severity` and `per_evaluator` (which also holds per-axis and per-severity results).
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


def _complete(predictions: list[dict] | None) -> list[dict] | None:
    if predictions is None:
        return None
    # `evaluate` checks string fields of the first example with isinstance, so an absent string is "".
    return [
        {name: ("" if value.dtype == "string" else None) for name, value in _PREDICTION.items()}
        | {k: v for k, v in pred.items() if v is not None}
        for pred in predictions
    ]


_REFERENCE = {
    "id": datasets.Value("string"),
    "axis": datasets.Value("string"),
    "severity": datasets.Value("int32"),
}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Forcebench(evaluate.Metric):
    """MVR and FS, overall, per axis, per severity and per evaluator (SPEC §6)."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            module_type="metric",
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": _PREDICTION, "references": _REFERENCE}),
            reference_urls=["https://huggingface.co/datasets/osunlp/AttributionBench"],
        )

    def compute(
        self, *, predictions: list[dict] | None = None, references: list[dict] | None = None, **kwargs
    ):
        """Score; prediction fields that SPEC §6 lets a line leave out may be absent or None."""
        return super().compute(predictions=_complete(predictions), references=references, **kwargs)

    def add_batch(
        self, *, predictions: list[dict] | None = None, references: list[dict] | None = None, **kwargs
    ):
        """Add a batch; prediction fields that SPEC §6 lets a line leave out may be absent or None."""
        return super().add_batch(predictions=_complete(predictions), references=references, **kwargs)

    def _compute(self, predictions: list[dict], references: list[dict]) -> dict:
        units = []
        for pred, ref in zip(predictions, references, strict=True):
            if pred["id"] != ref["id"]:
                raise EviScopeError(f"prediction id {pred['id']!r} is paired with reference id {ref['id']!r}")
            fields = {k: v for k, v in pred.items() if v is not None and v != ""}
            s_safe, s_raised = ForcePrediction.model_validate(fields).scores()
            units.append(
                Unit(ref["id"], pred["evaluator"], ref["axis"], int(ref["severity"]), s_safe, s_raised)
            )
        return score_units(units)
