"""EviScope and ForceBench as tasks of lm-evaluation-harness and inspect-ai (``pip install 'eviscope[harness]'``).

``eviscope tasks path`` prints the folder of lm-eval task YAMLs to give ``--include_path``;
``eviscope tasks path --harness inspect`` prints the inspect-ai task file (lighteval 0.13 could not be
used: see the README). The tasks share the suite's prompt, parser and metrics through :mod:`eviscope.harness.suite`.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

HARNESSES: tuple[str, ...] = ("lm-eval", "inspect")


def tasks_path(harness: str = "lm-eval") -> Path:
    """The lm-eval task folder, or the inspect-ai task file, shipped with the package."""
    if harness not in HARNESSES:
        raise ValueError(f"unknown harness {harness!r}; known: {', '.join(HARNESSES)}")
    name = "lm_eval_tasks" if harness == "lm-eval" else "inspect_tasks.py"
    return Path(str(resources.files(__package__).joinpath(name)))
