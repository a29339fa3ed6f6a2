"""The toy's door into the harnesses: the request of a row, the item a reply gives and the metric
over a run's items, all from :mod:`eviscope.suites.toy.task` and :mod:`eviscope.suites.toy.scoring`;
``claims`` and ``predictions`` turn a harness log back into a predictions file."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from eviscope.suites.toy.scoring import accuracy
from eviscope.suites.toy.task import parse, question

ROW_FIELDS = ("id", "a", "b")
"""The fields of a row a harness request carries, so the metric can be computed."""


def request(row: Mapping[str, Any]) -> dict[str, Any]:
    """A harness document of a row: its fields and the prompt."""
    return {**{name: row[name] for name in ROW_FIELDS}, "prompt": question(row)}


def item(doc: Mapping[str, Any], reply: str) -> dict[str, Any]:
    """What a harness keeps per request: the row's fields and the parsed sum."""
    return {**{name: doc[name] for name in ROW_FIELDS}, "sum": parse(reply)}


def metric(name: str, items: Sequence[Mapping[str, Any]]) -> float:
    """One metric of the run's items (the toy has one: ``accuracy``)."""
    value = accuracy(items, items)[name]
    return math.nan if value is None else value


def claims(sample: Mapping[str, Any]) -> bool:
    """Whether a harness sample is a toy request."""
    return set(sample) >= {"a", "b", "prompt"}


def predictions(samples: Iterable[tuple[Mapping[str, Any], str]], evaluator: str | None = None) -> list[dict]:
    """The predictions of (request, reply) pairs of a harness log."""
    return [{"id": doc["id"], "sum": item(doc, reply)["sum"]} for doc, reply in samples]
