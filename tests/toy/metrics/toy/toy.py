"""Toy: the accuracy of predicted sums. A thin `evaluate` face over ``eviscope.suites.toy.scoring``;
the README is the metric card."""

from __future__ import annotations

import datasets
import evaluate

from eviscope.suites.toy.scoring import accuracy

_CITATION = "@misc{eviscope_toy, title = {The toy benchmark of the EviScope suite's tests}}\n"

_DESCRIPTION = "The share of rows whose predicted sum is a + b; a missing sum is wrong.\n"

_KWARGS_DESCRIPTION = """
Args:
    predictions: one dict per row: `id` and the predicted `sum` (None: no answer).
    references: the rows: `id`, `a` and `b`.
Returns:
    `n` (rows) and `accuracy`.
Examples:
    >>> import evaluate
    >>> toy = evaluate.load("metrics/toy")
    >>> toy.compute(
    ...     predictions=[{"id": "t1", "sum": 3}, {"id": "t2", "sum": 5}],
    ...     references=[{"id": "t1", "a": 1, "b": 2}, {"id": "t2", "a": 2, "b": 4}],
    ... )
    {'n': 2, 'accuracy': 0.5}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Toy(evaluate.Metric):
    """Accuracy of the toy benchmark's sums."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            module_type="metric",
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": {"id": datasets.Value("string"), "sum": datasets.Value("int64")},
                    "references": {
                        "id": datasets.Value("string"),
                        "a": datasets.Value("int32"),
                        "b": datasets.Value("int32"),
                    },
                }
            ),
        )

    def _compute(self, predictions: list[dict], references: list[dict]) -> dict:
        return accuracy(references, predictions)
