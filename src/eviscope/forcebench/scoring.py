"""ForceBench metrics (SPEC §6): monotonicity violation rate (MVR) and force sensitivity (FS).

A *unit* is one (pair, evaluator): the support score of the calibrated claim (``s_safe``) and of the
raised claim (``s_raised``). A unit violates monotonicity when ``s_raised >= s_safe`` (a tie is a
violation); a unit with a missing score is a violation with margin 0. Several evaluators (judges)
pool their units: the overall numbers are means over every unit of every evaluator.

>>> units = [Unit("fb-1", "j", "modality", 2, 1.0, 0.0), Unit("fb-2", "j", "numeric", 1, 0.5, 0.5),
...          Unit("fb-3", "j", "numeric", 1, None, 0.0)]
>>> summarize(units)
{'mvr': 0.6666666666666666, 'fs': 0.3333333333333333, 'n': 3, 'violations': 2, 'missing': 1}
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from eviscope.errors import EviScopeError
from eviscope.forcebench.rows import AXES, SEVERITIES

__all__ = [
    "FORCE_LABELS",
    "GENERIC_LABELS",
    "PROMPT_LABELS",
    "ForcePrediction",
    "Unit",
    "label_score",
    "read_predictions",
    "score_units",
    "summarize",
    "units_from_predictions",
]

GENERIC_LABELS: dict[str, float] = {
    "fully_supported": 1.0,
    "partially_supported": 0.5,
    "unsupported": 0.0,
    "contradicted": 0.0,
    "irrelevant": 0.0,
}
"""Score of each label of the generic support prompt."""

FORCE_LABELS: dict[str, float] = {
    "force_calibrated": 1.0,
    "force_gap": 0.0,
    "contradicted": 0.0,
    "irrelevant": 0.0,
}
"""Score of each label of the force prompts (axis-free, force-aware and the dummy-axis control)."""

PromptName = Literal["generic", "axis_free", "force_aware", "dummy_axis"]

PROMPT_LABELS: dict[str, dict[str, float]] = {
    "generic": GENERIC_LABELS,
    "axis_free": FORCE_LABELS,
    "force_aware": FORCE_LABELS,
    "dummy_axis": FORCE_LABELS,
}
"""The label set and score mapping of each judge prompt."""


def label_score(prompt: str, label: str | None) -> float | None:
    """The score of ``label`` under ``prompt``'s mapping; None for a missing or out-of-set label.

    >>> label_score("generic", "partially_supported"), label_score("force_aware", "fully_supported")
    (0.5, None)
    """
    if label is None:
        return None
    return PROMPT_LABELS[prompt].get(label)


class ForcePrediction(BaseModel):
    """One prediction line (SPEC §6): an evaluator's verdict on both claims of one pair."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    evaluator: str
    prompt: PromptName | None = None
    label_safe: str | None = None
    label_raised: str | None = None
    score_safe: float | None = None
    score_raised: float | None = None

    @field_validator("score_safe", "score_raised")
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        if value is not None and not math.isfinite(value):
            raise ValueError("must be a finite number or null")
        return value

    def scores(self) -> tuple[float | None, float | None]:
        """(s_safe, s_raised): from the labels when ``prompt`` names a judge prompt, else as given.

        A label outside its prompt's label set, or a missing one, gives None. A score given next to
        a label must agree with the label's mapped score.
        """
        if self.prompt is None:
            return self.score_safe, self.score_raised
        derived = []
        for which, label, given in (
            ("safe", self.label_safe, self.score_safe),
            ("raised", self.label_raised, self.score_raised),
        ):
            score = label_score(self.prompt, label)
            if score is not None and given is not None and given != score:
                raise EviScopeError(
                    f"prediction {self.id!r} ({self.evaluator}): score_{which}={given} disagrees with "
                    f"label_{which}={label!r}, which the {self.prompt} prompt maps to {score}"
                )
            derived.append(score)
        return derived[0], derived[1]


@dataclass(frozen=True)
class Unit:
    """One (pair, evaluator) unit; a score is None when the evaluator gave none."""

    id: str
    evaluator: str
    axis: str
    severity: int
    s_safe: float | None
    s_raised: float | None

    @property
    def violation(self) -> bool:
        """A tie, a reversal or a missing score."""
        return self.s_safe is None or self.s_raised is None or self.s_raised >= self.s_safe

    @property
    def margin(self) -> float:
        """``s_safe - s_raised``; 0 when a score is missing."""
        if self.s_safe is None or self.s_raised is None:
            return 0.0
        return self.s_safe - self.s_raised


def summarize(units: Sequence[Unit]) -> dict[str, Any]:
    """MVR, FS, the number of units, violations and units with a missing score."""
    n = len(units)
    violations = sum(u.violation for u in units)
    return {
        "mvr": violations / n if n else None,
        "fs": sum(u.margin for u in units) / n if n else None,
        "n": n,
        "violations": violations,
        "missing": sum(u.s_safe is None or u.s_raised is None for u in units),
    }


def _by_axis_and_severity(units: Sequence[Unit]) -> dict[str, Any]:
    return {
        "per_axis": {axis: summarize([u for u in units if u.axis == axis]) for axis in AXES},
        "per_severity": {str(s): summarize([u for u in units if u.severity == s]) for s in SEVERITIES},
    }


def score_units(units: Sequence[Unit]) -> dict[str, Any]:
    """Pooled results overall, per axis and per severity, and the same for each evaluator.

    Axes and severities with no unit have ``mvr`` and ``fs`` None.
    """
    if not units:
        raise EviScopeError("no ForceBench predictions to score")
    evaluators = sorted({u.evaluator for u in units})
    return {
        **summarize(units),
        **_by_axis_and_severity(units),
        "evaluators": evaluators,
        "per_evaluator": {
            name: {**summarize(mine), **_by_axis_and_severity(mine)}
            for name in evaluators
            for mine in [[u for u in units if u.evaluator == name]]
        },
    }


def _names(ids: Iterable[str], limit: int = 5) -> str:
    ids = sorted(ids)
    shown = ", ".join(ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def units_from_predictions(
    rows: Sequence[Mapping[str, Any]], predictions: Iterable[ForcePrediction | Mapping[str, Any]]
) -> list[Unit]:
    """Join predictions to rows by ``id``, one unit per (row, evaluator).

    Unknown ids, a duplicate (id, evaluator), and rows an evaluator left out are errors that name them.
    """
    by_id = {row["id"]: row for row in rows}
    seen: dict[str, set[str]] = {}
    units = []
    unknown = set()
    for item in predictions:
        pred = item if isinstance(item, ForcePrediction) else _parse(item, "prediction")
        if pred.id not in by_id:
            unknown.add(pred.id)
            continue
        mine = seen.setdefault(pred.evaluator, set())
        if pred.id in mine:
            raise EviScopeError(f"duplicate prediction for id {pred.id!r} from evaluator {pred.evaluator!r}")
        mine.add(pred.id)
        row = by_id[pred.id]
        s_safe, s_raised = pred.scores()
        units.append(Unit(pred.id, pred.evaluator, row["axis"], int(row["severity"]), s_safe, s_raised))
    if unknown:
        raise EviScopeError(f"predictions name ids that are not ForceBench rows: {_names(unknown)}")
    for evaluator, ids in sorted(seen.items()):
        missing = by_id.keys() - ids
        if missing:
            raise EviScopeError(f"evaluator {evaluator!r} has no prediction for ids: {_names(missing)}")
    return units


def _parse(item: Mapping[str, Any], where: str) -> ForcePrediction:
    try:
        return ForcePrediction.model_validate(dict(item))
    except ValidationError as err:
        first = err.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(object)"
        raise EviScopeError(f"{where}: field {field!r}: {first['msg']}") from err


def read_predictions(path: Path) -> list[ForcePrediction]:
    """Read a JSONL file of ForceBench predictions; a bad line is an error naming file and line."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise EviScopeError(f"{path}: cannot read predictions ({err.strerror})") from err
    predictions = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as err:
            raise EviScopeError(f"{path}:{number}: not a JSON object ({err.msg})") from err
        if not isinstance(item, dict):
            raise EviScopeError(f"{path}:{number}: not a JSON object")
        predictions.append(_parse(item, f"{path}:{number}"))
    return predictions
