"""The layering rules of docs/architecture.md: the library never imports the command line, run-time
code never imports the builders, and no test imports a benchmark script."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "eviscope"
BUILD_TIME = {(PACKAGE / "commands" / "forcebench.py", "run_adjudicate")}
"""Build-time commands, as (file, function): ``eviscope forcebench adjudicate`` writes the settled
ForceBench config with the builders' Parquet writer; its function alone may import a builder."""


def _imports(path: Path, skip: str | None = None) -> set[str]:
    """The modules ``path`` imports (and the names it imports from them), but not those imported
    inside its top-level function ``skip``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = {
        id(inner)
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name == skip
        for inner in ast.walk(node)
    }
    names = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def _python_files(*roots: Path) -> list[Path]:
    return sorted(p for root in roots for p in root.rglob("*.py"))


def test_only_the_command_line_imports_the_commands() -> None:
    outside = [
        path.relative_to(REPO).as_posix()
        for path in _python_files(
            PACKAGE, *(REPO / folder for folder in ("builders", "metrics", "spaces", "tests", "benchmarks", "scripts"))
        )
        if PACKAGE / "commands" not in path.parents and path != PACKAGE / "cli.py"
        and any(name.startswith("eviscope.commands") for name in _imports(path))
    ]  # fmt: skip
    assert outside == []


def test_run_time_code_imports_no_builder() -> None:
    importing = [
        path.relative_to(REPO).as_posix()
        for path in _python_files(PACKAGE, REPO / "metrics", REPO / "spaces")
        if any(
            name.startswith("eviscope.builders") for name in _imports(path, skip=dict(BUILD_TIME).get(path))
        )
    ]
    assert importing == []


def _loads_a_benchmark_file(path: Path) -> bool:
    """Imports a module from a file (``load_file``, ``spec_from_file_location``) and names benchmarks/."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    loads = any(
        isinstance(node, ast.Call)
        and (getattr(node.func, "id", None) or getattr(node.func, "attr", None))
        in ("load_file", "spec_from_file_location")
        for node in ast.walk(tree)
    )
    names_benchmarks = any(
        isinstance(node, ast.Constant) and isinstance(node.value, str) and "benchmarks" in node.value
        for node in ast.walk(tree)
    )
    return loads and names_benchmarks


def test_no_test_imports_a_benchmark() -> None:
    benchmarks = {path.stem for path in (REPO / "benchmarks").glob("*.py")}
    harnesses = {path.stem for path in (REPO / "tests").glob("*.py")}
    offenders = [
        path.name
        for path in _python_files(REPO / "tests")
        if {name.split(".")[0] for name in _imports(path)} & (benchmarks - harnesses)
        or _loads_a_benchmark_file(path)
    ]
    assert offenders == []


def _names_compared(source: str, names: set[str]) -> list[tuple[int, str]]:
    """(line, name) of each string constant in ``names`` (stripped of ``/``) that ``source``
    compares something with: ``==``/``!=``/``in`` (also against a tuple of them), a ``match`` case,
    or ``str.startswith``/``endswith``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif isinstance(node, ast.MatchValue):
            operands = [node.value]
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) in ("startswith", "endswith"):
            operands = list(node.args)
        else:
            continue
        for operand in operands:
            elements = operand.elts if isinstance(operand, (ast.Tuple, ast.List, ast.Set)) else [operand]
            found += [
                (node.lineno, e.value)
                for e in elements
                if isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value.strip("/") in names
            ]
    return found


def test_nothing_outside_a_benchmark_asks_which_benchmark_it_is() -> None:
    """Only a benchmark's own modules compare a string with a benchmark's or a config's name; the
    rest of the suite asks the registry. (``builders/`` is the benchmarks' build code, not checked.)"""
    from eviscope.core.registry import benchmarks

    names = {b.name for b in benchmarks()} | {c.name for b in benchmarks() for c in b.configs}
    own = {PACKAGE / "forcebench", PACKAGE / "eviscope_benchmark.py"}
    asking = [
        f"{path.relative_to(REPO).as_posix()}:{line} {name!r}"
        for path in _python_files(PACKAGE, REPO / "metrics", REPO / "spaces")
        if not own & {path, *path.parents}
        for line, name in _names_compared(path.read_text(encoding="utf-8"), names)
    ]
    assert asking == []


def test_the_benchmark_check_sees_each_kind_of_comparison() -> None:
    source = (
        'if config == "forcebench" or kind in ("x", "eviscope-v1.1") or repo.endswith("/forcebench"):\n'
        "    pass\n"
        'match name:\n    case "forcebench":\n        pass\n'
        'label = "forcebench"  # a name, not a comparison\n'
    )
    hits = _names_compared(source, {"forcebench", "eviscope-v1.1"})
    assert sorted(hits) == [(1, "/forcebench"), (1, "eviscope-v1.1"), (1, "forcebench"), (4, "forcebench")]


def test_the_runner_imports_no_benchmark() -> None:
    runner = PACKAGE / "runner"
    importing = [
        path.relative_to(REPO).as_posix()
        for path in _python_files(runner)
        if any(
            name.startswith(("eviscope.suites.forcebench", "eviscope.suites.eviscope.benchmark"))
            for name in _imports(path)
        )
    ]
    assert importing == []


def test_the_space_takes_its_browse_filters_from_the_registry() -> None:
    """The Browse tab's dropdowns are what each benchmark declares (``browse_filters``): no Space
    module reads ForceBench's vocabulary, and the tabs' module reads neither benchmark's."""
    space = PACKAGE / "space"
    importing = [
        f"{path.relative_to(REPO).as_posix()} imports {name}"
        for path in _python_files(space)
        for name in sorted(_imports(path))
        if name.startswith("eviscope.suites.forcebench.rows")
        or (path == space / "ui.py" and name.startswith("eviscope.suites.eviscope.rows"))
    ]
    assert importing == []
