"""Reading JSON Lines files a user gives (predictions of any benchmark): line by line, bounded, with
one-line errors that name the file and the line, whatever the bytes are.

>>> str(json_line_error("p.jsonl line 3", b'{"id": "q1\\n'))
'p.jsonl line 3: not valid JSON: EOF while parsing a string (column 10); each line must hold one whole JSON object'
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pydantic_core

from eviscope.core.errors import EviScopeError, plain
from eviscope.core.io import MAX_LINE_BYTES, bounded_lines

UTF8_BOM = b"\xef\xbb\xbf"

_NOT_TEXT = (
    (b"\xff\xfe", "UTF-16 or UTF-32 text (it starts with a byte order mark); save it as UTF-8"),
    (b"\xfe\xff", "UTF-16 text (it starts with a byte order mark); save it as UTF-8"),
    (b"\x1f\x8b", "gzip-compressed; decompress it first"),
    (b"PK\x03\x04", "a zip archive; extract the JSONL file first"),
    (b"PAR1", "a Parquet file; write one JSON object per line instead"),
)
"""Leading bytes of files that are not UTF-8 text, and what to do about them."""

_JITER_PLACE = re.compile(r" at line \d+ column (\d+)$")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def jsonl_lines(
    path: str | Path, source: str | None = None, place: Callable[[int], str] | None = None
) -> Iterator[tuple[int, bytes]]:
    """Stream the non-blank lines of a JSONL file, each with its 1-based line number.

    A leading UTF-8 byte order mark is dropped. A file that cannot be read, a UTF-16 file, a
    compressed file, a line over :data:`~eviscope.core.io.MAX_LINE_BYTES` and a file without a single
    non-blank line are errors naming ``source`` (default: the path; ``place(number)`` names a line).
    The file is never read whole: a reader that stops at the first bad line has read only that far.
    """
    source = source or plain(str(path), None)
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below, after the last line was handed out
    except OSError as err:
        raise EviScopeError(f"{source}: cannot read predictions: {err.strerror or err}") from None
    blank = True
    with handle:
        try:
            for number, line in bounded_lines(handle, source, limit=MAX_LINE_BYTES, place=place):
                if number == 1:
                    line = _first_line(source, line)
                if line and not line.isspace():
                    blank = False
                    yield number, line
        except OSError as err:
            raise EviScopeError(f"{source}: cannot read predictions: {err.strerror or err}") from None
    if blank:
        raise EviScopeError(f"{source}: the file is empty; write one JSON object per line (JSON Lines)")


def _first_line(source: str, line: bytes) -> bytes:
    for magic, what in _NOT_TEXT:
        if line.startswith(magic):
            raise EviScopeError(f"{source}: not JSON Lines: the file is {what}")
    return line[len(UTF8_BOM) :] if line.startswith(UTF8_BOM) else line


def read_jsonl(path: str | Path) -> list[tuple[int, bytes]]:
    """The non-blank lines of a JSONL file, each with its 1-based line number (see :func:`jsonl_lines`)."""
    return list(jsonl_lines(path))


_LEADING_SPACE = re.compile(rb"[ \t\r\n]*")


def _first_non_utf8(data: bytes, chunk: int = 1 << 16) -> int | None:
    """The offset of the first byte of ``data`` that is not UTF-8, decoded a chunk at a time (a
    100 MB line is never copied whole); None when all of it is UTF-8."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    for offset in range(0, len(data), chunk):
        pending = len(decoder.getstate()[0])  # the bytes of a character cut by the previous chunk
        try:
            decoder.decode(view[offset : offset + chunk], final=offset + chunk >= len(data))
        except UnicodeDecodeError as err:
            return offset - pending + err.start
    return None


def json_line_error(place: str, line: bytes, reason: str = "") -> EviScopeError:
    """The error for a line that is not one JSON value; ``place`` names the file and line.

    The JSON parser's complaint is taken from the line without its line break (else a string cut
    short reads as a "control character" at column 0 of the next line); ``reason`` is the fallback.

    >>> str(json_line_error("p.jsonl line 3", b'{"id": "q1\\n'))
    'p.jsonl line 3: not valid JSON: EOF while parsing a string (column 10); each line must hold one whole JSON object'
    >>> str(json_line_error("p.jsonl line 1", b'{"answer": "caf\\xe9"}'))
    'p.jsonl line 1: not UTF-8 text (byte 0xe9 at column 16); save the file as UTF-8'
    """
    bad = _first_non_utf8(line)
    if bad is not None:
        return EviScopeError(
            f"{place}: not UTF-8 text (byte 0x{line[bad]:02x} at column {bad + 1}); save the file as UTF-8"
        )
    body = line[:-2] if line.endswith(b"\r\n") else line[:-1] if line.endswith(b"\n") else line
    try:
        pydantic_core.from_json(body)
    except ValueError as err:
        reason = str(err)
    reason = _JITER_PLACE.sub(r" (column \1)", reason.removeprefix("Invalid JSON: "))
    surrogate = _SURROGATE_ESCAPE.search(line)
    if surrogate and ("surrogate" in reason or "hex escape" in reason):
        escape = surrogate.group().decode()
        reason = f"{escape} is a lone surrogate escape, not a Unicode character{reason[reason.rfind(' (') :]}"
    start = _LEADING_SPACE.match(line).end()  # type: ignore[union-attr]
    if line.startswith(UTF8_BOM, start):
        hint = "; it starts with a byte order mark (U+FEFF), which only the first line may carry"
    elif b"\x00" in line:
        hint = "; it holds NUL bytes: is this a binary or UTF-16 file?"
    elif line.startswith(b"[", start):
        hint = "; it looks like a JSON array: write one JSON object per line (JSON Lines), not an array"
    elif reason.startswith(("EOF", "trailing characters")):
        hint = "; each line must hold one whole JSON object"
    else:
        hint = ""
    return EviScopeError(f"{place}: not valid JSON: {reason}{hint}")
