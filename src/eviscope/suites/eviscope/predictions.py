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
exactly one JSON object; an id met twice is an error naming both lines once the block of lines
holding the second is read (:func:`read_predictions`), so memory stays flat on hostile files.
Validated predictions are held column-wise (:class:`Predictions`), not as one object per line. The JSON Lines reading itself is :mod:`eviscope.core.jsonl`, which
ForceBench's reader shares. Usage counts are at most
:data:`MAX_COUNT` and usage amounts finite and at most :data:`MAX_AMOUNT`, so that sums and means
stay finite; a count or amount is a JSON number, never a boolean or a string (the one definition,
:mod:`eviscope.core.usage`, that the runner reads a server's reply and its journal with).
"""

from __future__ import annotations

import gc
import io
import operator
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, Literal, overload

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json
import pydantic_core
from pydantic import ConfigDict, Field, StrictStr
from pydantic import ValidationError as PydanticValidationError

from eviscope.core.errors import EviScopeError, brief, id_text, plain
from eviscope.core.fields import KnownFields, UnknownFields, Warn, unknown_field_message
from eviscope.core.jsonl import json_line_error, jsonl_lines
from eviscope.core.usage import MAX_AMOUNT, MAX_COUNT, Amount, Count
from eviscope.suites.eviscope.rows import ACTIONS, RowModel

__all__ = [
    "MAX_AMOUNT",
    "MAX_COUNT",
    "PREDICTION_SCHEMA",
    "Prediction",
    "Predictions",
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

COUNT_FIELDS = ("prompt_tokens", "completion_tokens", "calls")
AMOUNT_FIELDS = ("latency_s", "cost_usd")

PREDICTION_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("action", pa.string()),
        ("answer", pa.string()),
        ("citations", pa.list_(pa.string())),
        ("quotes", pa.list_(pa.struct([("doc_id", pa.string()), ("text", pa.string())]))),
        (
            "usage",
            pa.struct([(f, pa.int64()) for f in COUNT_FIELDS] + [(f, pa.float64()) for f in AMOUNT_FIELDS]),
        ),
    ]
)
"""The columns predictions are held in once validated: :class:`Prediction`'s fields, one column each
(``tests/test_predictions.py`` checks that both name the same fields)."""

BLOCK_LINES = 16384
"""The most lines read column-wise at once (see :func:`read_predictions`)."""
BLOCK_BYTES = 4 << 20
"""The most bytes of lines read column-wise at once (a block may end one line over)."""

_PARSE = pa_json.ParseOptions(
    explicit_schema=PREDICTION_SCHEMA, unexpected_field_behavior="error", newlines_in_values=False
)
POOL = pa.jemalloc_memory_pool()
"""The memory of the tables read, and of the join: pyarrow's jemalloc, which gives back what a block's
parsing freed (its default pool, mimalloc, kept 30 to 100 MB more of a million predictions)."""
_ACTION_KEY = re.compile(rb'"action"[ \t\r]*:')


class Predictions(Sequence[Prediction]):
    """Validated predictions held column-wise: a pyarrow table of :data:`PREDICTION_SCHEMA` (one row per
    prediction, in the order read) and, once joined to rows, ``order``: the table row of each row's
    prediction. As a sequence it gives :class:`Prediction` objects, built on demand; scoring reads the
    columns (a million predictions take about 170 MB, where as objects they took about 2.3 GB)."""

    def __init__(self, table: pa.Table, order: np.ndarray | None = None) -> None:
        self.table = table
        self.order = order

    @classmethod
    def from_models(cls, preds: Iterable[Prediction]) -> Predictions:
        """Predictions given as objects, in their order."""
        dumped = [p.model_dump() for p in preds]
        return cls(pa.Table.from_pylist(dumped, schema=PREDICTION_SCHEMA))

    def __len__(self) -> int:
        return self.table.num_rows if self.order is None else len(self.order)

    @overload
    def __getitem__(self, index: int) -> Prediction: ...
    @overload
    def __getitem__(self, index: slice) -> list[Prediction]: ...
    def __getitem__(self, index: int | slice) -> Prediction | list[Prediction]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = operator.index(index)
        if not -len(self) <= i < len(self):
            raise IndexError(f"prediction {i} of {len(self)}")
        i %= len(self)
        k = i if self.order is None else int(self.order[i])
        return _VALIDATOR.validate_python(self.table.slice(k, 1).to_pylist()[0])

    def __iter__(self) -> Iterator[Prediction]:
        for batch in self.in_order().to_batches(BLOCK_LINES):
            yield from map(_VALIDATOR.validate_python, batch.to_pylist())

    def in_order(self) -> pa.Table:
        """The table with one row per item, in this sequence's order."""
        return self.table if self.order is None else self.table.take(self.order)

    def ids(self) -> list[str]:
        """The id of each prediction, in order."""
        return self.in_order().column("id").to_pylist()

    def has_usage(self) -> bool:
        """Whether any prediction carries ``usage``."""
        return self.table.column("usage").null_count < self.table.num_rows

    def row_of(self) -> np.ndarray:
        """For each table row, its position in this sequence (the row it was joined to)."""
        if self.order is None:
            return np.arange(self.table.num_rows)
        positions = np.empty(len(self.order), dtype=np.int64)
        positions[self.order] = np.arange(len(self.order))
        return positions


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


class _SeenIds:
    """The ids read so far, for the duplicate check: their hashes, sorted in one array (8 bytes an
    id), and the id column and line numbers of each block read, so that an id whose hash was met
    before is looked up exactly and its first line named.

    The hashes fill a buffer that doubles when full, each block's merged in place: a new sorted array
    for every block left freed arrays of every size behind, which the C allocator kept (25 MB of
    resident memory after a million predictions)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._buffer = np.empty(0, dtype=np.int64)
        self._size = 0
        self.blocks: list[tuple[pa.ChunkedArray, np.ndarray]] = []
        self.block: dict[str, int] = {}
        """The ids of the block being read, and their lines: filled only where a hash was met before."""

    @property
    def hashes(self) -> np.ndarray:
        """The hashes of the ids of the blocks sealed so far, sorted."""
        return self._buffer[: self._size]

    def _first_line(self, pred_id: str) -> int | None:
        first = self.block.get(pred_id)
        if first is not None:
            return first
        for ids, numbers in self.blocks:
            k = pc.index(ids, pred_id).as_py()
            if k >= 0:
                return int(numbers[k])
        return None

    def _met(self, h: int) -> bool:
        i = int(np.searchsorted(self.hashes, h))
        return i < len(self.hashes) and self.hashes[i] == h

    def add(self, pred_id: str, number: int) -> None:
        """Record the id of line ``number``; an id met before is an error naming both lines."""
        if pred_id in self.block or self._met(hash(pred_id)):
            first = self._first_line(pred_id)
            if first is not None:
                raise EviScopeError(
                    f"{self.source} line {number}: duplicate id {id_text(pred_id)} (first on line "
                    f"{first}); give exactly one prediction per row id"
                )
        self.block[pred_id] = number

    def add_block(self, ids: list[str], numbers: list[int]) -> None:
        """Record the ids of a block's lines as :meth:`add` does, all at once where no hash repeats."""
        ordered = np.sort(np.fromiter(map(hash, ids), dtype=np.int64, count=len(ids)))
        at = np.minimum(np.searchsorted(self.hashes, ordered), len(self.hashes) - 1)
        if (ordered[1:] == ordered[:-1]).any() or (len(self.hashes) and (self.hashes[at] == ordered).any()):
            for pred_id, number in zip(ids, numbers, strict=True):
                self.add(pred_id, number)

    def seal(self, ids: pa.ChunkedArray, numbers: list[int]) -> None:
        """The block is read: keep its ids' hashes, and its ids for exact look-ups."""
        size = self._size + len(ids)
        if size > len(self._buffer):
            buffer = np.empty(max(size, 2 * len(self._buffer)), dtype=np.int64)
            buffer[: self._size] = self.hashes
            self._buffer = buffer
        added = self._buffer[self._size : size]
        added[:] = np.fromiter(map(hash, ids.to_pylist()), dtype=np.int64, count=len(ids))
        added.sort()
        # two sorted runs: a stable sort (timsort) merges them in linear time, in place
        self._buffer[:size].sort(kind="stable")
        self._size = size
        self.blocks.append((ids, np.asarray(numbers, dtype=np.int64)))
        self.block = {}


def _blocks(lines: Iterator[tuple[int, bytes]]) -> Iterator[list[tuple[int, bytes]]]:
    """The numbered lines in blocks of at most :data:`BLOCK_LINES` lines and about :data:`BLOCK_BYTES`;
    when a line cannot be read (too long), the lines before it are handed out before the error."""
    block: list[tuple[int, bytes]] = []
    size = 0
    try:
        for numbered in lines:
            block.append(numbered)
            size += len(numbered[1])
            if len(block) == BLOCK_LINES or size >= BLOCK_BYTES:
                yield block
                block, size = [], 0
    except EviScopeError:
        if block:
            yield block
        raise
    if block:
        yield block


def _read_block(lines: list[bytes]) -> pa.Table | None:
    """The predictions of ``lines`` read column-wise by pyarrow, or None unless every line is plainly
    one valid prediction object with no unknown field (the line pass then reads them and names the
    first bad line, or reads what pyarrow does not: a count written ``1.0``, an unknown field).

    pyarrow reads JSON more leniently than the line pass: it takes two objects on one line, ``NaN``,
    a missing ``action`` as null, a null in a list, and bytes that are not UTF-8; each is caught here.
    A line must start with ``{``: pyarrow 26 crashes on a block that starts with ``null``.
    """
    if not all(line.startswith(b"{") for line in lines):
        return None
    data = b"".join(lines)
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None
    options = pa_json.ReadOptions(use_threads=False, block_size=len(data) + 1)
    try:
        table = pa_json.read_json(
            io.BytesIO(data), read_options=options, parse_options=_PARSE, memory_pool=POOL
        )
    except (pa.ArrowException, ValueError):
        return None
    return table if table.num_rows == len(lines) and _plainly_valid(table, lines) else None


def _plainly_valid(table: pa.Table, lines: list[bytes]) -> bool:
    """Whether the columns read hold what :class:`Prediction` accepts, and a null ``action`` is one
    the line gives (pyarrow reads a missing field as null; in a line read against the schema, with no
    unknown field, ``"action":`` can only be that key)."""
    if table.column("id").null_count:
        return False
    action = table.column("action")
    if pc.index_in(action, value_set=pa.array(ACTIONS)).null_count != action.null_count:
        return False
    if action.null_count:
        nulls = np.flatnonzero(action.is_null().to_numpy())
        if not all(_ACTION_KEY.search(lines[i]) for i in nulls.tolist()):
            return False
    if pc.list_flatten(table.column("citations")).null_count:
        return False
    quotes = pc.list_flatten(table.column("quotes"))
    if quotes.null_count or any(pc.struct_field(quotes, f).null_count for f in ("doc_id", "text")):
        return False
    usage = table.column("usage")
    for field, most in [(f, MAX_COUNT) for f in COUNT_FIELDS] + [(f, MAX_AMOUNT) for f in AMOUNT_FIELDS]:
        values = pc.struct_field(usage, field)
        if values.null_count == len(values):
            continue
        low, high = pc.min_max(values).values()
        if low.as_py() < 0 or high.as_py() > most:
            return False
        if field in AMOUNT_FIELDS and not pc.all(pc.is_finite(values)).as_py():
            return False
    return True


def _validate_block(
    source: str, block: list[tuple[int, bytes]], met: UnknownFields, seen: _SeenIds
) -> pa.Table:
    """The line pass: each line validated in turn; the first bad line, or an id met a second time, stops the read."""
    validate = _VALIDATOR.validate_json
    preds: list[Prediction] = []
    for number, line in block:
        met.place = f"line {number}"
        try:
            pred = validate(line, context=met)
        except PydanticValidationError as err:
            raise _line_error(source, number, line, err) from None
        seen.add(pred.id, number)
        preds.append(pred)
    return Predictions.from_models(preds).table


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
) -> Predictions:
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
            preds: Predictions | list[Prediction] = read_predictions(predictions, source, warn)
        else:
            source = source or "predictions"
            preds = validate_predictions(predictions, source, warn)
        return join_predictions(source, preds, rows)


def read_predictions(path: str | Path, source: str | None = None, warn: Warn | None = None) -> Predictions:
    """The predictions of a JSONL file, validated, in file order, without the join to rows: the file
    is read once, line by line (a FIFO too); errors name ``source`` (default: the path). Once every
    line is valid, ``warn`` names each unknown field that is no near miss (see
    :func:`validate_predictions`).

    Lines are read in blocks (:data:`BLOCK_LINES`), each column-wise by pyarrow into the columns of
    :data:`PREDICTION_SCHEMA` (no object per prediction); a block pyarrow cannot read, or whose
    columns hold anything :class:`Prediction` would not accept, is read again one line at a time by
    :class:`Prediction` itself, which names the first bad line. Either way a line's predictions are the
    same. An id met twice stops the read at the end of the block that meets it again.
    """
    source = source or plain(str(path), None)
    met = UnknownFields()
    seen = _SeenIds(source)
    tables: list[pa.Table] = []
    with gc_paused(), closing(jsonl_lines(path, source)) as lines:
        for block in _blocks(lines):
            numbers = [number for number, _ in block]
            table = _read_block([line for _, line in block])
            if table is None:
                table = _validate_block(source, block, met, seen)
            else:
                seen.add_block(table.column("id").to_pylist(), numbers)
            seen.seal(table.column("id"), numbers)
            tables.append(table)
    met.warn(source, KNOWN_FIELDS, warn)
    return Predictions(pa.concat_tables(tables))


def _hash_join(ids: pa.ChunkedArray, rows: Sequence[Mapping[str, Any]]) -> np.ndarray | None:
    """The table row of each row's prediction where every prediction's id is the id of a row and every
    row gets one (the last row of an id shared by two), else None (:func:`join_predictions` then names
    the problems). Ids are matched by their hashes, sorted, each match then compared as text: about
    40 bytes a row, where a pyarrow hash table of the rows' ids took 100."""
    n = len(rows)
    if len(ids) != n:
        return None
    hashes = np.fromiter((hash(row["id"]) for row in rows), dtype=np.int64, count=n)
    by_hash = np.argsort(hashes, kind="stable")  # rows sharing a hash stay in row order
    hashes = hashes[by_hash]
    order = np.full(n, -1, dtype=np.int64)
    start = 0
    for chunk in ids.chunks:
        for batch in range(0, len(chunk), BLOCK_LINES):
            texts = chunk.slice(batch, BLOCK_LINES).to_pylist()
            found = np.fromiter(map(hash, texts), dtype=np.int64, count=len(texts))
            # the last row with the hash: the last row of its id, unless two ids share a hash
            at = np.searchsorted(hashes, found, side="right") - 1
            if (at < 0).any() or (hashes[at] != found).any():
                return None
            row_of = by_hash[at]
            if not all(rows[i]["id"] == text for i, text in zip(row_of.tolist(), texts, strict=True)):
                return None
            order[row_of] = np.arange(start, start + len(texts))
            start += len(texts)
    # n predictions on n rows, each row reached: one prediction per row
    return order if (order >= 0).all() else None


def join_predictions(
    source: str, preds: Predictions | Sequence[Prediction], rows: Sequence[Mapping[str, Any]]
) -> Predictions:
    """``preds`` in the order of ``rows``, one per row; unknown, duplicate and missing ids are one
    :class:`EviScopeError` naming them together. Where two rows share an id, the last one is joined."""
    if not isinstance(preds, Predictions):
        preds = Predictions.from_models(preds)
    table = preds.in_order()
    order = _hash_join(table.column("id"), rows)
    if order is not None:
        return Predictions(table, order)
    ids = table.column("id")
    n = len(rows)
    reversed_ids = pa.array([row["id"] for row in reversed(rows)], pa.string(), memory_pool=POOL)
    found = pc.index_in(ids, value_set=reversed_ids, memory_pool=POOL)
    found = pc.fill_null(found, -1).to_numpy()
    del reversed_ids
    row_of = np.where(found >= 0, n - 1 - found, -1)
    known = row_of >= 0
    hits = np.bincount(row_of[known], minlength=n)
    if known.all() and (hits == 1).all():
        order = np.empty(n, dtype=np.int64)
        order[row_of] = np.arange(len(row_of))
        return Predictions(table, order)
    problems = []
    if not known.all():
        unknown = ids.filter(pa.array(~known)).to_pylist()
        problems.append(f"{len(unknown)} unknown ids ({_name_ids(unknown)})")
    if (hits > 1).any():
        joined = np.flatnonzero(known)
        _, first = np.unique(row_of[joined], return_index=True)
        again = np.ones(len(row_of), dtype=bool)
        again[joined[first]] = False
        duplicate = ids.take(np.flatnonzero(known & again)).to_pylist()
        dups = list(Counter(duplicate))
        problems.append(f"{len(dups)} duplicate ids ({_name_ids(dups)})")
    if (hits == 0).any():
        missing = [rows[i]["id"] for i in np.flatnonzero(hits == 0).tolist()]
        problems.append(f"{len(missing)} missing ids ({_name_ids(missing)})")
    raise EviScopeError(
        f"{source}: ids do not match the {n} rows: " + "; ".join(problems) + "; "
        "give exactly one prediction per row id"
    )


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
