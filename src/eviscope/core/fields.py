"""Unknown fields of a prediction: a near miss of a known field is an error, any other one a warning.

A field a prediction schema does not know is read as a typo when it is a near miss of a known field
that the object lacks (``citation`` for ``citations``, ``quote``, ``actions``, ``anwser``): scoring
would otherwise read the known field as absent and give a silently wrong score, so the reader stops
with one line naming the field, where it is and the field it resembles. Any other unknown field (a raw
completion, a model name) is ignored and named in one warning per field, with how many predictions
carry it and where it is first met. The known fields are the schema's own: a model that derives from
:class:`KnownFields` checks every object it validates, nested ones included.

>>> near_miss("citation", ["id", "citations"]), near_miss("anwser", ["answer"]), near_miss("model", ["id"])
('citations', 'answer', None)
"""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Callable, Collection
from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, ValidationInfo, model_validator
from pydantic_core import ErrorDetails, PydanticCustomError

from eviscope.core.errors import EviScopeWarning, plain

__all__ = [
    "NEAR_MISS_CUTOFF",
    "KnownFields",
    "UnknownFields",
    "near_miss",
    "unknown_field_message",
    "warn_user",
]

NEAR_MISS_CUTOFF = 0.8
"""The least :class:`difflib.SequenceMatcher` ratio at which an unknown field is a near miss of a known
one: ``citation``/``citations`` 0.94, ``anwser``/``answer`` 0.83, ``qoutes``/``quotes`` 0.83, while
``notes``/``quotes`` (0.73) and ``context``/``text`` (0.73) stay apart. A field that is a known one with
an ``s`` added or taken away is a near miss whatever the ratio."""

UNKNOWN_FIELD = "unknown_field"
"""The pydantic error type of a near miss."""

Warn = Callable[[str], None]


def warn_user(message: str) -> None:
    """The default of every ``warn`` parameter: an :class:`EviScopeWarning` (the command line prints
    it as one ``warning:`` line; a Python caller sees it through :mod:`warnings`)."""
    warnings.warn(message, EviScopeWarning, stacklevel=3)


def near_miss(field: str, known: Collection[str]) -> str | None:
    """The known field that ``field`` misspells (singular for plural, or a close spelling), or None."""
    for other in (field.removesuffix("s"), field + "s"):
        if other != field and other in known:
            return other
    close = difflib.get_close_matches(field, list(known), n=1, cutoff=NEAR_MISS_CUTOFF)
    return close[0] if close else None


class UnknownFields:
    """The unknown fields met while reading predictions: for each, how many objects carried it and
    where it was first met. A reader sets :attr:`place` (``line 3``) before validating each object
    and passes this as the validation ``context``."""

    def __init__(self) -> None:
        self.place = ""
        self.met: dict[str, list[Any]] = {}

    def add(self, field: str) -> None:
        seen = self.met.setdefault(field, [0, self.place])
        seen[0] += 1

    def warn(self, source: str, known: Collection[str], warn: Warn | None = None) -> None:
        """One warning per unknown field met, in the order they were first met."""
        for field, (count, first) in self.met.items():
            times = "1 prediction" if count == 1 else f"{count:,} predictions"
            (warn or warn_user)(
                f"{source}: unknown field '{field}' ignored ({times}, first on {first}); "
                f"the known fields are {', '.join(known)}"
            )


class KnownFields(BaseModel):
    """A prediction schema whose objects are checked for unknown fields once validated (see the
    module docstring). ``field_prefix`` names a nested model's fields in a warning (``usage.``).

    Unknown fields are kept by pydantic (``extra="allow"``) only long enough to be checked here, after
    validation in pydantic's own (Rust) code, and then dropped: a dump holds the schema's fields only.
    """

    model_config = ConfigDict(extra="allow")
    field_prefix: ClassVar[str] = ""

    @model_validator(mode="after")
    def _unknown_fields(self, info: ValidationInfo) -> Self:
        extra = self.__pydantic_extra__
        if not extra:
            return self
        given = self.model_fields_set
        known = type(self).model_fields
        met = info.context if isinstance(info.context, UnknownFields) else None
        for key in extra:
            field = plain(str(key), 60)
            resembled = near_miss(str(key), known)
            if resembled is not None and resembled not in given:
                raise PydanticCustomError(
                    UNKNOWN_FIELD,
                    "unknown field '{field}' — did you mean '{known}'?",
                    {"field": field, "known": resembled},
                )
            if met is not None:
                met.add(self.field_prefix + field)
        extra.clear()
        return self


def unknown_field_message(error: ErrorDetails, raw: Any) -> str | None:
    """A near miss's one-line message with its whole path (``quotes.0.txt`` → ``quotes.0.text``), or
    None. ``error`` is pydantic's first error on ``raw``, the object validated: a near miss found after
    validation, or a required field missing (``action``) where the object holds a near miss of it
    (``actions``), which pydantic reports before any check of the object's other fields can run."""
    loc = error["loc"]
    path = "".join(f"{part}." for part in loc)
    ctx = error.get("ctx") or {}
    if error["type"] == UNKNOWN_FIELD:
        return f"unknown field '{path}{ctx['field']}' — did you mean '{path}{ctx['known']}'?"
    if error["type"] != "missing" or not loc:
        return None
    parent = raw
    for part in loc[:-1]:
        try:
            parent = parent[part]
        except (KeyError, IndexError, TypeError):
            return None
    if not isinstance(parent, dict):
        return None
    missing = str(loc[-1])
    for key in parent:
        if near_miss(str(key), (missing,)) == missing:
            path = path.removesuffix(f"{missing}.")
            return f"unknown field '{path}{plain(str(key), 60)}' — did you mean '{path}{missing}'?"
    return None
