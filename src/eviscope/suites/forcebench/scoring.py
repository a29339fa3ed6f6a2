"""ForceBench metrics (contract §6): MVR, FS, LPR and CPA.

A *unit* is one (pair, evaluator): the support score of the weaker claim (``s_safe``, the calibrated
claim) and of the stronger one (``s_raised``). On a contrast pair (``pair_type: contrast``) the unit
violates monotonicity when ``s_raised >= s_safe`` (a tie is a violation); MVR is the share of
violations and FS the mean margin ``s_safe - s_raised``, both over contrast pairs only. On a control
(``pair_type: licensed``, the evidence warrants the stronger claim too) the unit is a licensed
penalty when ``s_strong < s_weak``; LPR is their share. CPA, the controlled pair accuracy, is the
balanced accuracy ``½ · (1 − MVR) + ½ · (1 − LPR)``, None unless both kinds are present. A unit with
a missing score is a violation (contrast) or a penalty (control) with margin 0. Several evaluators
(judges) pool their units: the overall numbers are means over every unit of every evaluator.

>>> units = [Unit("fb-1", "j", "modality", 2, 1.0, 0.0), Unit("fb-2", "j", "numeric", 1, 0.5, 0.5),
...          Unit("fb-3", "j", "numeric", 1, None, 0.0), Unit("fb-4", "j", "scope", 2, 1.0, 1.0, "licensed"),
...          Unit("fb-5", "j", "scope", 2, 1.0, 0.0, "licensed")]
>>> summarize(units)["mvr"], summarize(units)["lpr"], summarize(units)["cpa"]
(0.6666666666666666, 0.5, 0.4166666666666667)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pydantic_core
from pydantic import ConfigDict, Field, ValidationError, field_validator

from eviscope.core.errors import EviScopeError, brief, id_text, plain
from eviscope.core.fields import KnownFields, UnknownFields, Warn, unknown_field_message, warn_user
from eviscope.core.jsonl import json_line_error, jsonl_lines
from eviscope.suites.forcebench.rows import AXES, PAIR_TYPES, SEVERITIES, SPLITS

__all__ = [
    "FORCE_LABELS",
    "GENERIC_LABELS",
    "PROMPT_LABELS",
    "ForcePrediction",
    "Unit",
    "check_rows",
    "headline_rows",
    "label_score",
    "read_predictions",
    "score_predictions",
    "score_units",
    "stray_labels",
    "summarize",
    "units_from_predictions",
    "validate_predictions",
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


MAX_SCORE = 1e12
"""The largest magnitude of a given score, so that margins and their means stay finite."""


class ForcePrediction(KnownFields):
    """One prediction line (contract §6): an evaluator's verdict on both claims of one pair.

    As for EviScope predictions (:mod:`eviscope.core.fields`), a field outside the schema that is a
    near miss of a known one the line lacks (``label_raise``, ``evaluators``) is an error naming it;
    any other is ignored and named in one warning per field.
    """

    model_config = ConfigDict(frozen=True)  # unknown fields: KnownFields

    id: str = Field(min_length=1)
    evaluator: str = Field(min_length=1)
    prompt: PromptName | None = None
    label_safe: str | None = None
    label_raised: str | None = None
    score_safe: float | None = None
    score_raised: float | None = None

    @field_validator("score_safe", "score_raised")
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        if value is not None and not (math.isfinite(value) and abs(value) <= MAX_SCORE):
            raise ValueError(f"must be a finite number between -{MAX_SCORE:g} and {MAX_SCORE:g}, or null")
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
                    f"prediction '{id_text(self.id)}' ({plain(self.evaluator, 60)}): "
                    f"score_{which}={given} disagrees with "
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
    pair_type: str = "contrast"

    @property
    def missing(self) -> bool:
        return self.s_safe is None or self.s_raised is None

    @property
    def violation(self) -> bool:
        """A contrast pair: a tie, a reversal or a missing score."""
        return self.missing or self.s_raised >= self.s_safe

    @property
    def penalty(self) -> bool:
        """A control: the warranted stronger claim scored below the weaker one, or a missing score."""
        return self.missing or self.s_raised < self.s_safe

    @property
    def correct(self) -> bool:
        """The unit CPA counts as right: no violation on a contrast, no penalty on a control."""
        return not (self.violation if self.pair_type == "contrast" else self.penalty)

    @property
    def margin(self) -> float:
        """``s_safe - s_raised``; 0 when a score is missing."""
        if self.s_safe is None or self.s_raised is None:
            return 0.0
        return self.s_safe - self.s_raised


def summarize(units: Sequence[Unit]) -> dict[str, Any]:
    """MVR and FS (contrast units), LPR (controls), CPA (both), and the counts: ``n`` contrast units,
    ``n_licensed`` controls, ``violations``, ``penalties`` and units with a ``missing`` score."""
    contrast = [u for u in units if u.pair_type == "contrast"]
    licensed = [u for u in units if u.pair_type == "licensed"]
    n, n_licensed = len(contrast), len(licensed)
    violations, penalties = sum(u.violation for u in contrast), sum(u.penalty for u in licensed)
    mvr = violations / n if n else None
    lpr = penalties / n_licensed if n_licensed else None
    return {
        "mvr": mvr,
        "fs": math.fsum(u.margin for u in contrast) / n if n else None,  # exact sum: order-independent
        "lpr": lpr,
        "cpa": (1 - mvr) / 2 + (1 - lpr) / 2 if n and n_licensed else None,
        "n": n,
        "n_licensed": n_licensed,
        "violations": violations,
        "penalties": penalties,
        "missing": sum(u.missing for u in units),
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
    shown = ", ".join(id_text(i) for i in ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def check_rows(rows: Iterable[Mapping[str, Any]], source: str = "rows") -> list[Mapping[str, Any]]:
    """The rows (or the ``evaluate`` module's references) as a list, each checked to be a mapping with
    a non-empty string ``id``, an ``axis`` of contract §5, a ``severity`` of 1, 2 or 3 and, when given,
    a ``pair_type`` of ``contrast`` or ``licensed`` (absent: ``contrast``); anything else is an
    :class:`EviScopeError` naming the row's position, id and field."""
    if isinstance(rows, str | bytes | Mapping) or not isinstance(rows, Iterable):
        raise EviScopeError(f"{source}: expected a list of ForceBench rows, got {type(rows).__name__}")
    rows = list(rows)
    for index, row in enumerate(rows):
        place = f"{source} row {index + 1}"
        if not isinstance(row, Mapping):
            raise EviScopeError(f"{place}: expected a ForceBench row (a dict), got {brief(row)}")
        if isinstance(row.get("id"), str):
            place += f" (id {id_text(row['id'])})"
        for field, allowed in (("id", None), ("axis", AXES), ("severity", SEVERITIES)):
            value = row.get(field)
            if field not in row:
                problem = "missing"
            elif allowed is None:
                problem = (
                    None if isinstance(value, str) and value else f"{brief(value)} is not a non-empty string"
                )
            elif isinstance(value, bool) or value not in allowed:
                problem = f"{brief(value)} is not one of {', '.join(map(str, allowed))}"
            else:
                problem = None
            if problem:
                raise EviScopeError(f"{place}: not a ForceBench row (contract §5): field '{field}' {problem}")
        if "pair_type" in row and row["pair_type"] not in PAIR_TYPES:
            raise EviScopeError(
                f"{place}: not a ForceBench row (contract §5): field 'pair_type' {brief(row['pair_type'])} "
                f"is not one of {', '.join(PAIR_TYPES)}"
            )
        if row.get("split") not in (None, "", *SPLITS):
            raise EviScopeError(
                f"{place}: not a ForceBench row (contract §5): field 'split' {brief(row['split'])} "
                f"is not one of {', '.join(SPLITS)}"
            )
    return rows


def units_from_predictions(
    rows: Sequence[Mapping[str, Any]],
    predictions: Iterable[ForcePrediction | Mapping[str, Any]],
    source: str | None = None,
) -> list[Unit]:
    """Join predictions to rows by ``id``, one unit per (row, evaluator).

    Unknown ids, a duplicate (id, evaluator), and rows an evaluator left out are errors that name them
    (and ``source``, the predictions' file name, when given).
    """
    prefix = f"{source}: " if source else ""
    by_id = {row["id"]: row for row in check_rows(rows)}
    seen: dict[str, set[str]] = {}
    units = []
    unknown = set()
    for pred in validate_predictions(predictions, source or "predictions"):
        if pred.id not in by_id:
            unknown.add(pred.id)
            continue
        mine = seen.setdefault(pred.evaluator, set())
        if pred.id in mine:
            raise EviScopeError(
                f"{prefix}duplicate prediction for id '{id_text(pred.id)}' from evaluator "
                f"'{plain(pred.evaluator, 60)}'; give one prediction per (id, evaluator)"
            )
        mine.add(pred.id)
        row = by_id[pred.id]
        s_safe, s_raised = pred.scores()
        units.append(
            Unit(
                pred.id,
                pred.evaluator,
                row["axis"],
                int(row["severity"]),
                s_safe,
                s_raised,
                row.get("pair_type", "contrast"),
            )
        )
    if unknown:
        raise EviScopeError(f"{prefix}predictions name ids that are not ForceBench rows: {_names(unknown)}")
    for evaluator, ids in sorted(seen.items()):
        missing = by_id.keys() - ids
        if missing:
            raise EviScopeError(
                f"{prefix}evaluator '{plain(evaluator, 60)}' has no prediction for ids: {_names(missing)}"
            )
    return units


HEADLINE_SPLIT = "eval"
"""The split the headline figures are on when the rows have it (contract §6)."""


def headline_rows(rows: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], str]:
    """(the rows the headline figures are on, their name): the ``eval`` split when any row is in it,
    else every row (``all``: a build no one has annotated, or references without a split).

    >>> headline_rows([{"id": "a", "split": "eval"}, {"id": "b", "split": "pool"}])
    ([{'id': 'a', 'split': 'eval'}], 'eval')
    >>> headline_rows([{"id": "a"}])[1]
    'all'
    """
    evaluation = [row for row in rows if row.get("split") == HEADLINE_SPLIT]
    return (evaluation, HEADLINE_SPLIT) if evaluation else (list(rows), "all")


MAX_NAMED_LABELS = 5
"""How many stray label values a warning names before it says how many more there are."""


def stray_labels(predictions: Iterable[ForcePrediction]) -> Counter[tuple[str, str]]:
    """How often each (prompt, label) outside that prompt's label set is given; each scores null.

    >>> stray_labels([ForcePrediction(id="fb-1", evaluator="j", prompt="force_aware",
    ...                               label_safe="fully_supported", label_raised="force_gap")])
    Counter({('force_aware', 'fully_supported'): 1})
    """
    counts: Counter[tuple[str, str]] = Counter()
    for pred in predictions:
        if pred.prompt is None:
            continue
        known = PROMPT_LABELS[pred.prompt]
        for label in (pred.label_safe, pred.label_raised):
            if label is not None and label not in known:
                counts[pred.prompt, label] += 1
    return counts


def _warn_stray_labels(predictions: Iterable[ForcePrediction], source: str, warn: Warn | None) -> None:
    counts = stray_labels(predictions)
    if not counts:
        return
    named = [
        f"'{plain(label, 40)}' ×{n} ({prompt})" for (prompt, label), n in counts.most_common(MAX_NAMED_LABELS)
    ]
    more = len(counts) - MAX_NAMED_LABELS
    (warn or warn_user)(
        f"{source}: {counts.total():,} labels are outside their prompt's label set and score null (a "
        f"violation on a contrast, a penalty on a control): {', '.join(named)}"
        + (f", … +{more} more values" if more > 0 else "")
    )


def score_predictions(
    rows: Sequence[Mapping[str, Any]],
    predictions: Iterable[ForcePrediction | Mapping[str, Any]],
    source: str | None = None,
    warn: Warn | None = None,
) -> dict[str, Any]:
    """The headline results (:func:`score_units`) on :func:`headline_rows`: what ``eviscope score``,
    the metric module, the Space and the harness tasks report. ``split`` names the rows scored and
    ``set_aside`` counts the predictions on other rows, left out of the headline; ``all_rows`` holds
    the same results over every row when each evaluator scored every row (else None), and is absent
    when the headline is on every row already. Errors as :func:`units_from_predictions`; ``warn``
    (default: an :class:`~eviscope.core.errors.EviScopeWarning`) counts the labels outside their
    prompt's label set, per value: they score null, as a missing label does (contract §6)."""
    rows = check_rows(rows)
    predictions = validate_predictions(predictions, source or "predictions", warn)
    shown, split = headline_rows(rows)
    other = {row["id"] for row in rows} - {row["id"] for row in shown}
    mine = [pred for pred in predictions if pred.id not in other]
    results = {
        **score_units(units_from_predictions(shown, mine, source)),
        "split": split,
        "set_aside": len(predictions) - len(mine),
    }
    if other:
        covered: dict[str, set[str]] = {}
        for pred in predictions:
            covered.setdefault(pred.evaluator, set()).add(pred.id)
        everywhere = all(other <= ids for ids in covered.values())
        results["all_rows"] = (
            score_units(units_from_predictions(rows, predictions, source)) if everywhere else None
        )
    _warn_stray_labels(predictions, source or "predictions", warn)
    return results


def _parse_error(where: str, item: Any, err: ValidationError) -> EviScopeError:
    first = err.errors(include_url=False)[0]
    loc = first["loc"]
    if not loc:
        if isinstance(item, list):
            return EviScopeError(
                f"{where}: not a JSON object but an array: write one JSON object per line (JSON Lines)"
            )
        if first["type"] in ("model_type", "model_attributes_type", "dict_type"):
            return EviScopeError(f"{where}: not a JSON object, got {brief(item)}")
        return EviScopeError(f"{where}: {plain(first['msg'], 200)}")
    near_miss = unknown_field_message(first, item)
    if near_miss is not None:
        return EviScopeError(f"{where}: {near_miss}")
    field = ".".join(str(p) for p in loc)
    detail = first["msg"] if first["type"] == "missing" else f"{first['msg']}, got {brief(first['input'])}"
    hint = ""
    if isinstance(item, Mapping) and "evaluator" not in item and "action" in item:
        hint = "; this looks like an EviScope prediction (contract §3): score it with an EviScope --config"
    return EviScopeError(f"{where}: field '{plain(field, 60)}': {plain(detail, 200)}{hint}")


KNOWN_FIELDS: tuple[str, ...] = tuple(ForcePrediction.model_fields)
"""The fields of a prediction, as a warning about an unknown one lists them."""


def _parse(item: Mapping[str, Any], source: str, index: int, met: UnknownFields) -> ForcePrediction:
    met.place = f"prediction {index + 1}"
    where = f"{source} {met.place}"
    try:
        return ForcePrediction.model_validate(item, context=met)
    except ValidationError as err:
        raise _parse_error(where, item, err) from None


def validate_predictions(
    predictions: Iterable[ForcePrediction | Mapping[str, Any]],
    source: str = "predictions",
    warn: Warn | None = None,
) -> list[ForcePrediction]:
    """Validate contract §6 objects (dicts or :class:`ForcePrediction`) one by one, without the join to
    rows; a bad one is an :class:`EviScopeError` naming its position and field, and ``warn`` names
    each unknown field that is no near miss once (default: an
    :class:`~eviscope.core.errors.EviScopeWarning`)."""
    if isinstance(predictions, str | bytes | Mapping) or not isinstance(predictions, Iterable):
        raise EviScopeError(
            f"{source}: expected a list of predictions (one dict per (pair, evaluator)), "
            f"got {type(predictions).__name__}"
        )
    met = UnknownFields()
    validated = [
        item if isinstance(item, ForcePrediction) else _parse(item, source, index, met)
        for index, item in enumerate(predictions)
    ]
    met.warn(source, KNOWN_FIELDS, warn)
    return validated


def read_predictions(
    path: str | Path, source: str | None = None, warn: Warn | None = None
) -> list[ForcePrediction]:
    """Read a JSONL file of ForceBench predictions, streamed line by line with the core's bounded
    reader (:func:`eviscope.core.io.bounded_lines`); a bad or over-long line is an error naming the
    file (``source``, default: the path) and line, ``<file>:<line>``. ``warn`` names each unknown
    field that is no near miss once, as :func:`validate_predictions`."""
    source = source or plain(str(path), None)
    validate = ForcePrediction.__pydantic_validator__.validate_json
    predictions = []
    met = UnknownFields()
    with closing(jsonl_lines(path, source, place=lambda number: f"{source}:{number}")) as lines:
        for number, line in lines:
            met.place = f"line {number}"
            try:
                predictions.append(validate(line, context=met))
            except ValidationError as err:
                first = err.errors(include_url=False)[0]
                if first["type"] == "json_invalid":
                    raise json_line_error(f"{source}:{number}", line, first["msg"]) from None
                raise _parse_error(f"{source}:{number}", pydantic_core.from_json(line), err) from None
    met.warn(source, KNOWN_FIELDS, warn)
    return predictions
