"""Modules that live in files outside the package: the metric modules and the Space app."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["load_file"]


def load_file(path: Path, name: str) -> ModuleType:
    """The module in ``path``, imported once under ``name`` and kept in ``sys.modules`` (dataclasses
    and pickling look their module up there)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None, path
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]
