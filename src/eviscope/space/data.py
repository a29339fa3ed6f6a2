"""Where the Space's rows come from: a built dataset folder, or the released dataset repo on the hub."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from eviscope.core.errors import EviScopeError, first_line
from eviscope.core.layout import SPLIT, split_path
from eviscope.core.registry import DEFAULT_CONFIG, configs, for_config

__all__ = ["RowSource"]


def preferred_order() -> list[str]:
    """Configs in the order the Space offers them: the default config, then the registry's order
    (others, unknown to the registry, follow alphabetically)."""
    return [DEFAULT_CONFIG, *(name for name in configs() if name != DEFAULT_CONFIG)]


class RowSource:
    """The rows of every config, loaded once and kept in memory.

    ``location`` is a folder ``eviscope build`` wrote (``dataset/``), read and verified by each
    benchmark's loader (:mod:`eviscope.core.datafiles`), or else a hub dataset repo id
    (``owner/name``) read with ``datasets.load_dataset``. Whatever is wrong with the data (a
    modified, truncated or unreadable file, a broken card, a missing column, a duplicate id) is one
    :class:`EviScopeError` line naming the file or repo, so the Space does not start on it.
    """

    def __init__(self, location: str | Path) -> None:
        self.location = str(location)
        self._local = Path(location).is_dir()
        self._rows: dict[str, list[dict[str, Any]]] = {}
        self._lock = threading.Lock()

    def configs(self) -> list[str]:
        """The configs this source holds, EviScope v1.1 first."""
        if self._local:
            data = Path(self.location) / "data"
            names = (
                [p.name for p in data.iterdir() if split_path(Path(self.location), p.name).is_file()]
                if data.is_dir()
                else []
            )
        else:
            import datasets

            try:
                names = datasets.get_dataset_config_names(self.location)
            except Exception as err:
                raise EviScopeError(f"{self.location}: cannot list its configs: {first_line(err)}") from None
        if not names:
            raise EviScopeError(
                f"{self.location}: no built configs; run `eviscope build` or pass --dataset DIR_OR_REPO"
            )
        rank = {name: i for i, name in enumerate(preferred_order())}
        return sorted(names, key=lambda name: (rank.get(name, len(rank)), name))

    def rows(self, config: str) -> list[dict[str, Any]]:
        """The rows of ``config`` (contract §2 or §5), as plain dicts; read once, then cached."""
        with self._lock:
            if config not in self._rows:
                self._rows[config] = self._read(config)
            return self._rows[config]

    def _read(self, config: str) -> list[dict[str, Any]]:
        if config not in self.configs():
            raise EviScopeError(
                f"{self.location}: no config {config!r}; choose one of {', '.join(self.configs())}"
            )
        if not self._local:
            import datasets

            try:
                return datasets.load_dataset(self.location, config, split=SPLIT).to_list()
            except Exception as err:
                raise EviScopeError(
                    f"{self.location}: cannot load config {config}: {first_line(err)}"
                ) from None
        return for_config(config).load_rows(config, Path(self.location))
