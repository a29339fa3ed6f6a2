"""Where the ConfQuestions tests find the user's copy, and a loader that parses it once per session."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from eviscope.ragonite.confquestions import ConfQuestions

REPO = Path(__file__).resolve().parents[1]


def confquestions_path() -> Path:
    """``$EVISCOPE_CONFQUESTIONS``, else ``../shared/data/confquestions``; skips the test when absent."""
    path = Path(os.environ.get("EVISCOPE_CONFQUESTIONS") or REPO.parent / "shared" / "data" / "confquestions")
    if not (path / "qa-pairs.json").is_file():
        pytest.skip(
            f"ConfQuestions not found at {path}: it is never redistributed; "
            "set EVISCOPE_CONFQUESTIONS to your own copy"
        )
    pytest.importorskip("bs4", reason="the ConfQuestions adapter needs beautifulsoup4: pip install -e .")
    return path


@lru_cache(maxsize=1)
def _load(path: Path) -> ConfQuestions:
    from eviscope.ragonite.confquestions import load_confquestions

    return load_confquestions(path)


def confquestions() -> ConfQuestions:
    """The parsed copy, parsed once per session (skips where no copy is configured)."""
    return _load(confquestions_path())
