"""Every benchmark's tasks in lm-evaluation-harness and inspect-ai (``pip install 'eviscope[harness]'``).

Each benchmark ships its own (:attr:`eviscope.core.registry.Benchmark.harness`): lm-eval task YAMLs
with the utilities module they load by path, an inspect-ai task file, and the glue that reads a
harness log back (:mod:`eviscope.harness.samples`). ``eviscope tasks path`` prints one folder that
holds every benchmark's lm-eval tasks (give it to ``--include_path``); ``eviscope tasks path
--harness inspect`` prints each benchmark's inspect-ai task file (lighteval 0.13 could not be used:
see docs/harnesses.md). Each request carries its JSON schema, sent to the model as
:mod:`eviscope.harness.lm_eval_schema` (lm-eval) and :mod:`eviscope.harness.inspect_generate`
(inspect-ai) say.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from importlib import resources
from importlib.util import find_spec
from pathlib import Path

from eviscope.core.layout import cache_root
from eviscope.core.registry import harnessed

HARNESSES: tuple[str, ...] = ("lm-eval", "inspect")


def _lm_eval_folder(entry: str) -> Path:
    package, _, folder = entry.partition(":")
    return Path(str(resources.files(package).joinpath(folder)))


def lm_eval_tasks() -> Path:
    """One folder holding every benchmark's lm-eval task folder (a subfolder each, named after it).

    lm-eval takes one ``--include_path`` and walks it, so the benchmarks' folders are copied into a
    folder named by their content's hash under ``$EVISCOPE_CACHE`` (else ``~/.cache/eviscope``):
    made once per content, written to a temporary name and renamed, so concurrent runs agree."""
    sources = {bench.name: _lm_eval_folder(h.lm_eval_tasks) for bench, h in harnessed()}
    digest = hashlib.sha256()
    for name, folder in sources.items():
        for path in sorted(p for p in folder.iterdir() if p.is_file() and p.suffix != ".pyc"):
            digest.update(f"{name}/{path.name}\0".encode() + path.read_bytes())
    target = cache_root() / f"lm_eval_tasks-{digest.hexdigest()[:16]}"
    if not target.is_dir():
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".lm_eval_tasks-", dir=target.parent))
        for name, folder in sources.items():
            shutil.copytree(folder, staging / name, ignore=shutil.ignore_patterns("__pycache__"))
        try:
            staging.rename(target)
        except OSError:  # another process made it first
            shutil.rmtree(staging, ignore_errors=True)
    return target


def inspect_task_files() -> list[Path]:
    """Each benchmark's inspect-ai task file, in registry order (``inspect eval FILE@TASK``)."""
    files = []
    for _, harness in harnessed():
        spec = find_spec(harness.inspect_tasks)  # its file, without importing inspect-ai
        if spec is None or spec.origin is None:
            raise ModuleNotFoundError(harness.inspect_tasks)
        files.append(Path(spec.origin))
    return files


def tasks_path(harness: str = "lm-eval") -> Path:
    """The lm-eval task folder of every benchmark, or the inspect-ai task file of the first one.

    For inspect-ai, :func:`inspect_task_files` gives every benchmark's file."""
    if harness not in HARNESSES:
        raise ValueError(f"unknown harness {harness!r}; known: {', '.join(HARNESSES)}")
    return lm_eval_tasks() if harness == "lm-eval" else inspect_task_files()[0]
