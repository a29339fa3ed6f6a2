"""EviScope predictions (contract §3): the schema, reading JSONL, and the join to rows by ``id``.

A prediction is one JSON object per row:

>>> rows = [{"id": "q07-noisy"}]
>>> [p] = load_predictions([{"id": "q07-noisy", "action": "answer", "answer": "1066"}], rows)
>>> p.action, p.answer, p.citations, p.usage
('answer', '1066', None, None)

``action`` is ``answer``, ``abstain``, ``flag_conflict``, or ``null`` for an output the system could
not parse (kept, and wrong wherever it is scored). ``answer``, ``citations`` and ``quotes`` may be
absent or ``null``, which scoring reads as empty; a missing ``usage`` (or usage field) counts as
zero. A field outside the schema that is a near miss of a known one the object lacks (``citation``,
``quote``, ``actions``, ``usage.prompt_token``) is an error naming the line, the field and the known
one; any other (a raw completion, a model name) is ignored and named in one warning per field
(:mod:`eviscope.core.fields`):

>>> load_predictions([{"id": "q07-noisy", "action": "answer", "citation": ["doc-1"]}], rows)
Traceback (most recent call last):
...
eviscope.core.errors.EviScopeError: predictions prediction 1 (id q07-noisy): unknown field 'citation' — did you mean 'citations'?

Every problem with a predictions file or list is one :class:`EviScopeError` line naming the line (or
position), id and field at fault. A JSONL file is read as UTF-8 (a leading byte order mark is
allowed), streamed line by line (:func:`eviscope.core.io.bounded_lines`: a line over
:data:`~eviscope.core.io.MAX_LINE_BYTES` is an error once that much is read), and each line must hold
exactly one JSON object; an id met twice is an error naming both lines as soon as the second is read,
so memory stays flat on hostile files. The JSON Lines reading itself is :mod:`eviscope.core.jsonl`, which
ForceBench's reader shares. Usage counts are at most
:data:`MAX_COUNT` and usage amounts finite and at most :data:`MAX_AMOUNT`, so that sums and means
stay finite; a count or amount is a JSON number, never a boolean or a string (the one definition,
:mod:`eviscope.core.usage`, that the runner reads a server's reply and its journal with).
"""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, Literal

import pydantic_core
from pydantic import ConfigDict, Field, StrictStr
from pydantic import ValidationError as PydanticValidationError

from eviscope.core.errors import EviScopeError, brief, id_text, plain
from eviscope.core.fields import KnownFields, UnknownFields, Warn, unknown_field_message
from eviscope.core.jsonl import json_line_error, jsonl_lines
from eviscope.core.usage import MAX_AMOUNT, MAX_COUNT, Amount, Count
from eviscope.suites.eviscope.rows import RowModel

__all__ = [
    "MAX_AMOUNT",
    "MAX_COUNT",
    "Prediction",
    "Quote",
    "Usage",
    "check_rows",
    "join_predictions",
    "load_predictions",
    "read_predictions",
    "validate_predictions",
]

MAX_NAMED_IDS = 5
"""How many ids an error message names before it says how many more there are."""


class Quote(KnownFields):
    """A verbatim quote from a shown document."""

    model_config = ConfigDict(frozen=True)  # unknown fields: KnownFields
    field_prefix = "quotes[]."

    doc_id: StrictStr
    text: StrictStr


class Usage(KnownFields):
    """What producing one prediction cost; a missing (or ``null``) field counts as zero."""

    model_config = ConfigDict(frozen=True)  # unknown fields: KnownFields
    field_prefix = "usage."

    prompt_tokens: Count | None = None
    completion_tokens: Count | None = None
    calls: Count | None = None
    latency_s: Amount | None = None
    cost_usd: Amount | None = None


class Prediction(KnownFields):
    """One system output for one row (contract §3)."""

    model_config = ConfigDict(frozen=True)  # unknown fields: KnownFields

    id: StrictStr
    action: Literal["answer", "abstain", "flag_conflict"] | None
    answer: StrictStr | None = None
    citations: list[StrictStr] | None = Field(None, fail_fast=True)
    quotes: list[Quote] | None = Field(None, fail_fast=True)
    usage: Usage | None = None


_VALIDATOR = Prediction.__pydantic_validator__
KNOWN_FIELDS: tuple[str, ...] = tuple(Prediction.model_fields)
"""The fields of a prediction, as a warning about an unknown one lists them."""


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many acyclic objects.

    Creating a million prediction objects otherwise triggers full-heap collections that find
    nothing to free (they hold no cycles); pausing roughly halves validation and scoring time.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _name_ids(ids: Sequence[str]) -> str:
    shown = ", ".join(id_text(i) for i in ids[:MAX_NAMED_IDS])
    more = len(ids) - MAX_NAMED_IDS
    return f"{shown}, … +{more} more" if more > 0 else shown


# --- Validation -------------------------------------------------------------------------------


def _field_error(place: str, raw: Any, err: PydanticValidationError, what: str) -> EviScopeError:
    first = err.errors(include_url=False)[0]
    loc = first["loc"]
    if isinstance(raw, Mapping) and isinstance(raw.get("id"), str):
        place += f" (id {id_text(raw['id'])})"
    near_miss = unknown_field_message(first, raw)
    if near_miss is not None:
        return EviScopeError(f"{place}: {near_miss}")
    if not loc:
        if isinstance(raw, list):
            return EviScopeError(
                f"{place}: {what} is an array, not one prediction object: write one JSON object per "
                "line (JSON Lines)"
            )
        return EviScopeError(f"{place}: expected one prediction object, got {brief(raw)}")
    field = ".".join(str(part) for part in loc)
    got = first.get("input")
    if first["type"] == "missing":
        detail = first["msg"]
        if loc == ("action",) and isinstance(raw, Mapping) and "evaluator" in raw:
            detail += "; this looks like a ForceBench prediction (contract §6): score it with `eviscope score FILE --config forcebench`"
    elif loc == ("action",):
        detail = f"must be answer, abstain, flag_conflict, or null for an unparsable output, got {brief(got)}"
    else:
        detail = f"{first['msg']}, got {brief(got)}"
    more = err.error_count() - 1
    tail = f" (and {more} more errors)" if more else ""
    return EviScopeError(f"{place}: field `{field}`: {plain(detail, 200)}{tail}")


def _line_error(source: str, number: int, line: bytes, err: PydanticValidationError) -> EviScopeError:
    place = f"{source} line {number}"
    first = err.errors(include_url=False)[0]
    if first["type"] == "json_invalid":
        return json_line_error(place, line, first["msg"])
    return _field_error(place, pydantic_core.from_json(line), err, "the line")


def _validate_lines(
    source: str, numbered: Iterable[tuple[int, bytes]], met: UnknownFields
) -> list[Prediction]:
    """The predictions of the numbered lines; an id met a second time stops the read at once."""
    validate = _VALIDATOR.validate_json
    preds: list[Prediction] = []
    append = preds.append
    first_line: dict[str, int] = {}
    for number, line in numbered:
        met.place = f"line {number}"
        try:
            pred = validate(line, context=met)
        except PydanticValidationError as err:
            raise _line_error(source, number, line, err) from None
        seen = first_line.setdefault(pred.id, number)
        if seen != number:
            raise EviScopeError(
                f"{source} line {number}: duplicate id {id_text(pred.id)} (first on line {seen}); "
                "give exactly one prediction per row id"
            )
        append(pred)
    return preds


def _lone_surrogate(pred: Prediction) -> str | None:
    """The first field of ``pred`` whose text cannot be written as UTF-8 (a lone surrogate)."""
    texts: list[tuple[str, str | None]] = [("id", pred.id), ("answer", pred.answer)]
    texts += [(f"citations.{i}", c) for i, c in enumerate(pred.citations or ())]
    for i, quote in enumerate(pred.quotes or ()):
        texts += [(f"quotes.{i}.doc_id", quote.doc_id), (f"quotes.{i}.text", quote.text)]
    for field, text in texts:
        if text is not None and not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                return field
    return None


def validate_predictions(
    predictions: Iterable[Mapping[str, Any] | Prediction],
    source: str = "predictions",
    warn: Warn | None = None,
) -> list[Prediction]:
    """Validate contract §3 objects (dicts or :class:`Prediction`) one by one, in order, without the
    join to rows; a bad one is an :class:`EviScopeError` naming its position, id and field. Unknown
    fields that are no near miss are named by ``warn`` (default: an
    :class:`~eviscope.core.errors.EviScopeWarning`), once per field."""
    met = UnknownFields()
    preds = _validate_objects(predictions, source, met)
    met.warn(source, KNOWN_FIELDS, warn)
    return preds


def _validate_objects(
    predictions: Iterable[Mapping[str, Any] | Prediction], source: str, met: UnknownFields
) -> list[Prediction]:
    if isinstance(predictions, str | bytes | Mapping) or not isinstance(predictions, Iterable):
        raise EviScopeError(
            f"{source}: expected a list of predictions (one dict per row), got {type(predictions).__name__}"
        )
    validate = _VALIDATOR.validate_python
    preds: list[Prediction] = []
    for index, obj in enumerate(predictions):
        place = f"{source} prediction {index + 1}"
        if isinstance(obj, Prediction):
            pred = obj
        else:
            met.place = f"prediction {index + 1}"
            try:
                pred = validate(obj, context=met)
            except PydanticValidationError as err:
                raise _field_error(place, obj, err, "the prediction") from None
        field = _lone_surrogate(pred)
        if field is not None:
            raise EviScopeError(
                f"{place} (id {id_text(pred.id)}): field `{field}`: not valid Unicode text "
                "(it holds a lone surrogate)"
            )
        preds.append(pred)
    return preds


def load_predictions(
    predictions: str | Path | Iterable[Mapping[str, Any] | Prediction],
    rows: Sequence[Mapping[str, Any]],
    source: str | None = None,
    warn: Warn | None = None,
) -> list[Prediction]:
    """Validate predictions and return them in the order of ``rows``, one per row.

    ``predictions`` is a JSONL file or an iterable of contract §3 objects. ``source`` names them in
    error messages (default: the file path, or ``predictions``). Every problem is an
    :class:`EviScopeError`: a malformed JSON line or a bad field names the line (or position) and
    id; unknown, duplicate and missing ids are named together in one message. Once all is valid,
    ``warn`` names each unknown field that is no near miss (see :func:`validate_predictions`), before
    the join to rows.
    """
    with gc_paused():
        if isinstance(predictions, str | Path):
            source = source or plain(str(predictions), None)
            preds = read_predictions(predictions, source, warn)
        else:
            source = source or "predictions"
            preds = validate_predictions(predictions, source, warn)
        return join_predictions(source, preds, rows)


def read_predictions(
    path: str | Path, source: str | None = None, warn: Warn | None = None
) -> list[Prediction]:
    """The predictions of a JSONL file, validated, in file order, without the join to rows: the file
    is read once, line by line (a FIFO too); errors name ``source`` (default: the path). Once every
    line is valid, ``warn`` names each unknown field that is no near miss (see
    :func:`validate_predictions`)."""
    source = source or plain(str(path), None)
    met = UnknownFields()
    with gc_paused(), closing(jsonl_lines(path, source)) as lines:
        preds = _validate_lines(source, lines, met)
    met.warn(source, KNOWN_FIELDS, warn)
    return preds


def join_predictions(
    source: str, preds: Sequence[Prediction], rows: Sequence[Mapping[str, Any]]
) -> list[Prediction]:
    """``preds`` in the order of ``rows``, one per row; unknown, duplicate and missing ids are one
    :class:`EviScopeError` naming them together."""
    index = {row["id"]: i for i, row in enumerate(rows)}
    aligned: list[Prediction | None] = [None] * len(rows)
    unknown: list[str] = []
    duplicate: list[str] = []
    for pred in preds:
        i = index.get(pred.id)
        if i is None:
            unknown.append(pred.id)
        elif aligned[i] is not None:
            duplicate.append(pred.id)
        else:
            aligned[i] = pred
    missing = [row["id"] for row, pred in zip(rows, aligned, strict=True) if pred is None]
    if unknown or duplicate or missing:
        problems = []
        if unknown:
            problems.append(f"{len(unknown)} unknown ids ({_name_ids(unknown)})")
        if duplicate:
            dups = list(Counter(duplicate))
            problems.append(f"{len(dups)} duplicate ids ({_name_ids(dups)})")
        if missing:
            problems.append(f"{len(missing)} missing ids ({_name_ids(missing)})")
        raise EviScopeError(
            f"{source}: ids do not match the {len(rows)} rows: " + "; ".join(problems) + "; "
            "give exactly one prediction per row id"
        )
    return aligned  # type: ignore[return-value]


# --- Rows given by a user ---------------------------------------------------------------------


def check_rows(rows: Iterable[Mapping[str, Any]], source: str = "references") -> list[Mapping[str, Any]]:
    """EviScope rows given by a user (the ``evaluate`` module's references), checked against contract §2:
    a row that is not a mapping, lacks a field scoring reads, or holds a wrongly typed field is an
    :class:`EviScopeError` naming its position, id and field. Returns the rows as a list.
    """
    if isinstance(rows, str | bytes | Mapping) or not isinstance(rows, Iterable):
        raise EviScopeError(f"{source}: expected a list of EviScope rows, got {type(rows).__name__}")
    rows = list(rows)
    validate = RowModel.__pydantic_validator__.validate_python
    for index, row in enumerate(rows):
        try:
            validate(row)
        except PydanticValidationError as err:
            place = f"{source} row {index + 1}"
            if isinstance(row, Mapping) and isinstance(row.get("id"), str):
                place += f" (id {id_text(row['id'])})"
            first = err.errors(include_url=False)[0]
            if not first["loc"]:
                raise EviScopeError(f"{place}: expected an EviScope row (a dict), got {brief(row)}") from None
            field = ".".join(str(part) for part in first["loc"])
            detail = (
                first["msg"] if first["type"] == "missing" else f"{first['msg']}, got {brief(first['input'])}"
            )
            raise EviScopeError(
                f"{place}: not an EviScope row (contract §2): field `{field}`: {plain(detail, 200)}"
            ) from None
    return rows
