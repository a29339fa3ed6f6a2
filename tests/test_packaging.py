"""A non-editable install ships every subpackage and data file the code imports or reads."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_declared() -> None:
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    declared = set(setuptools["packages"])
    on_disk = {
        "eviscope." + ".".join(init.parent.relative_to(REPO / "src" / "eviscope").parts)
        for init in (REPO / "src" / "eviscope").rglob("__init__.py")
    }
    on_disk |= {
        "eviscope.builders." + ".".join(init.parent.relative_to(REPO / "builders").parts)
        for init in (REPO / "builders").rglob("__init__.py")
    }
    on_disk = {name.rstrip(".") for name in on_disk}
    assert on_disk == declared


def test_prompt_files_are_package_data() -> None:
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {p.parent.parent for p in (REPO / "src" / "eviscope").rglob("prompts/*")}
    assert folders
    for folder in folders:
        package = "eviscope." + ".".join(folder.relative_to(REPO / "src" / "eviscope").parts)
        patterns = setuptools["package-data"][package]
        assert all(any(p.match(pattern) for pattern in patterns) for p in folder.glob("prompts/*")), package
