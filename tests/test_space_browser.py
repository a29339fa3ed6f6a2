"""The Space in a real headless browser (Debian's chromium): the page loads and rows render; the
annotation sheet is blind; a refused submission replaces the report in place (issue 35).

Clicks and uploads go through playwright, driving the installed chromium (no browser download)."""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("gradio", reason="gradio is not installed (the Space): pip install -e '.[space]'")

from space_server import SpaceServer

from eviscope.space.annotation import ID_KEY_VARIABLE, blind_id
from eviscope.space.ui import LOCAL_USER
from eviscope.suites.eviscope.dataset import load_rows
from eviscope.suites.eviscope.reference_systems import predict

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
KEY = "browser-test-key"
"""The Space's key of the ids an annotator sees, so that the test can map them back to rows."""
ROW_ID = re.compile(r"q\d+-(?:sufficient|noisy|insufficient|conflicting)")
DOC_ID = re.compile(r"doc-[0-9a-f]{8}")
WAIT_MS = 60_000


@pytest.fixture
def server(built_dataset: Path, tmp_path: Path) -> Iterator[SpaceServer]:
    space = SpaceServer(
        built_dataset, tmp_path / "results", tmp_path / "space.log", env={ID_KEY_VARIABLE: KEY}
    )
    yield space
    space.stop()


@pytest.fixture
def browser_page(server: SpaceServer) -> Iterator[Any]:
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (the dev extra)"
    )
    with sync_api.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(WAIT_MS)
            page.goto(server.url)
            page.get_by_role("tab", name="Annotate").wait_for()
            yield page
        finally:
            browser.close()


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


def visible_panel(page: Any) -> Any:
    return page.locator("[role=tabpanel]:visible").first


def test_the_annotation_sheet_shows_no_row_id_variant_or_document_id_and_maps_back(
    browser_page: Any, built_dataset: Path, tmp_path: Path
) -> None:
    """What an annotator sees of an EviScope row: its question and numbered documents under an id of
    their own; not its id (``q24-noisy`` names the variant), nor a document id, in the text or the
    page's markup. A verdict saved from the page lands in the sheet under the real row and document."""
    page = browser_page
    page.get_by_role("tab", name="Annotate").click()
    panel = visible_panel(page)
    panel.get_by_role("button", name="Next row").click()
    shown = panel.get_by_label("row (your own id for it)")
    page.wait_for_function(
        "() => [...document.querySelectorAll('input, textarea')].some(e => /^row-[0-9a-f]{12}$/.test(e.value))"
    )
    token = shown.input_value()
    panel.get_by_label("supporting document").click()  # its options, drawn into the page
    options = [o.get_attribute("aria-label") for o in page.get_by_role("option").all()]
    assert len(options) > 1 and options == ["none", *(f"document {i}" for i in range(1, len(options)))]
    markup = panel.inner_html()
    assert "document 1" in markup
    assert not ROW_ID.search(markup) and not DOC_ID.search(markup), "the sheet shows a row or document id"
    assert not re.search(r"\b(noisy|insufficient|conflicting|expected_action)\b", panel.inner_text())

    page.get_by_role("option", name="document 1").click()
    panel.get_by_role("radio", name="answer").check()
    panel.get_by_role("button", name="Save and next").click()
    page.wait_for_function("() => document.body.innerText.includes('1 of 160 rows annotated by local')")
    rows = load_rows("eviscope-v1.1", built_dataset)
    row = next(r for r in rows if blind_id(KEY.encode(), LOCAL_USER, r["id"]) == token)
    sheet = tmp_path / "results" / "annotations" / "eviscope" / f"{LOCAL_USER}.csv"
    (line,) = list(csv.DictReader(sheet.open(encoding="utf-8")))
    assert (line["id"], line["annotation_action"]) == (row["id"], "answer")
    assert line["annotation_supporting_doc_id"] == row["documents"][0]["doc_id"]


def test_a_refused_submission_replaces_the_report_with_its_reason_in_place(
    browser_page: Any, built_dataset: Path, tmp_path: Path
) -> None:
    """After a recorded submission, a broken file: the page says it was not recorded and why, where
    the report was, and the earlier report (tables and plots) is gone, not left under error badges."""
    rows = load_rows("eviscope-v1.1", built_dataset)
    lines = [json.dumps(p) for p in predict("lexical", rows)]
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(lines) + "\n", encoding="utf-8")
    broken = tmp_path / "broken.jsonl"
    broken.write_text(lines[0] + '\n{"id": "q01-noisy", "action": "answ\n', encoding="utf-8")

    page = browser_page
    page.get_by_role("tab", name="Submit").click()
    panel = visible_panel(page)
    status = page.locator("#submit-status")

    panel.get_by_label("system name").fill("lexical copy")
    panel.locator("input[type=file]").set_input_files(str(good))
    panel.get_by_role("button", name="Score and record").click()
    page.wait_for_function("() => document.body.innerText.includes('Recorded lexical copy')")
    assert "EviScope score" in panel.inner_text() and panel.locator("img").count() == 2

    panel.get_by_label("Clear").first.click()
    panel.locator("input[type=file]").set_input_files(str(broken))
    panel.get_by_label("system name").fill("broken")
    panel.get_by_role("button", name="Score and record").click()
    page.wait_for_function("() => document.body.innerText.includes('Not recorded.')")
    assert "broken.jsonl line 2: not valid JSON" in status.inner_text()
    text = panel.inner_text()
    assert "EviScope score" not in text and "Recorded lexical copy" not in text
    assert panel.locator("img:visible").count() == 0
