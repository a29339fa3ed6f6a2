"""The EviScope Space: browse rows, submit predictions, leaderboard, annotate.

Locally, against the folder ``eviscope build`` wrote::

    python spaces/eviscope/app.py [--dataset dataset] [--results results] [--port 7860]

On the hub, set ``EVISCOPE_SPACE_DATASET`` to the released dataset repo and
``EVISCOPE_SPACE_RESULTS_REPO`` to a results dataset repo (with an ``HF_TOKEN`` secret that may write
to it). The card (``README.md``) says ``hf_oauth: true``: on the Hub, users sign in with Hugging Face
and annotate and submit as themselves; locally (no ``OAUTH_CLIENT_ID``) the Space is single-user and
says so. Per-user limits: ``EVISCOPE_SPACE_SUBMISSIONS_PER_HOUR`` and
``EVISCOPE_SPACE_UPLOAD_MIB_PER_HOUR`` (``eviscope.space.limits``). The layout and every callback
live in ``eviscope.space``.

The Space's temporary folder (``eviscope-space-*``, the report plots) is removed when it exits: on
an interrupt, a SIGTERM (how the Hub and ``kill`` stop it), or the end of the program.
"""

from __future__ import annotations

import argparse
import gc
import os
import signal
import sys
from types import FrameType
from typing import TYPE_CHECKING

from eviscope.core.errors import EviScopeError
from eviscope.space.annotation import AnnotationStore
from eviscope.space.data import RowSource
from eviscope.space.leaderboard import HubResultStore, LocalResultStore, ResultStore
from eviscope.space.limits import Limits
from eviscope.space.submissions import MAX_BYTES
from eviscope.space.ui import CSS, build_demo

if TYPE_CHECKING:
    import gradio as gr


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    env = os.environ.get
    parser = argparse.ArgumentParser(description="Run the EviScope Space.")
    parser.add_argument(
        "--dataset",
        default=env("EVISCOPE_SPACE_DATASET", "dataset"),
        help="built dataset folder, or a hub dataset repo id ($EVISCOPE_SPACE_DATASET; default: dataset)",
    )
    parser.add_argument(
        "--results",
        default=env("EVISCOPE_SPACE_RESULTS", "results"),
        help="local folder for results and annotation sheets ($EVISCOPE_SPACE_RESULTS; default: results)",
    )
    parser.add_argument(
        "--results-repo",
        default=env("EVISCOPE_SPACE_RESULTS_REPO"),
        help="hub dataset repo for results, instead of the local folder ($EVISCOPE_SPACE_RESULTS_REPO)",
    )
    parser.add_argument("--host", default=env("GRADIO_SERVER_NAME", "127.0.0.1"), help="address to listen on")
    parser.add_argument(
        "--port", type=int, default=int(env("GRADIO_SERVER_PORT", "7860")), help="port (default: 7860)"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None, *, block: bool = True) -> gr.Blocks:
    """Serve the Space until interrupted; with ``block=False``, start it in the background and
    return the running Blocks (``close()`` stops it)."""
    args = parse_args(argv)
    store: ResultStore = (
        HubResultStore(args.results_repo) if args.results_repo else LocalResultStore(args.results)
    )
    try:
        demo = build_demo(
            RowSource(args.dataset),
            store,
            AnnotationStore(os.path.join(args.results, "annotations"), results_repo=args.results_repo),
            limits=Limits.from_env(),
        )
    except EviScopeError as err:
        raise SystemExit(f"error: {err}") from None
    gc.freeze()  # the rows, read once and kept: no collection traverses them again
    if block:
        signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        demo.queue(default_concurrency_limit=1).launch(
            server_name=args.host,
            server_port=args.port,
            css=CSS,
            show_error=True,
            max_file_size=MAX_BYTES,  # refused before gradio stores the upload
            prevent_thread_lock=not block,
        )
    finally:
        if block:  # served until interrupted: stop (gradio removes the uploads it holds), clean up
            demo.close()
            demo.workdir.cleanup()
    return demo


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    """Stop serving as an interrupt would, so that the cleanup of ``main`` and of exit runs."""
    sys.exit(128 + signum)


if __name__ == "__main__":
    main()
