"""The one reader and writer of JSON that someone else wrote: a server's body, a model's reply, a
journal line, a manifest.

:func:`loads` reads one whole JSON text and :func:`json_objects` finds the JSON objects inside a
model's reply (prose, code fences); both are

- **depth-limited**: a value nested deeper than :data:`MAX_DEPTH` levels is an
  :class:`UntrustedJSONError` (:class:`TooDeep`), never a ``RecursionError``;
- **linear** in the text's length: :func:`json_objects` decodes only at a ``{`` that can start an
  object (``{`` then optional white space then ``"`` or ``}``), and at most :data:`MAX_TRIES` of
  them, so 8 MiB of ``{`` costs one regular-expression scan, not a decode per brace;
- **Unicode-safe**: a lone surrogate (an escape such as ``\\ud800`` with no partner, or such a
  character already in the text) is read as its escaped text, the six characters ``\\ud800``; the
  value is kept, and it can be written as UTF-8 and read back by any JSON reader.

:func:`dumps` is the one writer of run folders' JSON (journal lines, manifests, predictions): UTF-8
text, a lone surrogate in any string written as that same escaped text, so no reply a server sends
can make a write fail.

>>> loads('{"answer": "x\\\\ud800", "ok": "\\\\ud83d\\\\ude00"}')
{'answer': 'x\\\\ud800', 'ok': '😀'}
>>> loads("[" * 100 + "]" * 100)
Traceback (most recent call last):
  ...
eviscope.core.untrusted_json.TooDeep: nested deeper than 64 levels
>>> [obj for obj in json_objects('Sure: {"action": "abstain"} and {not JSON}')]
[{'action': 'abstain'}]
>>> dumps({"answer": "x\\ud800"})
'{"answer": "x\\\\\\\\ud800"}'
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

__all__ = [
    "MAX_DEPTH",
    "MAX_TRIES",
    "TooDeep",
    "UntrustedJSONError",
    "check_depth",
    "dumps",
    "json_objects",
    "loads",
    "scrub_surrogates",
]

MAX_DEPTH = 64
"""The deepest nesting of arrays and objects read (a run record or a manifest nests 4 levels)."""

MAX_TRIES = 64
"""The most places of a reply :func:`json_objects` tries to decode an object at (a reply holds one
object, perhaps after an example or two)."""


class UntrustedJSONError(ValueError):
    """The text is not one JSON value this reader takes; the message says why, in one line."""


class TooDeep(UntrustedJSONError):
    """The value nests deeper than :data:`MAX_DEPTH` levels."""


_STRICT = json.JSONDecoder()
_TOLERANT = json.JSONDecoder(strict=False)  # control characters inside strings are tolerated
_SURROGATE_HINT = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")
# a backslash escape, read left to right (so ``\\\\ud800`` is an escaped backslash, not an escape):
# a valid surrogate pair, a lone surrogate escape, any other escape; or a raw surrogate character
_ESCAPES = re.compile(
    r"\\(?:u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|(u[dD][89a-fA-F][0-9a-fA-F]{2})|[\s\S])"
    r"|([\ud800-\udfff])"
)
_OBJECT_START = re.compile(r'\{[ \t\r\n]*["}]')
_RAW_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _escape_surrogate(match: re.Match[str]) -> str:
    if match.group(1):  # a lone surrogate escape: an escaped backslash before it
        return "\\" + match.group(0)
    if match.group(2):  # a raw surrogate character: its escape, backslash escaped
        return f"\\\\u{ord(match.group(2)):04x}"
    return match.group(0)


def scrub_surrogates(text: str) -> str:
    """``text`` (JSON, or prose around JSON) with every lone surrogate, escaped or raw, turned into
    the escaped text ``\\\\udXXX``, which decodes to the six characters ``\\udXXX``; a valid
    surrogate pair escape is kept. Linear; the text itself when it holds none."""
    if not _SURROGATE_HINT.search(text):
        return text
    return _ESCAPES.sub(_escape_surrogate, text)


def _text(data: str | bytes | bytearray) -> str:
    if isinstance(data, str):
        return data
    try:
        return bytes(data).decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise UntrustedJSONError(
            f"not UTF-8 text (byte 0x{data[err.start]:02x} at offset {err.start})"
        ) from None


def check_depth(value: Any, max_depth: int = MAX_DEPTH) -> Any:
    """``value`` itself when it nests at most ``max_depth`` arrays and objects, else :class:`TooDeep`
    (checked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > max_depth:
            raise TooDeep(f"nested deeper than {max_depth} levels")
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return value


def _decode(decoder: json.JSONDecoder, text: str, start: int, max_depth: int) -> tuple[Any, int]:
    try:
        value, end = decoder.raw_decode(text, start)
    except RecursionError:
        raise TooDeep(f"nested deeper than {max_depth} levels") from None
    except json.JSONDecodeError as err:
        raise UntrustedJSONError(f"{err.msg} (column {err.colno})") from None
    except ValueError as err:  # an integer of more digits than Python converts
        raise UntrustedJSONError(str(err).split(";")[0]) from None
    return check_depth(value, max_depth), end


def loads(data: str | bytes | bytearray, *, strict: bool = True, max_depth: int = MAX_DEPTH) -> Any:
    """The one JSON value ``data`` holds (bytes are UTF-8, a leading byte order mark dropped), read as
    the module docstring says; anything else is an :class:`UntrustedJSONError` saying why in one line.
    ``strict=False`` tolerates control characters inside strings (a model's reply)."""
    text = scrub_surrogates(_text(data))
    decoder = _STRICT if strict else _TOLERANT
    start = len(text) - len(text.lstrip(" \t\r\n"))
    if start == len(text):
        raise UntrustedJSONError("no JSON value (the text is empty)")
    value, end = _decode(decoder, text, start, max_depth)
    if text[end:].strip(" \t\r\n"):
        raise UntrustedJSONError(f"extra data after the JSON value (column {end + 1})")
    return value


def json_objects(
    text: str, *, max_depth: int = MAX_DEPTH, max_tries: int = MAX_TRIES
) -> Iterator[dict[str, Any]]:
    """The JSON objects of a model's reply, in order: each one that starts at a ``{`` of ``text``
    outside an object already read (so outermost first), control characters inside strings
    tolerated. Decodes only where an object can start, at most ``max_tries`` times; an object nested
    deeper than ``max_depth`` is skipped like any text that is not JSON."""
    text = scrub_surrogates(text)
    position = 0
    for _ in range(max_tries):
        found = _OBJECT_START.search(text, position)
        if found is None:
            return
        start = found.start()
        try:
            obj, end = _decode(_TOLERANT, text, start, max_depth)
        except UntrustedJSONError:
            position = start + 1
            continue
        yield obj
        position = end


def dumps(value: Any, *, indent: int | None = None, sort_keys: bool = False) -> str:
    """``value`` as JSON text that is always valid UTF-8 (non-ASCII kept as is; a lone surrogate in
    any string written as its escaped text, ``\\\\udXXX``): the one writer of run folders' JSON."""
    text = json.dumps(value, ensure_ascii=False, indent=indent, sort_keys=sort_keys, default=str)
    return (
        _RAW_SURROGATE.sub(lambda m: f"\\\\u{ord(m.group()):04x}", text)
        if _RAW_SURROGATE.search(text)
        else text
    )
