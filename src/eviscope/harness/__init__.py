"""EviScope and ForceBench as tasks of lm-evaluation-harness and lighteval (``pip install 'eviscope[harness]'``).

``eviscope tasks path`` prints the folder of lm-eval task YAMLs to give ``--include_path``;
``eviscope tasks path --harness lighteval`` prints the custom-task file for ``--custom-tasks``. The
tasks share the suite's prompt, parser and metrics through :mod:`eviscope.harness.suite`.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

HARNESSES: tuple[str, ...] = ("lm-eval", "lighteval")


def tasks_path(harness: str = "lm-eval") -> Path:
    """The lm-eval task folder, or the lighteval custom-task file, shipped with the package."""
    if harness not in HARNESSES:
        raise ValueError(f"unknown harness {harness!r}; known: {', '.join(HARNESSES)}")
    name = "lm_eval_tasks" if harness == "lm-eval" else "lighteval_tasks.py"
    return Path(str(resources.files(__package__).joinpath(name)))
