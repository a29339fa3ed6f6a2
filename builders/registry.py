"""Every config ``eviscope build`` knows: which builder makes it and from which source (SPEC §8)."""

from __future__ import annotations

from dataclasses import dataclass

from eviscope.builders.eviscope_configs import EVISCOPE_CONFIGS


@dataclass(frozen=True)
class ConfigEntry:
    name: str
    builder: str
    """Which build function makes it; configs of one builder are built in one pass."""
    source: str
    """The key of its source in :data:`eviscope.sources.SOURCES`."""
    releasable: bool
    """Built by a bare ``eviscope build`` and released; False for configs of non-redistributable data."""


CONFIGS: dict[str, ConfigEntry] = {
    **{name: ConfigEntry(name, "eviscope", "squad", True) for name in EVISCOPE_CONFIGS},
    "forcebench": ConfigEntry("forcebench", "forcebench", "attributionbench", True),
}


def releasable() -> list[str]:
    """The configs a bare ``eviscope build`` makes."""
    return [name for name, entry in CONFIGS.items() if entry.releasable]
