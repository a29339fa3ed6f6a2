"""The layering rules of docs/architecture.md: the library never imports the command line, run-time
code never imports the builders, and no test imports a benchmark script."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "eviscope"
SUITES = PACKAGE / "suites"
"""One package per benchmark; every benchmark's package is treated alike."""
BUILD_TIME = {(PACKAGE / "suites" / "forcebench" / "commands" / "forcebench.py", "run_adjudicate")}
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
        and not (SUITES in path.parents and path.parent.name == "commands")
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


def _names_used(source: str, names: set[str]) -> list[tuple[int, str]]:
    """(line, name) of each string constant in ``names`` (stripped of ``/``) that ``source`` holds
    outside its docstrings: compared (``==``, ``in``, a ``match`` case, ``startswith``), assigned,
    passed or returned alike."""
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return sorted(
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.strip("/") in names
        and id(node) not in docstrings
    )


def _outside_the_benchmarks() -> list[Path]:
    """The suite's modules that are no benchmark's own: everything but ``src/eviscope/suites/``, the
    registry's one table, each benchmark's metric module (``metrics/<its folder>/``: its face on the
    Hub), and ``builders/`` (the benchmarks' build code, each in its own folder)."""
    return [
        path
        for path in _python_files(PACKAGE, REPO / "spaces")
        if SUITES not in path.parents and path != PACKAGE / "core" / "registry.py"
    ]


def _names() -> set[str]:
    """Every benchmark's and config's name, less the package's own name (the EviScope benchmark shares
    it, so a string scan cannot tell the two apart)."""
    from eviscope import DISTRIBUTION
    from eviscope.core.registry import benchmarks

    names = {b.name for b in benchmarks()} | {c.name for b in benchmarks() for c in b.configs}
    return names - {DISTRIBUTION}


def test_nothing_outside_a_benchmark_names_a_benchmark_or_a_config() -> None:
    """Only a benchmark's own package names a benchmark or a config (compared, assigned or passed);
    the rest of the suite asks the registry (``DEFAULT_CONFIG``, ``for_config``, ``benchmarks()``)."""
    names = _names()
    naming = {
        path.relative_to(REPO).as_posix(): offences
        for path in _outside_the_benchmarks()
        if (
            offences := [
                f"line {line} {name!r}" for line, name in _names_used(path.read_text("utf-8"), names)
            ]
        )
    }
    assert naming == {}


def test_the_benchmark_check_sees_names_compared_assigned_and_passed() -> None:
    source = (
        '"""Scores forcebench."""\n'
        'if config == "forcebench" or kind in ("x", "eviscope-v1.1") or repo.endswith("/forcebench"):\n'
        "    pass\n"
        'match name:\n    case "forcebench":\n        pass\n'
        'config = "eviscope-v1.1"\n'
        'load(config="forcebench")\n'
        'label = "forcebench results"  # a longer text, not the name\n'
    )
    hits = _names_used(source, {"forcebench", "eviscope-v1.1"})
    assert hits == [
        (2, "/forcebench"),
        (2, "eviscope-v1.1"),
        (2, "forcebench"),
        (5, "forcebench"),
        (7, "eviscope-v1.1"),
        (8, "forcebench"),
    ]


def _imports_a_benchmark(path: Path) -> list[str]:
    return sorted(name for name in _imports(path) if name.startswith("eviscope.suites."))


def test_no_module_outside_a_benchmark_imports_one() -> None:
    """Only a benchmark's own package imports it (at module level or inside a function); the runner,
    the Space, the release, the harness and the command line ask the registry."""
    importing = {
        path.relative_to(REPO).as_posix(): names
        for path in _outside_the_benchmarks()
        if (names := _imports_a_benchmark(path))
    }
    assert importing == {}


def test_a_metric_module_imports_only_its_own_benchmark() -> None:
    from eviscope.core.registry import benchmarks

    own = {b.metric.folder: f"eviscope.suites.{b.name}." for b in benchmarks() if b.metric is not None}
    foreign = {
        path.relative_to(REPO).as_posix(): names
        for path in _python_files(REPO / "metrics")
        if (names := [n for n in _imports_a_benchmark(path) if not n.startswith(own[path.parent.name])])
    }
    assert foreign == {}


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
    module reads ForceBench's vocabulary, and the page's modules (``ui.py``, ``page.py``, the
    ``*_tab.py`` modules) read neither benchmark's."""
    space = PACKAGE / "space"
    importing = [
        f"{path.relative_to(REPO).as_posix()} imports {name}"
        for path in _python_files(space)
        for name in sorted(_imports(path))
        if name.startswith("eviscope.suites.forcebench.rows")
        or (
            (path.name in ("ui.py", "page.py") or path.name.endswith("_tab.py"))
            and name.startswith("eviscope.suites.eviscope.rows")
        )
    ]
    assert importing == []


def test_no_benchmark_imports_another() -> None:
    """Each benchmark's package stands alone on the core and the shared machinery: what two of them
    share (JSON Lines reading, Markdown tables, value formatting, statistics) lives in the core."""
    foreign = {
        path.relative_to(REPO).as_posix(): names
        for package in sorted(p for p in SUITES.iterdir() if (p / "__init__.py").is_file())
        for path in _python_files(package)
        if (
            names := [
                n
                for n in _imports_a_benchmark(path)
                if not n.startswith(f"eviscope.suites.{package.name}.")
                and n != f"eviscope.suites.{package.name}"
            ]
        )
    }
    assert foreign == {}
