"""Backends behind one protocol (:class:`~eviscope.runner.backends.base.Backend`), and their registry.

A backend is one module here holding the backend class and its ``Settings`` (a
:class:`~eviscope.runner.backends.base.BackendSettings` whose fields are the backend's options), plus
one line in :data:`BACKENDS`. Each backend module imports its engine lazily, inside the backend:
importing this package pulls in neither vLLM, torch nor aiohttp.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from eviscope.core.errors import EviScopeError
from eviscope.runner.backends.base import BackendSettings

BACKENDS: dict[str, str] = {
    "vllm": "eviscope.runner.backends.vllm_backend",
    "openai": "eviscope.runner.backends.openai_backend",
    "transformers": "eviscope.runner.backends.transformers_backend",
}
"""Backend name → the module that holds its ``Settings`` and backend class."""


def settings_class(name: str) -> type[BackendSettings]:
    """The ``Settings`` class of backend ``name``; an unknown name is an error naming the known ones."""
    if name not in BACKENDS:
        raise EviScopeError(f"unknown backend {name!r}; known: {', '.join(BACKENDS)}")
    settings = importlib.import_module(BACKENDS[name]).Settings
    if getattr(settings, "name", None) != name:
        raise EviScopeError(f"{BACKENDS[name]}.Settings is not the settings of backend {name!r}")
    return settings


def backend_settings(name: str, options: Mapping[str, Any]) -> BackendSettings:
    """Settings of backend ``name`` from named options (None keeps the backend's default)."""
    return settings_class(name).from_options(dict(options))
