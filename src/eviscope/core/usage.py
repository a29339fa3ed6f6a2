"""What a usage count and a usage amount are (contract §3 ``usage``), defined once for every reader:
a prediction's ``usage`` (the scorer), a server's reply and a run's journal (the runner).

A **count** (tokens, calls) is a whole number from 0 to :data:`~eviscope.core.io.MAX_COUNT`, given
as a JSON integer (``100.0`` reads as 100); an **amount** (seconds, US dollars) a finite number from
0 to :data:`MAX_AMOUNT`. Neither is ever a boolean or a string: ``true`` is not 1 and ``"100"`` is
not 100, whatever a lax parser would make of them.

>>> COUNT.validate_python(100.0), AMOUNT.validate_python(0)
(100, 0.0)
>>> count_problem(True), count_problem("100"), count_problem(-1), amount_problem(float("nan"))
('not a whole number between 0 and 1,000,000,000,000', 'not a whole number between 0 and 1,000,000,000,000', 'not a whole number between 0 and 1,000,000,000,000', 'not a finite number between 0 and 1e+12')
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, TypeAdapter, ValidationError
from pydantic_core import PydanticKnownError

from eviscope.core.io import MAX_COUNT

__all__ = ["AMOUNT", "COUNT", "MAX_AMOUNT", "MAX_COUNT", "Amount", "Count", "amount_problem", "count_problem"]

MAX_AMOUNT = 1e12
"""The largest usage amount (seconds, US dollars) of one prediction or one row."""


def _number(kind: str) -> Any:
    """A validator that lets only finite JSON numbers through (a boolean or a string is a type error)."""

    def check(value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise PydanticKnownError(kind)
        if isinstance(value, float) and not math.isfinite(value):
            raise PydanticKnownError("finite_number")
        return value

    return BeforeValidator(check)


Count = Annotated[int, _number("int_type"), Field(ge=0, le=MAX_COUNT)]
"""A usage count, as a pydantic field type."""
Amount = Annotated[float, _number("float_type"), Field(ge=0, le=MAX_AMOUNT, allow_inf_nan=False)]
"""A usage amount, as a pydantic field type."""

COUNT: TypeAdapter[int] = TypeAdapter(Count)
AMOUNT: TypeAdapter[float] = TypeAdapter(Amount)


def count_problem(value: object) -> str | None:
    """Why ``value`` is not a usage count, or None."""
    try:
        COUNT.validate_python(value)
    except ValidationError:
        return f"not a whole number between 0 and {MAX_COUNT:,}"
    return None


def amount_problem(value: object) -> str | None:
    """Why ``value`` is not a usage amount, or None."""
    try:
        AMOUNT.validate_python(value)
    except ValidationError:
        return f"not a finite number between 0 and {MAX_AMOUNT:g}"
    return None
