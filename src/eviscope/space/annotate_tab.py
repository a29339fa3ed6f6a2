"""The Space's Annotate tab: blinded double annotation of every annotated benchmark's rows, each
annotator's own sheet, and their agreement with the others, unnamed (API ``/annotate_next``,
``/annotate_save`` and ``/agreement``)."""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from typing import Any

import gradio as gr
import pandas as pd

from eviscope.core.errors import EviScopeError
from eviscope.core.registry import AnnotationField, annotated
from eviscope.core.tables import format_value, round_value
from eviscope.space.annotation import MAX_FIELD_CHARS, blind_id, flow, own_agreement, queue_order
from eviscope.space.page import LOCAL_USER, Page, frame, user_errors
from eviscope.space.safe import markdown_text

log = logging.getLogger(__name__)

KAPPA = "Cohen's kappa"
"""The agreement table's figure, written on the page by :func:`~eviscope.core.tables.format_value`
("undefined" where no kappa is defined)."""


def annotate_tab(page: Page) -> None:
    """The Annotate tab, inside the page's Blocks."""
    annotations = page.annotations
    flows = {name: f for name, f in annotated().items() if f.config in page.configs}
    """Each benchmark annotated here; its form's inputs come in this order, one form after another."""
    offsets = {name: sum(len(f.fields) for f in list(flows.values())[:i]) for i, name in enumerate(flows)}
    document_inputs = sum(field.kind == "document" for f in flows.values() for field in f.fields)
    """How many inputs choose one of the shown row's documents (each is offered that row's documents)."""

    def candidates(benchmark: str) -> list[dict[str, Any]]:
        annotation = flow(benchmark)
        if benchmark not in flows:
            raise EviScopeError(f"{benchmark} rows ({annotation.config}) are not served by this Space")
        return annotation.candidates(page.rows_of(annotation.config))

    def shown_id(annotator: str, row_id: str) -> str:
        return blind_id(page.annotation_key, annotator, row_id)

    @user_errors
    def do_next(benchmark: str, profile: gr.OAuthProfile | None = None) -> tuple[Any, ...]:
        """The annotator's next row, under the id only they see (never the row's own id, which
        names its variant); its documents offered as ``document 1``, ``document 2``… (their ids
        are not sent to the page either)."""
        pool = candidates(benchmark)
        annotator = page.user_of(profile, "annotate")
        done = annotations.sheet(benchmark, annotator, pool)
        todo = [row for row in queue_order(pool) if row["id"] not in done]
        progress = f"{len(done)} of {len(pool)} rows annotated by {markdown_text(annotator)}"
        if not todo:
            nothing = [gr.update(choices=[], value=None) for _ in range(document_inputs)]
            return "", "<p>Nothing left to annotate.</p>", progress, *nothing
        row = todo[0]
        docs = [(f"document {i}", str(i)) for i in range(1, len(row.get("documents", [])) + 1)]
        return (
            shown_id(annotator, row["id"]),
            flow(benchmark).blinded_html(row),
            progress,
            *(gr.update(choices=[("none", ""), *docs], value="") for _ in range(document_inputs)),
        )

    @user_errors
    def do_save(benchmark: str, profile: gr.OAuthProfile | None, shown: str, *values: str) -> tuple[Any, ...]:
        pool = candidates(benchmark)
        annotator = page.user_of(profile, "annotate")
        row = next((r for r in pool if shown and shown_id(annotator, r["id"]) == shown), None)
        if row is None:
            raise EviScopeError("load a row to annotate first (Next row)")
        annotation = flow(benchmark)
        offset = offsets[benchmark]
        fields = {}
        for field, value in zip(
            annotation.fields, values[offset : offset + len(annotation.fields)], strict=True
        ):
            fields[field.name] = _document_id(row, value) if field.kind == "document" else value
        try:
            annotations.save(benchmark, annotator, row, fields, pool)  # one EviScopeError line if it fails
        except EviScopeError as err:  # it names the row: by the id the annotator sees
            raise EviScopeError(str(err).replace(row["id"], shown)) from None
        return do_next(benchmark, profile)

    @user_errors
    def do_agreement(benchmark: str, profile: gr.OAuthProfile | None = None) -> tuple[str, Any, pd.DataFrame]:
        """The signed-in annotator's agreement with each other sheet, unnamed and without verdicts
        (:func:`~eviscope.space.annotation.own_agreement`)."""
        pool = candidates(benchmark)
        me = page.user_of(profile, "see your agreement")
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
        queued = [[shown_id(me, row_id), n] for row_id, n in queued]
        summary = (
            f"{len(mine)} rows annotated by {markdown_text(me)}; {len(lines)} other annotators share "
            f"rows with them, and {len(queued)} of those rows are in an adjudication queue."
        )
        shown = [[name, n, "undefined" if math.isnan(k) else round_value(k), q] for name, n, k, q in lines]
        pairs = frame(("other annotator", "shared rows", KAPPA, "to adjudicate"), shown)
        kappa = pairs.style.format(lambda k: k if isinstance(k, str) else format_value(k), subset=[KAPPA])
        return summary, kappa, frame(("id", "queued with (annotators)"), queued)

    with gr.Tab("Annotate"):
        who = (
            "as the Hugging Face user you signed in as: you see and change only your own sheet"
            if page.signin
            else f"in the one local sheet of `{LOCAL_USER}` (single-user mode: no sign-in, so every "
            "visitor writes the same sheet)"
        )
        gr.Markdown(
            f"Blinded double annotation, {who}. EviScope rows come without variant, document ids or "
            "labels; ForceBench drafts are accepted or rejected, with corrections (an empty field "
            "keeps the draft)."
        )
        names = list(flows)
        with gr.Row():
            a_benchmark = gr.Radio(names, value=names[0] if names else None, label="benchmark")
            a_next = gr.Button("Next row")
        a_progress = gr.Markdown()
        a_id = gr.Textbox(label="row (your own id for it)", interactive=False)
        a_view = gr.HTML()
        inputs, doc_inputs, forms = [], [], []
        for name, annotation in flows.items():
            with gr.Accordion(annotation.title, open=True, visible=name == a_benchmark.value) as form:
                for field in annotation.fields:
                    inputs.append(_annotation_input(field))
                    if field.kind == "document":
                        doc_inputs.append(inputs[-1])
            forms.append(form)
        a_save = gr.Button("Save and next", variant="primary")
        shown = [a_id, a_view, a_progress, *doc_inputs]
        verdicts = [i for i in inputs if i not in doc_inputs]  # the document inputs: do_next's
        fields = [f for a in flows.values() for f in a.fields if f.kind != "document"]

        def fresh_form() -> list[Any]:
            """Every verdict and note input emptied: a new row starts with no verdict (the one saved
            for the row before must not carry over, a careless click away from being saved again)."""
            return [_empty_value(field) for field in fields]

        a_next.click(do_next, [a_benchmark], shown, api_name="annotate_next").success(
            fresh_form, None, verdicts, api_name=False
        )
        a_save.click(do_save, [a_benchmark, a_id, *inputs], shown, api_name="annotate_save").success(
            fresh_form, None, verdicts, api_name=False
        )
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

        def switch(benchmark: str) -> tuple[Any, ...]:
            """Another benchmark chosen: its form only, and nothing left of the other's row."""
            cleared = [gr.update(choices=[("none", "")], value="") for _ in doc_inputs]
            visible = [gr.update(visible=name == benchmark) for name in flows]
            return "", "", "", *cleared, *visible, "", None, None

        agreement = [k_summary, k_pairs, k_queue]
        a_benchmark.change(switch, a_benchmark, [*shown, *forms, *agreement], api_name=False)


def _document_id(row: Mapping[str, Any], shown: str | None) -> str:
    """The id of the row's document chosen as ``document N`` (the value ``"N"``); "" for none. A
    value that is not one of them is passed on as it is, for the form's validation to name."""
    documents = row.get("documents", [])
    if shown and shown.isdigit() and 1 <= int(shown) <= len(documents):
        return documents[int(shown) - 1]["doc_id"]
    return shown or ""


def _empty_value(field: AnnotationField) -> str | None:
    """The value of ``field``'s input with nothing chosen or written: what a new row starts with."""
    if field.kind == "choice":
        return None
    if field.kind == "select":
        return "" if "" in field.choices else None
    return ""


def _annotation_input(field: AnnotationField) -> gr.components.Component:
    """The Gradio input of one field of an annotation form."""
    if field.kind == "choice":
        return gr.Radio(list(field.choices), label=field.label)
    if field.kind == "select":
        return gr.Dropdown(list(field.choices), value=_empty_value(field), label=field.label)
    if field.kind == "document":
        return gr.Dropdown([("none", "")], value="", label=field.label)
    return gr.Textbox(
        label=field.label, max_length=MAX_FIELD_CHARS, info=f"at most {MAX_FIELD_CHARS:,} characters"
    )
