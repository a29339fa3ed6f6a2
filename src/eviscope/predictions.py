"""EviScope predictions (SPEC §3): the schema, reading JSONL, and the join to rows by ``id``.

A prediction is one JSON object per row:

>>> rows = [{"id": "q07-noisy"}]
>>> [p] = load_predictions([{"id": "q07-noisy", "action": "answer", "answer": "1066"}], rows)
>>> p.action, p.answer, p.citations, p.usage
('answer', '1066', None, None)

``action`` is ``answer``, ``abstain``, ``flag_conflict``, or ``null`` for an output the system could
not parse (kept, and wrong wherever it is scored). ``answer``, ``citations`` and ``quotes`` may be
absent or ``null``, which scoring reads as empty; a missing ``usage`` (or usage field) counts as zero. Fields outside the
schema (a raw completion, a model name) are ignored.
"""

from __future__ import annotations

import gc
import json
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, NonNegativeFloat, NonNegativeInt, StrictStr, TypeAdapter
from pydantic import ValidationError as PydanticValidationError

from eviscope.errors import EviScopeError

__all__ = ["Prediction", "Quote", "Usage", "load_predictions", "read_jsonl"]

MAX_NAMED_IDS = 5
"""How many ids an error message names before it says how many more there are."""


class Quote(BaseModel):
    """A verbatim quote from a shown document."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    doc_id: StrictStr
    text: StrictStr


class Usage(BaseModel):
    """What producing one prediction cost; a missing (or ``null``) field counts as zero."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    prompt_tokens: NonNegativeInt | None = None
    completion_tokens: NonNegativeInt | None = None
    calls: NonNegativeInt | None = None
    latency_s: NonNegativeFloat | None = None
    cost_usd: NonNegativeFloat | None = None


class Prediction(BaseModel):
    """One system output for one row (SPEC §3)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: StrictStr
    action: Literal["answer", "abstain", "flag_conflict"] | None
    answer: StrictStr | None = None
    citations: list[StrictStr] | None = None
    quotes: list[Quote] | None = None
    usage: Usage | None = None


_MANY = TypeAdapter(list[Prediction])


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
    shown = ", ".join(ids[:MAX_NAMED_IDS])
    more = len(ids) - MAX_NAMED_IDS
    return f"{shown}, … +{more} more" if more > 0 else shown


def read_jsonl(path: str | Path) -> list[tuple[int, bytes]]:
    """The non-blank lines of a JSONL file, each with its 1-based line number."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise EviScopeError(f"{path}: cannot read predictions: {err.strerror or err}") from None
    return [(n, line) for n, line in enumerate(data.splitlines(), start=1) if line.strip()]


def _where(source: str, lines: Sequence[int] | None, index: int, raw: Any) -> str:
    place = f"line {lines[index]}" if lines is not None else f"prediction {index + 1}"
    if isinstance(raw, Mapping) and isinstance(raw.get("id"), str):
        place += f" (id {raw['id']})"
    return f"{source} {place}"


def _field_error(
    source: str, err: PydanticValidationError, raws: Sequence[Any], lines: Sequence[int] | None
) -> EviScopeError:
    first = err.errors(include_url=False)[0]
    index, *field = first["loc"]
    raw = raws[int(index)]
    if isinstance(raw, bytes):
        raw = json.loads(raw)
    field_name = ".".join(str(part) for part in field) or "(the object)"
    got = first.get("input")
    if first["type"] == "missing":
        detail = first["msg"]
    elif field == ["action"]:
        detail = f"must be answer, abstain, flag_conflict, or null for an unparsable output, got {got!r}"
    else:
        detail = f"{first['msg']}, got {json.dumps(got)[:60]}"
    more = err.error_count() - 1
    tail = f" (and {more} more errors)" if more else ""
    return EviScopeError(f"{_where(source, lines, int(index), raw)}: field `{field_name}`: {detail}{tail}")


def _validate_lines(source: str, numbered: list[tuple[int, bytes]]) -> list[Prediction]:
    lines = [n for n, _ in numbered]
    raws = [line for _, line in numbered]
    try:
        # One call into pydantic-core for the whole file: the fast path.
        return _MANY.validate_json(b"[" + b",".join(raws) + b"]")
    except PydanticValidationError as err:
        first = err.errors(include_url=False)[0]
        if first["type"] != "json_invalid":
            raise _field_error(source, err, raws, lines) from None
        reason = first["msg"]
    # Malformed JSON: find the first line the standard parser rejects, to name it.
    for n, line in numbered:
        try:
            json.loads(line)
        except json.JSONDecodeError as bad:
            raise EviScopeError(
                f"{source} line {n}: not valid JSON: {bad.msg} (column {bad.colno})"
            ) from None
    raise EviScopeError(f"{source}: not valid JSON Lines: {reason}")


def _validate_objects(source: str, objects: list[Any]) -> list[Prediction]:
    if all(isinstance(o, Prediction) for o in objects):
        return objects
    try:
        return _MANY.validate_python([o.model_dump() if isinstance(o, Prediction) else o for o in objects])
    except PydanticValidationError as err:
        raise _field_error(source, err, objects, None) from None


def load_predictions(
    predictions: str | Path | Iterable[Mapping[str, Any] | Prediction],
    rows: Sequence[Mapping[str, Any]],
    source: str | None = None,
) -> list[Prediction]:
    """Validate predictions and return them in the order of ``rows``, one per row.

    ``predictions`` is a JSONL file or an iterable of SPEC §3 objects. ``source`` names them in
    error messages (default: the file path, or ``predictions``). Every problem is an
    :class:`EviScopeError`: a malformed JSON line or a bad field names the line (or position) and
    id; unknown, duplicate and missing ids are named together in one message.
    """
    with gc_paused():
        if isinstance(predictions, str | Path):
            source = source or str(predictions)
            preds = _validate_lines(source, read_jsonl(predictions))
        else:
            source = source or "predictions"
            preds = _validate_objects(source, list(predictions))
        return _join(source, preds, rows)


def _join(source: str, preds: list[Prediction], rows: Sequence[Mapping[str, Any]]) -> list[Prediction]:
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
