"""The layering rules of docs/architecture.md: the library never imports the command line, run-time
code never imports the builders, and no test imports a benchmark script."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "eviscope"
BUILD_TIME = {PACKAGE / "commands" / "forcebench.py"}
"""Build-time commands: ``eviscope forcebench adjudicate`` writes a settled config with the builders."""


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
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
        for path in _python_files(PACKAGE, REPO / "builders", REPO / "metrics", REPO / "spaces")
        if PACKAGE / "commands" not in path.parents and path != PACKAGE / "cli.py"
        and any(name.startswith("eviscope.commands") for name in _imports(path))
    ]  # fmt: skip
    assert outside == []


def test_run_time_code_imports_no_builder() -> None:
    importing = [
        path.relative_to(REPO).as_posix()
        for path in _python_files(PACKAGE, REPO / "metrics", REPO / "spaces")
        if path not in BUILD_TIME and any(name.startswith("eviscope.builders") for name in _imports(path))
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


def test_the_runner_imports_no_benchmark() -> None:
    runner = PACKAGE / "runner"
    importing = [
        path.relative_to(REPO).as_posix()
        for path in _python_files(runner)
        if any(
            name.startswith(("eviscope.forcebench", "eviscope.eviscope_benchmark")) for name in _imports(path)
        )
    ]
    assert importing == []
