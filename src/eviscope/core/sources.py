"""Where the public sources are found (contract §8): a flag, else an environment variable, else a default.

A benchmark declares the sources its builder reads (:attr:`~eviscope.core.registry.Benchmark.sources`);
a source that is no benchmark's own is declared where it is read and named in
:data:`~eviscope.core.registry.SOURCES`. :func:`sources` gathers them all, so the core names none.

>>> pages = Source("pages", "Pages (folder)", "--pages", "EVISCOPE_PAGES", None)
>>> pages.resolve(None, environ={"EVISCOPE_PAGES": "/data/pages"})
SourceRef(name='pages', location='/data/pages', via='EVISCOPE_PAGES', is_hub=False)
>>> Source("squad", "SQuAD", "--squad", "EVISCOPE_SQUAD", "rajpurkar/squad").resolve(None, environ={}).location
'rajpurkar/squad'
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from eviscope.core.errors import EviScopeError


@dataclass(frozen=True)
class SourceRef:
    """A resolved source: a local path, or a hub dataset id when ``is_hub``."""

    name: str
    location: str
    via: str
    """What chose it: the flag, the environment variable, or ``default``."""
    is_hub: bool


@dataclass(frozen=True)
class Source:
    """One public source: how a user points the builders at it."""

    name: str
    """Its key (in :attr:`BuildRequest.sources <eviscope.core.registry.BuildRequest.sources>` and a
    config's ``source``)."""
    what: str
    flag: str
    env: str
    hub_id: str | None
    """The hub dataset used when neither flag nor variable is set; None: the user's own copy only."""

    def resolve(self, flag_value: str | None, environ: Mapping[str, str] | None = None) -> SourceRef:
        """This source from its flag value, else its environment variable, else its default."""
        environ = os.environ if environ is None else environ
        if flag_value:
            return SourceRef(self.name, flag_value, self.flag, False)
        if environ.get(self.env):
            return SourceRef(self.name, environ[self.env], self.env, False)
        if self.hub_id is None:
            raise EviScopeError(
                f"{self.what}: no copy configured; point at your own copy with "
                f"{self.flag} PATH or {self.env}=PATH (it is never downloaded or redistributed)"
            )
        return SourceRef(self.name, self.hub_id, "default", True)

    def how_to_point(self) -> str:
        """The hint every 'source not found' error ends with."""
        return f"point at a local copy with {self.flag} PATH or {self.env}=PATH"


def sources() -> dict[str, Source]:
    """Every source by name: each benchmark's own, in registry order, then those of
    :data:`~eviscope.core.registry.SOURCES`. Two different sources under one name are an error."""
    from eviscope.core.registry import SOURCES, benchmarks, load_entry

    found: dict[str, Source] = {}
    declared = [s for b in benchmarks() for s in getattr(b, "sources", ())]
    for source in [*declared, *(load_entry(entry) for entry in SOURCES)]:
        if found.setdefault(source.name, source) != source:
            raise EviScopeError(
                f"two different sources are named {source.name!r}: {found[source.name]}, {source}"
            )
    return found


def source(name: str) -> Source:
    """The source named ``name``; an unknown name is an error naming the known ones."""
    known = sources()
    if name not in known:
        raise EviScopeError(f"unknown source {name!r}; known: {', '.join(known)}")
    return known[name]


def resolve(name: str, flag_value: str | None, environ: Mapping[str, str] | None = None) -> SourceRef:
    """Find source ``name`` from its flag value, else its environment variable, else its default."""
    return source(name).resolve(flag_value, environ)


def how_to_point(name: str) -> str:
    """The hint every 'source not found' error of source ``name`` ends with."""
    return source(name).how_to_point()
