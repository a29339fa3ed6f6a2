"""Reading a built config's Parquet file, verified: its checksum, its schema, its ids.

``eviscope build`` records each data file's SHA-256 in the card (``dataset/README.md``, the header's
``data_sha256``: path → hex digest) and in ``build_report.json``. :func:`read_split` reads a config
of a dataset folder and checks, each failure one :class:`~eviscope.core.errors.EviScopeError` line
naming the file and what is wrong:

- the card's YAML header parses and records the file's SHA-256, and the file still has it (an edited
  gold answer, a truncated or bit-flipped file). Inside :func:`allowing_modified_data` (``eviscope
  score --allow-modified-data``) a mismatch or a missing checksum is a warning instead, and the file
  is read as it is;
- the file is a readable Parquet file with every column of the config, each of its type;
- no id appears twice.

A folder without a card (a ForceBench split written by ``eviscope forcebench adjudicate``, a hand-laid
copy) has nothing to verify against: its file is read with the last two checks only.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from eviscope.core.errors import EviScopeError, first_line, id_text
from eviscope.core.io import file_sha256
from eviscope.core.layout import split_path

CHECKSUM_KEY = "data_sha256"
"""The card header's map of data file (relative to the folder) → SHA-256, written by the build."""

CARD = "README.md"

_ALLOW: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar(
    "eviscope_allow_modified_data", default=None
)


@contextlib.contextmanager
def allowing_modified_data(warn: Callable[[str], None]) -> Iterator[None]:
    """Inside the block, a data file whose checksum differs (or is not recorded) is read with
    ``warn(message)`` instead of refused."""
    token = _ALLOW.set(warn)
    try:
        yield
    finally:
        _ALLOW.reset(token)


def card_header(root: Path) -> dict[str, Any] | None:
    """The YAML header of the card in ``root`` (None: no card); a header that does not parse, or is
    not a mapping, is an error naming the card."""
    card = root / CARD
    try:
        text = card.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as err:
        raise EviScopeError(f"{card}: cannot read the dataset card: {first_line(err)}") from None
    if not text.startswith("---"):
        return {}
    end = text.find("\n---", 3)
    if end < 0:
        raise EviScopeError(f"{card}: the card's YAML header is not closed by a `---` line")
    try:
        header = yaml.safe_load(text[3:end])
    except yaml.YAMLError as err:
        where = getattr(err, "context_mark", None) or getattr(err, "problem_mark", None)
        at = f" (line {where.line + 1})" if where is not None else ""  # the header starts on line 1
        raise EviScopeError(
            f"{card}: the card's YAML header does not parse{at}: {first_line(err)}; rebuild the data with "
            "`eviscope build` or restore the card"
        ) from None
    if header is None:
        return {}
    if not isinstance(header, dict):
        raise EviScopeError(f"{card}: the card's YAML header is not a mapping")
    return header


def verify_checksum(root: Path, config: str, path: Path) -> None:
    """Check ``path`` (a data file of ``config`` in ``root``) against the SHA-256 the card records."""
    header = card_header(root)
    if header is None:
        return
    rel = path.relative_to(root).as_posix()
    recorded = header.get(CHECKSUM_KEY)
    expected = recorded.get(rel) if isinstance(recorded, dict) else None
    rebuild = f"rebuild it with `eviscope build {config}`"
    if not isinstance(expected, str):
        problem = f"{root / CARD} records no sha256 for {rel} (built before checksums, or edited): {rebuild}"
    else:
        try:
            actual = file_sha256(path)
        except OSError as err:
            raise EviScopeError(f"{path}: cannot read: {first_line(err)}") from None
        if actual == expected:
            return
        problem = (
            f"{path}: its sha256 {actual[:16]}… is not the {expected[:16]}… recorded in {root / CARD}: "
            f"the data was modified after it was built; {rebuild}"
        )
    warn = _ALLOW.get()
    if warn is None:
        raise EviScopeError(
            f"{problem} (`eviscope score --allow-modified-data` scores it anyway, with a warning)"
        )
    warn(problem)


def read_table(path: Path, schema: pa.Schema, what: str) -> pa.Table:
    """The Parquet file at ``path`` with the columns of ``schema`` (others dropped); an unreadable
    file, a missing column or a column of another type is an error naming the file and column."""
    try:  # ParquetFile, not read_table: that imports pyarrow.dataset and pandas (0.3 s of a run's start)
        with pq.ParquetFile(path) as parquet:
            table = parquet.read()
    except (OSError, pa.ArrowException) as err:
        raise EviScopeError(f"{path}: not a readable Parquet file ({first_line(err)})") from None
    missing = [name for name in schema.names if name not in table.column_names]
    if missing:
        raise EviScopeError(f"{path}: not {what} rows: it lacks the column(s) {', '.join(missing)}")
    for field in schema:
        got = table.schema.field(field.name).type
        if not got.equals(field.type):
            raise EviScopeError(
                f"{path}: not {what} rows: column {field.name} is {got}, expected {field.type}"
            )
    return table.select(schema.names)


def check_unique_ids(path: Path, rows: list[dict[str, Any]]) -> None:
    """Every ``id`` of ``rows`` (read from ``path``) once; a repeat is named with its row numbers."""
    first: dict[Any, int] = {}
    for number, row in enumerate(rows, start=1):
        seen = first.setdefault(row["id"], number)
        if seen != number:
            raise EviScopeError(
                f"{path}: duplicate id {id_text(row['id'])} in the dataset (rows {seen} and {number}); "
                "the data is malformed: rebuild it"
            )


@functools.cache
def features_of(schema: pa.Schema) -> Any:
    """The `datasets` ``Features`` of a row schema declared in Arrow terms (one object per schema).
    `datasets` is imported here, not where rows are only read."""
    from datasets import Features

    return Features.from_arrow_schema(schema)


def read_split(root: Path, config: str, schema: pa.Schema, what: str) -> list[dict[str, Any]]:
    """The rows of ``config`` in the dataset folder ``root``, verified (see the module docstring)."""
    path = split_path(root, config)
    verify_checksum(root, config, path)
    return read_file(path, schema, what)


def read_file(path: Path, schema: pa.Schema, what: str) -> list[dict[str, Any]]:
    """The rows of one Parquet file, its schema and ids checked (no checksum: nothing records one)."""
    rows = read_table(path, schema, what).to_pylist()
    check_unique_ids(path, rows)
    return rows
