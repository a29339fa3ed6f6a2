"""The one exception type the suite raises for bad input, and how a message shows what it got.

:class:`EviScopeError` is a :class:`ValueError`, as ``evaluate`` and ``datasets`` users expect of bad
inputs; the CLI prints it as one line. A message quotes user data only through :func:`plain` or
:func:`brief`, so it stays one short line whatever the data holds (line breaks, NUL bytes,
right-to-left marks, lone surrogates, a megabyte-long id); a row id through :func:`id_text`, which
also escapes every non-ASCII character, so a look-alike id never reads as the real one.
"""

from __future__ import annotations

import contextlib
import errno
import math
import reprlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError

__all__ = [
    "EviScopeError",
    "EviScopeWarning",
    "brief",
    "first_line",
    "id_text",
    "os_error",
    "os_errors",
    "plain",
]


class EviScopeError(ValueError):
    """A user-facing error: its message names the file, row or field at fault and how to fix it."""


class EviScopeWarning(UserWarning):
    """A user-facing warning: input that is scored, but not as its author may think (an unknown field,
    predictions that fit another config); the command line prints it as one ``warning:`` line."""


_BRIEF_REPR = reprlib.Repr()
_BRIEF_REPR.maxlevel, _BRIEF_REPR.maxstring, _BRIEF_REPR.maxother = 2, 40, 40


def plain(text: str, limit: int | None = 80) -> str:
    """``text`` as one printable line: non-printable characters escaped, cut at ``limit`` characters.

    >>> plain("q01-sufficient")
    'q01-sufficient'
    >>> plain("a\\nb\\u202e\\x00\\ud800")
    'a\\\\nb\\\\u202e\\\\x00\\\\ud800'
    >>> plain("x" * 100, limit=10)
    'xxxxxxxxxx… (100 characters)'
    """
    truncated = limit is not None and len(text) > limit
    cut = text[:limit] if truncated else text
    if not cut.isprintable():
        cut = "".join(c if c.isprintable() else repr(c)[1:-1] for c in cut)
    return f"{cut}… ({len(text):,} characters)" if truncated else cut


def id_text(row_id: object, limit: int | None = 60) -> str:
    """A row id as every error quotes it: each character outside printable ASCII escaped as
    :func:`ascii` escapes it, so that a look-alike (a Cyrillic ``о`` in ``q01-nоisy``) never reads
    as the id it imitates; cut at ``limit`` characters as :func:`plain` cuts.

    >>> id_text("q01-noisy"), id_text("q01-n\u043eisy"), id_text("a\\nb\\u202e")
    ('q01-noisy', 'q01-n\\\\u043eisy', 'a\\\\nb\\\\u202e')
    """
    text = row_id if isinstance(row_id, str) else str(row_id)
    truncated = limit is not None and len(text) > limit
    cut = text[:limit] if truncated else text
    if not (cut.isascii() and cut.isprintable()):
        cut = "".join(c if c.isascii() and c.isprintable() else ascii(c)[1:-1] for c in cut)
    return f"{cut}… ({len(text):,} characters)" if truncated else cut


def _json_like(value: object, budget: int, depth: int = 0) -> str:
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int):
        return str(value) if value.bit_length() < 64 else f"<a {value.bit_length()}-bit integer>"
    if isinstance(value, float):
        return (
            repr(value)
            if math.isfinite(value)
            else {"nan": "NaN", "inf": "Infinity"}.get(repr(value), "-Infinity")
        )
    if isinstance(value, str):
        return '"' + plain(value, budget).replace('"', '\\"') + '"'
    if isinstance(value, list | tuple | Mapping):
        items = list(value.items()) if isinstance(value, Mapping) else value
        opening, closing = ("{", "}") if isinstance(value, Mapping) else ("[", "]")
        if depth >= 3:
            return f"{opening}…{closing}" if len(value) else opening + closing
        parts: list[str] = []
        used = 0
        for item in items:
            if used >= budget:
                parts.append(f"… {len(items) - len(parts)} more")
                break
            if isinstance(value, Mapping):
                key, val = item
                text = f"{_json_like(str(key), 20)}: {_json_like(val, budget - used, depth + 1)}"
            else:
                text = _json_like(item, budget - used, depth + 1)
            parts.append(text)
            used += len(text) + 2
        return opening + ", ".join(parts) + closing
    return f"{type(value).__name__} {plain(_BRIEF_REPR.repr(value), budget)}"


def brief(value: object, limit: int = 60) -> str:
    """``value`` as a message quotes it: JSON-like, one line, escaped, about ``limit`` characters.

    >>> brief("answer\\u200f"), brief(None), brief(float("nan")), brief([1, "two", {"three": 3}])
    ('"answer\\\\u200f"', 'null', 'NaN', '[1, "two", {"three": 3}]')
    >>> brief(list(range(1000)), limit=10)
    '[0, 1, 2, 3, … 996 more]'
    >>> brief(b"\\x00bytes")
    "bytes b'\\\\x00bytes'"
    """
    text = _json_like(value, limit)
    return text if len(text) <= 4 * limit else text[: 4 * limit] + "…"


def first_line(err: BaseException | str, limit: int = 200) -> str:
    """The first line of a foreign exception's message (its type when it has none), as :func:`plain`;
    the one helper for it (never an ``IndexError`` on an empty message).

    >>> first_line(ValueError("Parquet magic bytes not found\\nsecond line")), first_line(KeyError()), first_line("")
    ('Parquet magic bytes not found', 'KeyError', 'no message')
    """
    text = str(err).strip()
    if not text:
        return type(err).__name__ if isinstance(err, BaseException) else "no message"
    return plain(text.splitlines()[0], limit)


def field_error(err: ValidationError, where: str, prefix: str = "") -> EviScopeError:
    """Pydantic's first complaint as one line: ``<where>: field <prefix><name>: <message>``."""
    first = err.errors()[0]
    return EviScopeError(f"{where}: field {prefix}{first['loc'][0]}: {first['msg']}")


def os_error(path: Path | str, err: OSError, action: str = "write", hint: str = "") -> EviScopeError:
    """A one-line error for an OS error on ``path``: ``cannot write <path>: <reason> (ENOSPC); <hint>``.

    >>> str(os_error("out/report.json", OSError(errno.ENOSPC, "No space left on device"), hint="free some"))
    'cannot write out/report.json: No space left on device (ENOSPC); free some'
    """
    reason = err.strerror or str(err) or type(err).__name__
    code = errno.errorcode.get(err.errno or 0)
    reason = " ".join(f"{reason} ({code})".split()) if code else " ".join(reason.split())
    return EviScopeError(
        f"cannot {action} {plain(str(path), None)}: {reason}" + (f"; {hint}" if hint else "")
    )


@contextlib.contextmanager
def os_errors(path: Path | str, action: str = "write", hint: str = "") -> Iterator[None]:
    """Raise an OS error on ``path`` inside the block as :func:`os_error`'s one-line error."""
    try:
        yield
    except OSError as err:
        raise os_error(path, err, action, hint) from None
