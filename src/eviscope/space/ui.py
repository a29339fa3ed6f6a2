"""The Space's Gradio Blocks: Browse, Submit, Leaderboard and Annotate tabs over the library.

:func:`build_demo` lays out the page and hands its state (:class:`eviscope.space.page.Page`) to the
tabs, one module each (:mod:`~eviscope.space.browse_tab`, :mod:`~eviscope.space.submit_tab`,
:mod:`~eviscope.space.leaderboard_tab`, :mod:`~eviscope.space.annotate_tab`); these and the metric
Spaces' widget are the library's only modules that import gradio. Each tab's callbacks are named API endpoints
(``/browse``, ``/show``, ``/submit``, ``/leaderboard``, ``/compare``, ``/annotate_next``,
``/annotate_save``, ``/agreement``), so everything the page does can also be driven with
``gradio_client``. A user-facing problem becomes a ``gr.Error`` whose message is the library's
one-line :class:`EviScopeError`, HTML-escaped (gradio renders the message as HTML): whatever the
user typed shows as text, in the toast and to API clients alike; so does every user string put into
a Markdown output (:mod:`eviscope.space.safe`).

**Who is who.** On a Space with Hugging Face sign-in (``hf_oauth: true`` in its card, which sets
``OAUTH_CLIENT_ID``), the page has a ``gr.LoginButton`` and the Annotate and Submit handlers take the
signed-in user's ``gr.OAuthProfile`` (gradio injects it): an annotator is ``profile.username``,
never a typed name, and sees only their own sheet; submitting needs sign-in too, and the per-user
limits (:mod:`eviscope.space.limits`) count by username. Without sign-in configured (a local run),
a banner says the Space is single-user, and everyone is the one local identity :data:`LOCAL_USER`.

**Files.** Report plots go into a temporary folder (``eviscope-space-PID-*``) removed when the app
exits (:attr:`demo.workdir`, a :class:`tempfile.TemporaryDirectory`); one left by a Space that was
killed outright (SIGKILL: no cleanup can run) is removed by the next start, once its process is gone. Uploads, submitted or not,
are removed from gradio's upload folder once older than :attr:`Limits.upload_max_age_s`, and all at
exit (gradio's ``delete_cache``); not by the handler, as gradio gives uploads of the same content
one path, which a concurrent submission may still be reading.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path

import gradio as gr

from eviscope.release.processes import alive
from eviscope.space.annotate_tab import annotate_tab
from eviscope.space.annotation import AnnotationStore
from eviscope.space.browse_tab import browse_tab
from eviscope.space.data import RowSource
from eviscope.space.leaderboard import ResultStore
from eviscope.space.leaderboard_tab import leaderboard_tab
from eviscope.space.limits import Limits
from eviscope.space.page import LOCAL_USER, Page
from eviscope.space.reference import reference_records
from eviscope.space.submit_tab import submit_tab

__all__ = ["CSS", "LOCAL_USER", "build_demo", "signin_configured"]

WORKDIR_PREFIX = "eviscope-space-"
"""A Space's temporary folder is ``$TMPDIR/eviscope-space-PID-*``, PID the process that made it."""

SINGLE_USER_BANNER = (
    f"**Single-user mode.** This Space runs without Hugging Face sign-in, so every visitor is the one "
    f"local user `{LOCAL_USER}`: one annotation sheet per benchmark, one set of submission limits. "
    "On the Hub, `hf_oauth: true` in the Space's card turns sign-in on."
)

log = logging.getLogger(__name__)

CSS = """
.quartet { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 0.6rem; }
.doc { border: 1px solid #ccc; border-radius: 6px; padding: 0.4rem; margin: 0.3rem 0; font-size: 0.9rem; }
.doc-head { color: #555; font-size: 0.8rem; margin-bottom: 0.2rem; }
mark { background: #fde68a; }
del { background: #fecaca; }
ins { background: #bbf7d0; text-decoration: none; }
#leaderboard th, #leaderboard [role=gridcell], #browse th, #browse [role=gridcell] { font-size: 13px; }
"""
"""The page's styles; the leaderboard's and the browse table's column widths
(:func:`eviscope.space.page.fitted_widths`) are made for their font size."""


def signin_configured() -> bool:
    """Whether Hugging Face sign-in is set up: on a Space whose card says ``hf_oauth: true``, the Hub
    sets ``OAUTH_CLIENT_ID``."""
    return bool(os.environ.get("OAUTH_CLIENT_ID"))


def build_demo(
    source: RowSource,
    store: ResultStore,
    annotations: AnnotationStore,
    *,
    signin: bool | None = None,
    limits: Limits | None = None,
) -> gr.Blocks:
    """The whole Space over ``source``'s rows, recording results in ``store`` and sheets in ``annotations``.

    ``signin``: whether users sign in with Hugging Face (default: :func:`signin_configured`);
    ``limits``: the per-user submission limits (default: :meth:`Limits.from_env`). The returned
    Blocks' ``workdir`` is the temporary folder of its plots: removed at exit, or by its ``cleanup()``.
    """
    signin = signin_configured() if signin is None else signin
    limits = Limits.from_env() if limits is None else limits
    configs = source.configs()
    for config in configs:  # read every config once, before the first visitor
        source.rows(config)
    for record in reference_records(configs, source.rows):
        store.add_reference(record)
    _sweep_workdirs(Path(tempfile.gettempdir()))
    workdir = tempfile.TemporaryDirectory(prefix=f"{WORKDIR_PREFIX}{os.getpid()}-")
    page = Page(source, configs, store, annotations, signin, limits, Path(workdir.name))

    max_age = limits.upload_max_age_s
    with gr.Blocks(title="EviScope Space", delete_cache=(min(60, max_age), max_age)) as demo:
        gr.Markdown(
            "# EviScope\nDoes a grounded model respond to its evidence for the right reasons? "
            "Browse the quartets and ForceBench pairs, submit predictions, compare systems."
        )
        if signin:
            gr.LoginButton()
        else:
            gr.Markdown(SINGLE_USER_BANNER, elem_id="single-user")
        browse_tab(page)
        submit_tab(page)
        leaderboard_tab(page, demo.load)
        annotate_tab(page)
    demo.workdir = workdir  # type: ignore[attr-defined]
    return demo


def _sweep_workdirs(root: Path) -> None:
    """Remove the temporary folders of Spaces whose process is gone (killed before any cleanup)."""
    for folder in root.glob(f"{WORKDIR_PREFIX}*-*"):
        pid = folder.name.removeprefix(WORKDIR_PREFIX).split("-", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid() or alive(int(pid)):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        log.info("removed %s, left by a Space that is gone", folder)
