"""The range of a numeric option, checked where it is parsed: one definition per kind of number, so
that every command and every backend refuses the same values the same way.

A :class:`Range` is an argparse ``type=`` (a value out of range is argparse's one line naming the
option) and checks a value from elsewhere (a manifest's backend settings) with :meth:`Range.problem`.

>>> AT_LEAST_ONE("4"), FINITE_POSITIVE("0.5"), FINITE_NON_NEGATIVE("0")
(4, 0.5, 0.0)
>>> AT_LEAST_ONE("0")
Traceback (most recent call last):
  ...
argparse.ArgumentTypeError: must be a whole number, at least 1; got '0'
>>> FINITE_POSITIVE("inf")
Traceback (most recent call last):
  ...
argparse.ArgumentTypeError: must be a finite number, greater than 0; got 'inf'
>>> FINITE_NON_NEGATIVE.problem(float("nan")), NON_NEGATIVE.problem(True)
('must be a finite number, at least 0; got nan', 'must be a whole number, at least 0; got True')
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

from eviscope.core.errors import plain

__all__ = [
    "AT_LEAST_ONE",
    "FINITE_NON_NEGATIVE",
    "FINITE_POSITIVE",
    "NON_NEGATIVE",
    "SEED",
    "Range",
]


@dataclass(frozen=True)
class Range:
    """Whole (``whole=True``) or finite numbers from ``low`` (excluded when ``above``) up to ``high``."""

    whole: bool
    low: float | None = None
    high: float | None = None
    above: bool = False

    def describe(self) -> str:
        """``a whole number, at least 1``, ``a finite number, greater than 0``…"""
        kind = "a whole number" if self.whole else "a finite number"
        if self.low is not None and self.high is not None:
            return f"{kind} from {self.low:,} to {self.high:,}"
        if self.low is not None:
            return f"{kind}, {'greater than' if self.above else 'at least'} {self.low:g}"
        return kind

    def problem(self, value: object) -> str | None:
        """What makes ``value`` (already a number, or not) out of this range, or None."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            ok = False
        elif self.whole:
            ok = isinstance(value, int)
        else:
            ok = math.isfinite(value)
        if ok and self.low is not None:
            ok = value > self.low if self.above else value >= self.low  # type: ignore[operator]
        if ok and self.high is not None:
            ok = value <= self.high  # type: ignore[operator]
        return None if ok else f"must be {self.describe()}; got {plain(repr(value), 40)}"

    def __call__(self, text: str) -> int | float:
        """The number ``text`` says (argparse's ``type=``); out of range, an ``ArgumentTypeError``."""
        try:
            value: int | float = int(text) if self.whole else float(text)
        except ValueError:
            value = math.nan
        if self.problem(value) is not None:
            raise argparse.ArgumentTypeError(f"must be {self.describe()}; got {plain(repr(text), 40)}")
        return value


AT_LEAST_ONE = Range(whole=True, low=1)
"""A count of things that must happen at least once: requests in flight, rows, workers, tokens."""
NON_NEGATIVE = Range(whole=True, low=0)
"""A count that may be zero: retries, a batch size whose 0 means "all"."""
FINITE_POSITIVE = Range(whole=False, low=0, above=True)
"""Seconds to wait, a temperature, a radius: finite and above zero."""
FINITE_NON_NEGATIVE = Range(whole=False, low=0)
"""A price, a backoff, a share of GPUs: finite and zero or more."""
SEED = Range(whole=True, low=0, high=2**32 - 1)
"""A random seed every engine takes (numpy's are below 2³²)."""
