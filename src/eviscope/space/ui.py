"""The Space's Gradio Blocks: Browse, Submit, Leaderboard and Annotate tabs over the library.

The only module of the library that imports gradio. Each tab's callbacks are named API endpoints
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

import ctypes
import ctypes.util
import gc
import inspect
import logging
import math
import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from eviscope.core.errors import EviScopeError, plain
from eviscope.core.registry import AnnotationField, annotated, browse_filters, for_config
from eviscope.space import browse
from eviscope.space.annotation import AnnotationStore, flow, own_agreement, queue_order
from eviscope.space.data import RowSource
from eviscope.space.leaderboard import (
    ResultStore,
    compare_table,
    leaderboard_columns,
    leaderboard_lines,
    leaderboard_plot,
    leaderboard_table,
)
from eviscope.space.limits import Limits
from eviscope.space.reference import reference_records
from eviscope.space.safe import html_text, markdown_text
from eviscope.space.submissions import render_report, score_submission

__all__ = ["CSS", "LOCAL_USER", "build_demo", "signin_configured"]

LOCAL_USER = "local"
"""Everyone's identity when the Space runs without Hugging Face sign-in (single-user)."""

WORKDIR_PREFIX = "eviscope-space-"
"""A Space's temporary folder is ``$TMPDIR/eviscope-space-PID-*``, PID the process that made it."""

RELEASE_AFTER_BYTES = 2**20
"""After a submission this large or larger, the memory it freed is given back to the system."""

SINGLE_USER_BANNER = (
    f"**Single-user mode.** This Space runs without Hugging Face sign-in, so every visitor is the one "
    f"local user `{LOCAL_USER}`: one annotation sheet per benchmark, one set of submission limits. "
    "On the Hub, `hf_oauth: true` in the Space's card turns sign-in on."
)

log = logging.getLogger(__name__)

MAX_BROWSE_ROWS = 500
"""The browse table shows at most this many matching rows (the count says how many matched)."""

CSS = """
.quartet { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 0.6rem; }
.doc { border: 1px solid #ccc; border-radius: 6px; padding: 0.4rem; margin: 0.3rem 0; font-size: 0.9rem; }
.doc-head { color: #555; font-size: 0.8rem; margin-bottom: 0.2rem; }
mark { background: #fde68a; }
del { background: #fecaca; }
ins { background: #bbf7d0; text-decoration: none; }
"""

_PLOT_LOCK = threading.Lock()
"""matplotlib's pyplot is not thread-safe, and Gradio runs callbacks in threads."""


def signin_configured() -> bool:
    """Whether Hugging Face sign-in is set up: on a Space whose card says ``hf_oauth: true``, the Hub
    sets ``OAUTH_CLIENT_ID``."""
    return bool(os.environ.get("OAUTH_CLIENT_ID"))


def _user_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Show an :class:`EviScopeError` to the user (and to API clients) as its one-line message,
    HTML-escaped: gradio renders a ``gr.Error`` message as HTML."""

    @wraps(fn)
    def wrapper(*args: Any) -> Any:
        try:
            return fn(*args)
        except EviScopeError as err:
            raise gr.Error(html_text(str(err)), print_exception=False) from None

    return wrapper


def _frame(columns: tuple[str, ...] | list[str], lines: list[list[Any]]) -> pd.DataFrame:
    return pd.DataFrame(lines, columns=list(columns))


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
    first = configs[0]
    _sweep_workdirs(Path(tempfile.gettempdir()))
    workdir = tempfile.TemporaryDirectory(prefix=f"{WORKDIR_PREFIX}{os.getpid()}-")
    plots_dir = Path(workdir.name)

    def user_of(profile: gr.OAuthProfile | None, doing: str) -> str:
        """Who is acting: the signed-in Hub user, or :data:`LOCAL_USER` without sign-in."""
        if not signin:
            return LOCAL_USER
        if profile is None:
            raise EviScopeError(f"sign in with Hugging Face (the button at the top of the page) to {doing}")
        return profile.username

    def rows_of(config: str) -> list[dict[str, Any]]:
        if config not in configs:
            raise EviScopeError(f"no config {config!r}; choose one of {', '.join(configs)}")
        return source.rows(config)

    # --- Browse -------------------------------------------------------------------------------

    filters = browse_filters()
    """The Browse tab's dropdowns, every benchmark's, in registry order; ``/browse`` takes the config,
    each filter's value in this order, then the search."""

    @_user_errors
    def do_browse(config: str, *values: str) -> tuple[pd.DataFrame, str]:
        *chosen, query = values
        wanted = {f.field: value for f, value in zip(filters, chosen, strict=True)}
        matched = browse.filter_rows(rows_of(config), wanted, query or "")
        shown = matched[:MAX_BROWSE_ROWS]
        note = f"{len(matched)} of {len(rows_of(config))} rows match"
        if len(matched) > len(shown):
            note += f"; the first {len(shown)} are listed"
        columns = for_config(config).space.browse_columns
        table = _frame(columns, browse.summary_table(shown, columns))
        return table, note

    # /browse's parameters, by name for gradio_client (``variant=``), as the dropdowns are labelled
    parameters = ("config", *(f.label for f in filters), "query")
    do_browse.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=str)
            for name in parameters
        ]
    )

    @_user_errors
    def do_show(config: str, row_id: str) -> str:
        row = next((r for r in rows_of(config) if r["id"] == (row_id or "").strip()), None)
        if row is None:
            raise EviScopeError(f"no row {plain(row_id or '', 200)!r} in {config}; pick one from the table")
        return for_config(config).space.row_html(rows_of(config), row)

    def on_select(table: pd.DataFrame, event: gr.SelectData) -> str:
        return str(table.iloc[event.index[0]]["id"])

    # --- Submit -------------------------------------------------------------------------------

    @_user_errors
    def do_submit(
        config: str, system: str, upload: str | None, profile: gr.OAuthProfile | None = None
    ) -> tuple[str, str, list[str]]:
        try:
            return submit(config, system, upload, profile)
        finally:  # once the submission's parsed predictions are dropped
            if upload and _size(upload) >= RELEASE_AFTER_BYTES:
                _release_memory()

    def submit(
        config: str, system: str, upload: str | None, profile: gr.OAuthProfile | None
    ) -> tuple[str, str, list[str]]:
        if not upload:
            raise EviScopeError("no file uploaded: choose a predictions JSONL file")
        rows = rows_of(config)
        user = user_of(profile, "submit")
        try:
            size = Path(upload).stat().st_size
        except OSError as err:
            raise EviScopeError(f"cannot read the upload ({err.strerror or err}); upload it again") from None
        limits.admit(user, size)
        sub = score_submission(config, system, upload, rows)
        recorded = store.add(sub.record())  # one EviScopeError line, and nothing recorded, if it fails
        shown = f"**{markdown_text(sub.system)}** on {markdown_text(config)} (submission {sub.id})"
        status = f"Recorded {shown}." if recorded else f"This file was already recorded for {shown}."
        try:  # the result is recorded: a report that cannot be drawn (a full disk) must not hide that
            with _PLOT_LOCK:
                markdown, plots = render_report(sub, Path(tempfile.mkdtemp(dir=plots_dir)))
        except OSError as err:
            note = f"{status} The report could not be drawn ({err.strerror or type(err).__name__})."
            return note, "", []
        return status, markdown, [str(p) for p in plots]

    # --- Leaderboard --------------------------------------------------------------------------

    @_user_errors
    def do_leaderboard(config: str, query: str, sort_by: str | None) -> tuple[Any, ...]:
        rows_of(config)
        records = [record for record, _ in leaderboard_lines(config, store.records(config))]
        columns = leaderboard_columns(config)
        sort_by = sort_by if sort_by in [*columns, "system"] else columns[0]
        table = leaderboard_table(config, records, query or "", sort_by)
        path = plots_dir / f"leaderboard-{config}-{len(records)}.png"
        try:  # the table still shows when the plot cannot be written (a full disk)
            with _PLOT_LOCK:
                plot = leaderboard_plot(config, records, path)
        except OSError:
            plot = None
        except (LookupError, TypeError, ValueError) as err:  # a stored result the plot cannot read
            log.warning("leaderboard of %s: no plot, a stored result lacks %r", config, err)
            plot = None
        systems = [r["system"] for r in records]
        return (
            table,
            str(plot) if plot else None,
            gr.update(choices=["system", *columns], value=sort_by),
            gr.update(choices=systems, value=systems[0] if systems else None),
            gr.update(choices=systems, value=systems[1] if len(systems) > 1 else None),
        )

    @_user_errors
    def do_compare(config: str, system_a: str, system_b: str) -> pd.DataFrame:
        by_name = {r["system"]: r for r in store.records(config)}
        missing = [name for name in (system_a, system_b) if name not in by_name]
        if missing:
            shown = ", ".join(repr(plain(name or "", 80)) for name in missing)
            raise EviScopeError(f"no result for {shown} on {config}")
        if system_a == system_b:
            raise EviScopeError("choose two different systems to compare")
        a, b = store.full(by_name[system_a]), store.full(by_name[system_b])
        return compare_table(config, a, b, rows_of(config))

    # --- Annotate -----------------------------------------------------------------------------

    flows = {name: f for name, f in annotated().items() if f.config in configs}
    """Each benchmark annotated here; its form's inputs come in this order, one form after another."""
    offsets = {name: sum(len(f.fields) for f in list(flows.values())[:i]) for i, name in enumerate(flows)}
    document_inputs = sum(field.kind == "document" for f in flows.values() for field in f.fields)
    """How many inputs choose one of the shown row's documents (each is offered that row's documents)."""

    def candidates(benchmark: str) -> list[dict[str, Any]]:
        annotation = flow(benchmark)
        if benchmark not in flows:
            raise EviScopeError(f"{benchmark} rows ({annotation.config}) are not served by this Space")
        return annotation.candidates(rows_of(annotation.config))

    @_user_errors
    def do_next(benchmark: str, profile: gr.OAuthProfile | None = None) -> tuple[Any, ...]:
        pool = candidates(benchmark)
        annotator = user_of(profile, "annotate")
        done = annotations.sheet(benchmark, annotator, pool)
        todo = [row for row in queue_order(pool) if row["id"] not in done]
        progress = f"{len(done)} of {len(pool)} rows annotated by {markdown_text(annotator)}"
        if not todo:
            nothing = [gr.update(choices=[], value=None) for _ in range(document_inputs)]
            return "", "<p>Nothing left to annotate.</p>", progress, *nothing
        row = todo[0]
        docs = [(f"document {i}", d["doc_id"]) for i, d in enumerate(row.get("documents", []), start=1)]
        return (
            row["id"],
            flow(benchmark).blinded_html(row),
            progress,
            *(gr.update(choices=[("none", ""), *docs], value="") for _ in range(document_inputs)),
        )

    @_user_errors
    def do_save(
        benchmark: str, profile: gr.OAuthProfile | None, row_id: str, *values: str
    ) -> tuple[Any, ...]:
        pool = candidates(benchmark)
        annotator = user_of(profile, "annotate")
        row = next((r for r in pool if r["id"] == row_id), None)
        if row is None:
            raise EviScopeError("load a row to annotate first (Next row)")
        names = [field.name for field in flow(benchmark).fields]
        offset = offsets[benchmark]
        fields = dict(zip(names, values[offset : offset + len(names)], strict=True))
        annotations.save(benchmark, annotator, row, fields, pool)  # one EviScopeError line if it fails
        return do_next(benchmark, profile)

    @_user_errors
    def do_agreement(
        benchmark: str, profile: gr.OAuthProfile | None = None
    ) -> tuple[str, pd.DataFrame, pd.DataFrame]:
        """The signed-in annotator's agreement with each other sheet, unnamed and without verdicts
        (:func:`~eviscope.space.annotation.own_agreement`)."""
        pool = candidates(benchmark)
        me = user_of(profile, "see your agreement")
        mine = annotations.sheet(benchmark, me, pool)
        if not mine:
            raise EviScopeError(f"{me} has annotated no {benchmark} row yet")
        others = []
        for name in annotations.annotators(benchmark):
            if name == me:
                continue
            try:
                others.append(annotations.sheet(benchmark, name, pool))
            except EviScopeError as err:  # another's sheet the store cannot read: not theirs to see
                log.warning("agreement of %s: a sheet left out: %s", me, err)
        lines, queued = own_agreement(benchmark, mine, others, pool)
        summary = (
            f"{len(mine)} rows annotated by {markdown_text(me)}; {len(lines)} other annotators share "
            f"rows with them, and {len(queued)} of those rows are in an adjudication queue."
        )
        shown = [[name, n, "undefined" if math.isnan(k) else round(k, 3), q] for name, n, k, q in lines]
        pairs = _frame(("other annotator", "shared rows", "Cohen's kappa", "to adjudicate"), shown)
        return summary, pairs, _frame(("id", "queued with (annotators)"), queued)

    # --- Layout -------------------------------------------------------------------------------

    initial_table, initial_note = do_browse(first, *(browse.ANY for _ in filters), "")
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
        with gr.Tab("Browse"):
            with gr.Row():
                b_config = gr.Dropdown(configs, value=first, label="config")
                b_filters = [
                    gr.Dropdown([browse.ANY, *f.choices], value=browse.ANY, label=f.label) for f in filters
                ]
            b_query = gr.Textbox(label="search (id, question, claims, document text)")
            b_note = gr.Markdown(initial_note)
            b_table = gr.Dataframe(initial_table, interactive=False, wrap=True, max_height=400)
            first_id = rows_of(first)[0]["id"]
            b_id = gr.Textbox(first_id, label="row id (click a row in the table)")
            b_view = gr.HTML(do_show(first, first_id))
            gr.on(
                [b_config.change, *(f.change for f in b_filters), b_query.submit],
                do_browse,
                [b_config, *b_filters, b_query],
                [b_table, b_note],
                api_name="browse",
            )
            b_table.select(on_select, b_table, b_id)
            b_id.change(do_show, [b_config, b_id], b_view, api_name="show")

        with gr.Tab("Submit"):
            gr.Markdown(
                "Upload one JSON object per line: contract §3 predictions for an EviScope config, contract §6 "
                "per-pair labels or scores for ForceBench. The file is validated, scored and recorded."
            )
            with gr.Row():
                s_config = gr.Dropdown(configs, value=first, label="config")
                s_system = gr.Textbox(label="system name")
            s_file = gr.File(label="predictions (.jsonl)", file_types=[".jsonl", ".json"], type="filepath")
            s_button = gr.Button("Score and record", variant="primary")
            s_status = gr.Markdown()
            s_report = gr.Markdown()
            s_plots = gr.Gallery(label="plots", columns=2, height="auto")
            s_button.click(
                do_submit, [s_config, s_system, s_file], [s_status, s_report, s_plots], api_name="submit"
            )

        with gr.Tab("Leaderboard"):
            with gr.Row():
                l_config = gr.Dropdown(configs, value=first, label="config")
                l_query = gr.Textbox(label="filter systems")
                l_sort = gr.Dropdown(
                    ["system", *leaderboard_columns(first)],
                    label="sort by (best first)",
                    allow_custom_value=True,
                )
                l_refresh = gr.Button("Refresh")
            l_table = gr.Dataframe(interactive=False, show_search="filter")
            l_plot = gr.Image(
                label="per-variant joint success, or the ForceBench MVR–FS plane", type="filepath"
            )
            gr.Markdown("### Compare two systems (exact McNemar and bootstrap 95% CI of A − B, per quartet)")
            with gr.Row():
                l_a = gr.Dropdown([], label="system A", allow_custom_value=True)
                l_b = gr.Dropdown([], label="system B", allow_custom_value=True)
                l_compare = gr.Button("Compare")
            l_result = gr.Dataframe(interactive=False)
            board = [l_table, l_plot, l_sort, l_a, l_b]
            gr.on(
                [demo.load, l_refresh.click, l_config.change, l_sort.input, l_query.submit],
                do_leaderboard,
                [l_config, l_query, l_sort],
                board,
                api_name="leaderboard",
            )
            l_compare.click(do_compare, [l_config, l_a, l_b], l_result, api_name="compare")

        with gr.Tab("Annotate"):
            gr.Markdown(
                "Blinded double annotation, as the Hugging Face user you signed in as: you see and "
                "change only your own sheet. EviScope rows come without variant, document ids or "
                "labels; ForceBench drafts are accepted or rejected, with corrections (an empty field "
                "keeps the draft)."
            )
            names = list(flows)
            with gr.Row():
                a_benchmark = gr.Radio(names, value=names[0] if names else None, label="benchmark")
                a_next = gr.Button("Next row")
            a_progress = gr.Markdown()
            a_id = gr.Textbox(label="row", interactive=False)
            a_view = gr.HTML()
            inputs, doc_inputs = [], []
            for annotation in flows.values():
                with gr.Accordion(annotation.title, open=True):
                    for field in annotation.fields:
                        inputs.append(_annotation_input(field))
                        if field.kind == "document":
                            doc_inputs.append(inputs[-1])
            a_save = gr.Button("Save and next", variant="primary")
            shown = [a_id, a_view, a_progress, *doc_inputs]
            a_next.click(do_next, [a_benchmark], shown, api_name="annotate_next")
            a_save.click(do_save, [a_benchmark, a_id, *inputs], shown, api_name="annotate_save")
            gr.Markdown(
                "### Your agreement\nWith each other annotator who shares rows with you (unnamed): "
                "Cohen's kappa and how many rows are to adjudicate; and your rows in an adjudication "
                "queue. Other annotators' verdicts are not shown; the maintainers adjudicate from the sheets."
            )
            k_button = gr.Button("My agreement")
            k_summary = gr.Markdown()
            k_pairs = gr.Dataframe(interactive=False)
            k_queue = gr.Dataframe(interactive=False)
            k_button.click(do_agreement, [a_benchmark], [k_summary, k_pairs, k_queue], api_name="agreement")
    demo.workdir = workdir  # type: ignore[attr-defined]
    return demo


def _sweep_workdirs(root: Path) -> None:
    """Remove the temporary folders of Spaces whose process is gone (killed before any cleanup)."""
    for folder in root.glob(f"{WORKDIR_PREFIX}*-*"):
        pid = folder.name.removeprefix(WORKDIR_PREFIX).split("-", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid() or _alive(int(pid)):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        log.info("removed %s, left by a Space that is gone", folder)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


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
    gc.collect()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def _glibc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim  # noqa: B018  # absent outside glibc (musl, macOS)
    except (OSError, AttributeError):
        return None
    return libc


_LIBC = _glibc()


def _annotation_input(field: AnnotationField) -> gr.components.Component:
    """The Gradio input of one field of an annotation form."""
    if field.kind == "choice":
        return gr.Radio(list(field.choices), label=field.label)
    if field.kind == "select":
        return gr.Dropdown(list(field.choices), value="" if "" in field.choices else None, label=field.label)
    if field.kind == "document":
        return gr.Dropdown([("none", "")], value="", label=field.label)
    return gr.Textbox(label=field.label)
