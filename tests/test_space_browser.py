"""The Space in a real headless browser (Debian's chromium): the page loads, rows render, a screenshot."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("gradio", reason="gradio is not installed (the Space): pip install -e '.[space]'")

from space_server import SpaceServer

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"
)

# Gradio renders with JavaScript: give the page a virtual time budget to fetch its config and draw.
BROWSER = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--virtual-time-budget=20000",
]


@pytest.fixture
def server(built_dataset: Path, tmp_path: Path) -> Iterator[SpaceServer]:
    space = SpaceServer(built_dataset, tmp_path / "results", tmp_path / "space.log")
    yield space
    space.stop()


def chromium(*args: str) -> str:
    done = subprocess.run(
        [CHROMIUM, *BROWSER, *args], capture_output=True, text=True, timeout=120, check=True
    )
    return done.stdout


def test_page_loads_rows_render_and_a_screenshot_is_saved(server: SpaceServer, tmp_path: Path) -> None:
    dom = chromium("--dump-dom", server.url)
    assert "<title>EviScope Space</title>" in dom
    # The browse table and the quartet view of its first row, drawn by the page's JavaScript.
    for text in ("q01-sufficient", "q01-conflicting", "160 of 160 rows match", "<mark>", "<del>"):
        assert text in dom, f"{text!r} not rendered"
    shot = tmp_path / "space.png"
    chromium("--window-size=1400,1800", f"--screenshot={shot}", server.url)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
