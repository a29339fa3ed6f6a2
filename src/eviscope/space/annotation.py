"""Blinded double annotation in the Space, for every benchmark with an annotation flow (its
:class:`~eviscope.core.registry.AnnotationFlow`: what is annotated, what an annotator sees, how a verdict
reads, and how agreement is measured); each annotator's sheet stored apart, and read back by the one
reader of every benchmark's sheets, :func:`~eviscope.core.registry.read_verdicts`.

An annotator is who signed in (the Hub's username; ``eviscope.space.ui``), and sees and changes only
their own sheet; of the others they see agreement figures, never a name or a verdict
(:func:`own_agreement`). A sheet is a CSV file that people open in spreadsheets: a cell that starts
like a formula (``=``, ``+``, ``-``, ``@``, tab, CR) is written with a leading ``'``
(:func:`~eviscope.space.safe.csv_cell`, the OWASP rule), and read back as typed. Sheets live in
``<folder>/<benchmark>/<annotator>.csv`` and are
rewritten on every verdict, under a file lock, as the results store writes a result
(``eviscope.space.storage``: a temporary file, fsynced, then renamed): a Space killed at any moment
leaves each sheet old or new, whole, and the temporary files of cut-short writes are removed at the
next start. On the Hub, whose Space disk is wiped on every restart, the sheets are also kept in the
results repo (``annotations/<benchmark>/<annotator>.csv``): restored from it at start, committed to
it after each verdict (huggingface_hub's ``CommitScheduler``). A sheet cut short anyway (by an older writer, or a crash of the machine) loses only its
incomplete last line, which is left out with a warning in the log; the next verdict rewrites the
sheet whole. A write that fails (read-only folder, full disk, a lock held too long) is one
:class:`EviScopeError` line naming the reason, and the sheet is left as it was. So is a verdict the
sheet could not keep: a field over :data:`MAX_FIELD_CHARS` (the form stops there too), text that is
not valid Unicode, or any line that would not read back (checked before the sheet is written).
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import logging
import os
import re
import secrets
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from filelock import FileLock
from huggingface_hub import HfApi
from huggingface_hub.errors import HfHubHTTPError
from pydantic import BaseModel, ValidationError

from eviscope.core.errors import EviScopeError, field_error, id_text
from eviscope.core.registry import AnnotationFlow, annotated, read_verdicts
from eviscope.core.stats import stable_hash
from eviscope.space.safe import csv_cell, csv_value
from eviscope.space.storage import LOCK_TIMEOUT_S, HubMirror, describe_failure, sweep, write_atomically

__all__ = [
    "ID_KEY_VARIABLE",
    "MAX_FIELD_CHARS",
    "AnnotationStore",
    "agreement",
    "blind_id",
    "flow",
    "id_key",
    "own_agreement",
    "queue_order",
]

ID_KEY_VARIABLE = "EVISCOPE_SPACE_ANNOTATION_KEY"
"""The secret that keys the ids an annotator sees (:func:`blind_id`); a random one per start if unset."""

HUB_FOLDER = "annotations"
"""Where the sheets live in the results repo: ``annotations/<benchmark>/<annotator>.csv``."""
MAX_FIELD_CHARS = 10_000
"""The most characters one field of a verdict (a note, a corrected answer) may hold: the form says so
and stops there, and the store refuses a longer one (from the API) before anything is written."""
ANNOTATOR_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
"""An annotator (a Hub username, which names the sheet's file): no path, no hidden file."""
Row = Mapping[str, Any]

log = logging.getLogger(__name__)


def _failure(err: OSError) -> str:
    """What went wrong with the annotation folder, in a few words, without the server's paths."""
    return describe_failure(
        err,
        folder="the annotation folder",
        disk="the annotation disk",
        busy="the annotation store stayed busy with other annotators",
    )


def _check_annotator(name: str | None) -> str:
    name = (name or "").strip()
    if not ANNOTATOR_NAME.fullmatch(name):
        raise EviScopeError(
            f"annotator name {name[:40]!r}: use 1–64 letters, digits, ., _ or -, starting with a letter or digit"
        )
    return name


def _cell(value: Any) -> str:
    """A sheet cell as written: formula starts neutralized (a missing value is empty)."""
    return csv_cell("" if value is None else str(value))


def queue_order(rows: Sequence[Row], seed: int = 0) -> list[Row]:
    """Candidates in a fixed shuffled order (``stable_hash``), so a quartet's rows are not adjacent."""
    return sorted(rows, key=lambda row: stable_hash(seed, row["id"]))


def id_key() -> bytes:
    """The key of :func:`blind_id`: ``$EVISCOPE_SPACE_ANNOTATION_KEY`` (set it as a Space secret so
    that the ids an annotator sees survive a restart), else a random key for this process."""
    configured = os.environ.get(ID_KEY_VARIABLE, "")
    return configured.encode() if configured else secrets.token_bytes(32)


def blind_id(key: bytes, annotator: str, row_id: str) -> str:
    """The id ``annotator`` sees for row ``row_id``: a keyed hash (HMAC-SHA-256) of both, so that it
    says nothing of the row (a row id such as ``q24-noisy`` names its variant), differs from one
    annotator to the next, and cannot be computed from a guessed row id without the Space's key.
    The Space maps it back by hashing the candidate rows' ids.

    >>> blind_id(b"k", "alice", "q24-noisy") == blind_id(b"k", "alice", "q24-noisy")
    True
    >>> blind_id(b"k", "alice", "q24-noisy") != blind_id(b"k", "bob", "q24-noisy")
    True
    >>> "noisy" in blind_id(b"k", "alice", "q24-noisy")
    False
    """
    digest = hmac.new(key, f"{annotator}\x1f{row_id}".encode(), hashlib.sha256).hexdigest()
    return f"row-{digest[:12]}"


def flow(benchmark: str) -> AnnotationFlow:
    """The annotation flow of ``benchmark``; a benchmark without one is an error naming those with one."""
    flows = annotated()
    if benchmark not in flows:
        raise EviScopeError(f"no annotation flow for {benchmark!r}; choose one of {', '.join(flows)}")
    return flows[benchmark]


class AnnotationStore:
    """Each annotator's sheet, per benchmark, as a CSV file of the rows annotated so far."""

    def __init__(
        self,
        folder: str | Path,
        lock_timeout: float = LOCK_TIMEOUT_S,
        *,
        results_repo: str | None = None,
        api: HfApi | None = None,
    ) -> None:
        """``results_repo``: a hub dataset repo that keeps the sheets (under ``annotations/``), for a
        Space whose disk is wiped on restart: they are restored from it now and committed to it as
        they are written (:class:`~eviscope.space.storage.HubMirror`)."""
        self.folder = Path(folder)
        self._lock = FileLock(self.folder / ".lock", timeout=lock_timeout)
        self._warned: set[tuple[Path, str]] = set()
        self.mirror: HubMirror | None = None
        self._unmirrored: str | None = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:  # the Space still serves; each save says why it cannot be recorded
            log.warning("annotation store: cannot create its folder: %s", _failure(err))
            return
        self.sweep()
        if results_repo:
            try:
                self.mirror = HubMirror(self.folder, results_repo, HUB_FOLDER, ["*/*.csv"], api=api)
            except (HfHubHTTPError, OSError, ValueError) as err:
                # Saving now would overwrite the repo's sheets with what this disk holds: refuse instead.
                self._unmirrored = f"the results repo {results_repo} could not be read ({type(err).__name__})"
                log.error("annotation store: %s: %r", self._unmirrored, err)

    def sweep(self) -> list[Path]:
        """Remove the temporary files of sheet writes that were cut short (``.*.tmp``, which also
        covers those of earlier versions); never sheets. Returns the files removed."""
        return sweep(self.folder, self._lock, "*/.*.tmp", "annotation store", log)

    def _path(self, benchmark: str, annotator: str) -> Path:
        flow(benchmark)
        return self.folder / benchmark / f"{_check_annotator(annotator)}.csv"

    def annotators(self, benchmark: str) -> list[str]:
        """Everyone with a sheet for ``benchmark``."""
        try:
            names = [p.stem for p in (self.folder / benchmark).glob("*.csv")]
        except OSError as err:
            raise EviScopeError(f"could not list the annotators: {_failure(err)}") from None
        return sorted(name for name in names if ANNOTATOR_NAME.fullmatch(name))

    def sheet(self, benchmark: str, annotator: str, rows: Sequence[Row]) -> dict[str, Any]:
        """One annotator's complete verdicts by row id, as ``read_sheet`` would read the sheet.

        A last line cut short (a write interrupted by a crash) is left out, with a warning in the
        log; a sheet that is otherwise not one (edited by hand) is an error, so that no save
        overwrites it.
        """
        path = self._path(benchmark, annotator)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as err:
            raise EviScopeError(f"could not read the annotations of {annotator}: {_failure(err)}") from None
        where = f"the {benchmark} sheet of {annotator}"
        lines = self._complete_lines(path, data, flow(benchmark).sheet_columns, where)
        return read_verdicts(flow(benchmark), lines, rows, where)

    def _complete_lines(
        self, path: Path, data: bytes, header: Sequence[str], where: str
    ) -> list[tuple[int, dict[str, str]]]:
        """The sheet's lines that were written whole, numbered as in the file (the header is 1)."""
        torn: list[str] = []
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            if err.end < len(data) or err.reason != "unexpected end of data":
                raise EviScopeError(
                    f"{where} is not UTF-8 text (byte {err.start}); tell the Space's maintainers"
                ) from None
            text = data[: err.start].decode("utf-8")  # a character cut in two: the last line is torn
            torn.append("a character cut short")
        source = io.StringIO(text, newline="")
        reader = csv.reader(source, strict=True)
        records: list[tuple[int, list[str]]] = []
        try:
            for record in reader:
                records.append((reader.line_num, record))
        except csv.Error as err:
            if source.read():  # malformed before the end: not a file cut short
                raise EviScopeError(
                    f"{where}: line {reader.line_num}: {err}; tell the Space's maintainers"
                ) from None
            torn.append(f"the last line is cut short ({err})")
        else:
            if not text:
                torn.append("the sheet is empty")
            elif not text.endswith(("\n", "\r")):
                records.pop()  # no line end after it: the write stopped inside this line
                torn.append("the last line has no line end")
        if torn:
            self._warn(path, f"{where}: {'; '.join(torn)}; left out, the next save rewrites it whole")
        elif any(seen == path for seen, _ in self._warned):  # whole again: warn anew if cut again
            self._warned = {(seen, m) for seen, m in self._warned if seen != path}
        if not records:
            return []  # nothing, or not even a whole header line: an empty sheet
        (_, names), *body = records
        missing = [name for name in ("id", *header) if name not in names]
        if missing:
            raise EviScopeError(
                f"{where} lacks the columns {', '.join(missing)}; tell the Space's maintainers"
            )
        out = []
        for number, record in body:
            if not record:
                continue  # a blank line
            if len(record) != len(names):
                raise EviScopeError(
                    f"{where}: line {number} has {len(record)} fields, not {len(names)}; "
                    "tell the Space's maintainers"
                )
            out.append((number, dict(zip(names, map(csv_value, record), strict=True))))
        return out

    def _warn(self, path: Path, message: str) -> None:
        if (path, message) not in self._warned:  # once per problem, not on every read
            self._warned.add((path, message))
            log.warning("annotation store: %s", message)

    def save(
        self, benchmark: str, annotator: str, row: Row, fields: Mapping[str, Any], rows: Sequence[Row]
    ) -> None:
        """Validate one verdict on ``row`` and write it into the annotator's sheet (replacing an earlier one).

        A sheet that cannot be written (read-only folder, full disk, the lock held too long) is one
        :class:`EviScopeError` line, and the sheet stays as it was.
        """
        path = self._path(benchmark, annotator)
        values = {name: "" if value is None else str(value).strip() for name, value in fields.items()}
        _check_fields(row["id"], values)
        try:
            verdict: BaseModel = flow(benchmark).verdict(row["id"], values)
        except ValidationError as err:
            raise field_error(err, f"row {id_text(row['id'])}") from None
        if self._unmirrored:
            raise EviScopeError(f"annotations cannot be saved: {self._unmirrored}; restart the Space")
        by_id = {r["id"]: r for r in rows}
        try:
            self.folder.mkdir(parents=True, exist_ok=True)  # gone, or never made: the lock lives there
            with self._lock, self.mirror.writing() if self.mirror else nullcontext():
                verdicts = self.sheet(benchmark, annotator, rows)
                verdicts[row["id"]] = verdict
                out = io.StringIO()
                columns = ("id", *flow(benchmark).sheet_columns)
                writer = csv.DictWriter(out, fieldnames=columns)
                writer.writeheader()
                for row_id, v in verdicts.items():
                    answered = {f"annotation_{k}": val for k, val in v.model_dump().items() if k != "id"}
                    line = {**by_id.get(row_id, {}), **answered, "id": row_id}
                    writer.writerow({name: _cell(line.get(name)) for name in columns})
                write_atomically(path, _readable_sheet(row["id"], out.getvalue(), len(verdicts) + 1))
            if self.mirror:
                self.mirror.written()
        except OSError as err:
            log.error("could not save %s's verdict on %s (%s): %r", annotator, row["id"], benchmark, err)
            raise EviScopeError(
                f"could not save the annotation of row {id_text(row['id'])}: {_failure(err)}; nothing was saved "
                "(your earlier annotations are kept). Try again later, or tell the Space's maintainers."
            ) from None


def _check_fields(row_id: str, values: Mapping[str, str]) -> None:
    """Refuse a verdict field the sheet could not keep: over :data:`MAX_FIELD_CHARS`, or text that
    is not valid Unicode (a lone surrogate, which only an API client can send)."""
    for name, value in values.items():
        if len(value) > MAX_FIELD_CHARS:
            raise EviScopeError(
                f"row {id_text(row_id)}: field {name} holds {len(value):,} characters, more than the "
                f"{MAX_FIELD_CHARS:,} a field may hold; shorten it (nothing was saved)"
            )
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as err:
            raise EviScopeError(
                f"row {id_text(row_id)}: field {name} is not valid Unicode text (character {err.start + 1} "
                "is a lone surrogate); nothing was saved"
            ) from None


def _readable_sheet(row_id: str, text: str, lines: int) -> bytes:
    """The sheet ``text`` as UTF-8, once it is known to read back as its ``lines`` lines (header
    included) with the reader every sheet is read with: a sheet that would not open again (a cell
    over the CSV reader's field limit) is refused before anything is written."""
    try:
        read = sum(1 for _ in csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as err:
        raise EviScopeError(
            f"row {id_text(row_id)}: this annotation would make the sheet unreadable ({err}); "
            "nothing was saved (your earlier annotations are kept)"
        ) from None
    if read != lines:
        raise EviScopeError(
            f"row {id_text(row_id)}: this annotation would not read back as written; nothing was saved "
            "(your earlier annotations are kept)"
        )
    return text.encode("utf-8")


def agreement(
    benchmark: str, a: Mapping[str, Any], b: Mapping[str, Any], rows: Sequence[Row]
) -> tuple[float, list[list[str]]]:
    """Cohen's kappa over the rows both annotated, and the adjudication queue as (id, reason) lines."""
    shared = [row for row in rows if row["id"] in a and row["id"] in b]
    if not shared:
        raise EviScopeError("the two annotators share no annotated row yet")
    return flow(benchmark).agreement(a, b, shared)


def own_agreement(
    benchmark: str, mine: Mapping[str, Any], others: Sequence[Mapping[str, Any]], rows: Sequence[Row]
) -> tuple[list[list[Any]], list[list[Any]]]:
    """What a signed-in annotator may see of the agreement: for each other sheet sharing rows with
    ``mine`` (unnamed, in the order given), the rows shared, Cohen's kappa and how many of them are
    to adjudicate; and the annotator's own rows in some adjudication queue, each with the number of
    other annotators it is queued with. No other annotator's name or verdict, nor a queue's reason
    (which quotes both verdicts, and for EviScope the gold action)."""
    lines, queued = [], dict.fromkeys([row["id"] for row in rows if row["id"] in mine], 0)
    for other in others:
        shared = [row for row in rows if row["id"] in mine and row["id"] in other]
        if not shared:
            continue
        kappa, queue = flow(benchmark).agreement(mine, other, shared)
        lines.append([f"annotator {len(lines) + 1}", len(shared), kappa, len(queue)])
        for row_id, _ in queue:
            queued[row_id] += 1
    return lines, [[row_id, n] for row_id, n in queued.items() if n]
