"""Where the public sources are found (contract §8): a flag, else an environment variable, else a default.

>>> resolve("squad", None, environ={"EVISCOPE_SQUAD": "/data/dev-v1.1.json"})
SourceRef(name='squad', location='/data/dev-v1.1.json', via='EVISCOPE_SQUAD', is_hub=False)
>>> resolve("squad", None, environ={}).location
'rajpurkar/squad'
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from eviscope.core.errors import EviScopeError


@dataclass(frozen=True)
class Source:
    """One public source: how a user points the builders at it."""

    name: str
    what: str
    flag: str
    env: str
    hub_id: str | None
    """The hub dataset used when neither flag nor variable is set; None: the user's own copy only."""


SOURCES: dict[str, Source] = {
    s.name: s
    for s in (
        Source("squad", "SQuAD v1.1 dev (JSON)", "--squad", "EVISCOPE_SQUAD", "rajpurkar/squad"),
        Source(
            "attributionbench",
            "AttributionBench (folder of JSONL)",
            "--attributionbench",
            "EVISCOPE_ATTRIBUTIONBENCH",
            "osunlp/AttributionBench",
        ),
        Source(
            "confquestions",
            "ConfQuestions (folder)",
            "--confquestions",
            "EVISCOPE_CONFQUESTIONS",
            None,
        ),
    )
}


@dataclass(frozen=True)
class SourceRef:
    """A resolved source: a local path, or a hub dataset id when ``is_hub``."""

    name: str
    location: str
    via: str
    """What chose it: the flag, the environment variable, or ``default``."""
    is_hub: bool


def resolve(name: str, flag_value: str | None, environ: Mapping[str, str] | None = None) -> SourceRef:
    """Find source ``name`` from its flag value, else its environment variable, else its default."""
    source = SOURCES[name]
    environ = os.environ if environ is None else environ
    if flag_value:
        return SourceRef(name, flag_value, source.flag, False)
    if environ.get(source.env):
        return SourceRef(name, environ[source.env], source.env, False)
    if source.hub_id is None:
        raise EviScopeError(
            f"{source.what}: no copy configured; point at your own copy with "
            f"{source.flag} PATH or {source.env}=PATH (it is never downloaded or redistributed)"
        )
    return SourceRef(name, source.hub_id, "default", True)


def how_to_point(name: str) -> str:
    """The hint every 'source not found' error ends with."""
    source = SOURCES[name]
    return f"point at a local copy with {source.flag} PATH or {source.env}=PATH"
