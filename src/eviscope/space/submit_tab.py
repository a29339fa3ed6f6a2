"""The Space's Submit tab: an uploaded predictions file validated, scored, recorded and reported
(API ``/submit``), within the per-user limits; the memory a large upload freed given back after it."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import gradio as gr

from eviscope.core.errors import EviScopeError
from eviscope.core.memory import release_freed_memory
from eviscope.space.page import PLOT_LOCK, Page, user_errors
from eviscope.space.safe import markdown_text
from eviscope.space.submissions import render_report, score_submission

MAX_PLOTS = 4
"""The most plots a report shows on the page (each benchmark's report draws two)."""
RELEASE_AFTER_BYTES = 2**20
"""After a submission this large or larger, the memory it freed is given back to the system."""


def submit_tab(page: Page) -> None:
    """The Submit tab, inside the page's Blocks."""

    @user_errors
    def do_submit(
        config: str, system: str, upload: str | None, profile: gr.OAuthProfile | None = None
    ) -> tuple[str, str, list[str]]:
        try:
            return submit(page, config, system, upload, profile)
        finally:  # once the submission's parsed predictions are dropped
            if upload and _size(upload) >= RELEASE_AFTER_BYTES:
                _release_memory()

    def do_submit_on_page(
        config: str, system: str, upload: str | None, profile: gr.OAuthProfile | None = None
    ) -> tuple[Any, ...]:
        """The page's Submit button: as ``/submit``, but a refused submission replaces the report
        in place with its one-line reason (an API client still gets the error), and each plot is
        shown whole, at its own size."""
        try:
            status, report, plots = do_submit.__wrapped__(config, system, upload, profile)
        except EviScopeError as err:
            status, report, plots = f"**Not recorded.** {markdown_text(str(err))}", "", []
        shown = [gr.update(value=path, visible=True) for path in plots[:MAX_PLOTS]]
        hidden = [gr.update(value=None, visible=False)] * (MAX_PLOTS - len(shown))
        return status, report, *shown, *hidden

    with gr.Tab("Submit"):
        gr.Markdown(
            "Upload one JSON object per line: contract §3 predictions for an EviScope config, contract §6 "
            "per-pair labels or scores for ForceBench. The file is validated, scored and recorded."
        )
        with gr.Row():
            s_config = gr.Dropdown(page.configs, value=page.configs[0], label="config")
            s_system = gr.Textbox(label="system name")
        s_file = gr.File(label="predictions (.jsonl)", file_types=[".jsonl", ".json"], type="filepath")
        s_button = gr.Button("Score and record", variant="primary")
        s_status = gr.Markdown(elem_id="submit-status")
        s_report = gr.Markdown()
        s_images = [
            gr.Image(type="filepath", visible=False, show_label=False, interactive=False)
            for _ in range(MAX_PLOTS)
        ]
        page_outputs = [s_status, s_report, *s_images]
        s_button.click(do_submit_on_page, [s_config, s_system, s_file], page_outputs, api_name=False)
        # ``/submit`` for API clients (gradio_client): a refusal is an error there, as it always was
        s_plots = gr.Gallery(visible=False)
        s_api = gr.Button(visible=False)
        s_api.click(do_submit, [s_config, s_system, s_file], [s_status, s_report, s_plots], api_name="submit")
        cleared = ("", "", *[gr.update(value=None, visible=False)] * MAX_PLOTS)
        s_config.change(lambda: cleared, None, page_outputs, api_name=False)  # no report of another config


def submit(
    page: Page, config: str, system: str, upload: str | None, profile: gr.OAuthProfile | None
) -> tuple[str, str, list[str]]:
    """Score and record one upload: (status, report Markdown, plot files)."""
    if not upload:
        raise EviScopeError("no file uploaded: choose a predictions JSONL file")
    rows = page.rows_of(config)
    user = page.user_of(profile, "submit")
    try:
        size = Path(upload).stat().st_size
    except OSError as err:
        raise EviScopeError(f"cannot read the upload ({err.strerror or err}); upload it again") from None
    page.limits.admit(user, size)
    sub = score_submission(config, system, upload, rows, rows_of=page.rows_of)
    recorded = page.store.add(sub.record())  # one EviScopeError line, and nothing recorded, if it fails
    shown = f"**{markdown_text(sub.system)}** on {markdown_text(config)} (submission {sub.id})"
    status = f"Recorded {shown}." if recorded else f"This file was already recorded for {shown}."
    status += "".join(f"\n\n**Warning:** {markdown_text(line)}" for line in sub.warnings)
    try:  # the result is recorded: a report that cannot be drawn (a full disk) must not hide that
        with PLOT_LOCK:
            markdown, plots = render_report(sub, Path(tempfile.mkdtemp(dir=page.plots_dir)))
    except OSError as err:
        note = f"{status} The report could not be drawn ({err.strerror or type(err).__name__})."
        return note, "", []
    return status, markdown, [str(p) for p in plots]


def _size(path: str) -> int:
    try:
        return Path(path).stat().st_size
    except OSError:
        return 0


def _release_memory() -> None:
    """Give the memory a submission freed back to the system: collect its cyclic garbage (the report's
    matplotlib figures), then glibc's ``malloc_trim``, as glibc otherwise keeps freed blocks in the
    arena of the thread that used them, and the Space's RSS grows by a few MiB with each large
    upload (``benchmarks/space.py --memory``). Without glibc, only the collection. The app freezes
    what it holds from the start (``gc.freeze``), so a collection costs milliseconds, not the
    half-second of traversing every row; and only an upload of :data:`RELEASE_AFTER_BYTES` or more
    pays even that."""
    release_freed_memory()
