"""Import ``eviscope`` from a checkout as its ``pyproject.toml`` installs it, and take the toy
benchmark through every door there (``python tests/toy_checkout.py CHECKOUT WORK SERVER_URL``), or
run the checkout's own tests on it (``python tests/toy_checkout.py --pytest CHECKOUT PYTEST_ARGS…``).

:func:`install` puts a finder first on ``sys.meta_path`` that maps each package ``pyproject.toml``
lists (``[tool.setuptools] packages``) to its folder (``package-dir``), and refuses an ``eviscope``
package it does not list, as an installed wheel would not hold it. ``tests/test_toy_benchmark.py``
runs this file in a copy of the repository to which it added the toy's files and its three edits.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import json
import sys
import tomllib
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType


def install(root: Path) -> None:
    """Import ``eviscope`` (and ``eviscope.builders``) from ``root`` as its pyproject declares."""
    setup = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    dirs: dict[str, str] = setup["package-dir"]
    packages = set(setup["packages"])

    def folder(package: str) -> Path:
        base = max((p for p in dirs if package == p or package.startswith(p + ".")), key=len)
        return root / dirs[base] / package[len(base) :].lstrip(".").replace(".", "/")

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name: str, path: object, target: ModuleType | None = None) -> ModuleSpec | None:
            if name != "eviscope" and not name.startswith("eviscope."):
                return None
            if name in packages:
                init = folder(name) / "__init__.py"
                return importlib.util.spec_from_file_location(
                    name, init, submodule_search_locations=[str(init.parent)]
                )
            parent, _, leaf = name.rpartition(".")
            module = folder(parent) / f"{leaf}.py" if parent in packages else None
            if module is not None and module.is_file():
                return importlib.util.spec_from_file_location(name, module)
            raise ModuleNotFoundError(f"{name}: in no package that pyproject.toml lists", name=name)

    assert "eviscope" not in sys.modules, "eviscope was imported before the checkout's finder"
    sys.meta_path.insert(0, Finder())


def main(root: Path, work: Path, server: str) -> dict[str, object]:
    """Build, run (against ``server``), score, the harness tasks, the metric module and the Space of
    the toy in checkout ``root``, its source found through ``$EVISCOPE_TOY_PAIRS``; what each gave
    (also written to ``work/seen.json``)."""
    install(root)
    import eviscope
    from eviscope.cli import main as cli

    assert Path(eviscope.__file__).is_relative_to(root), eviscope.__file__
    seen: dict[str, object] = {}
    dataset, run = work / "dataset", work / "runs" / "adder"
    dataset.mkdir(parents=True)
    (dataset / "README.md").write_text("---\n---\n", encoding="utf-8")
    assert cli(["build", "toy-v1", "--out", str(dataset)]) == 0
    argv = ["run", "--config", "toy-v1", "--dataset", str(dataset), "--backend", "openai",
            "--model", "adder", "--base-url", server, "--out", str(run)]  # fmt: skip
    assert cli(argv) == 0
    assert (
        cli(["score", str(run / "predictions.jsonl"), "--config", "toy-v1", "--dataset", str(dataset)]) == 0
    )
    seen["score"] = json.loads((run / "report" / "results.json").read_text())

    from eviscope.harness import inspect_task_files, lm_eval_tasks

    seen["lm_eval"] = sorted(p.name for p in (lm_eval_tasks() / "toy").iterdir())
    seen["inspect"] = [str(p.relative_to(root)) for p in inspect_task_files()]

    import evaluate

    from eviscope.core.registry import benchmark

    example = benchmark("toy").metric_example(benchmark("toy").load_rows("toy-v1", dataset))
    seen["metric"] = evaluate.load(str(root / "metrics" / "toy")).compute(**example)

    if importlib.util.find_spec("gradio") is not None:
        from eviscope.space.annotation import AnnotationStore
        from eviscope.space.data import RowSource
        from eviscope.space.leaderboard import LocalResultStore
        from eviscope.space.ui import build_demo

        store = LocalResultStore(work / "results")
        demo = build_demo(RowSource(dataset), store, AnnotationStore(work / "results" / "annotations"))
        api = {fn.api_name: fn.fn for fn in demo.fns.values()}
        seen["space"] = api["show"]("toy-v1", "t2")
    return seen


if __name__ == "__main__" and sys.argv[1] == "--pytest":
    install(Path(sys.argv[2]))
    import pytest

    sys.exit(pytest.main(sys.argv[3:]))
elif __name__ == "__main__":
    work = Path(sys.argv[2])
    seen = main(Path(sys.argv[1]), work, sys.argv[3])
    (work / "seen.json").write_text(json.dumps(seen), encoding="utf-8")
