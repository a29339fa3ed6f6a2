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
    on_disk = {name.rstrip(".") for name in on_disk} | {"eviscope.builders"}
    assert on_disk == declared


def test_prompt_files_are_package_data() -> None:
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = setuptools["package-data"]["eviscope.forcebench"]
    prompts = list((REPO / "src" / "eviscope" / "forcebench").glob("prompts/*"))
    assert prompts and all(any(p.match(pattern) for pattern in patterns) for p in prompts)
