"""The Space's Browse tab: every served row, filtered by every benchmark's dropdowns and a search,
and the row chosen shown as its benchmark draws it (API ``/browse`` and ``/show``)."""

from __future__ import annotations

import inspect

import gradio as gr
import pandas as pd

from eviscope.core.errors import EviScopeError, id_text
from eviscope.core.registry import browse_filters, for_config
from eviscope.space import browse
from eviscope.space.page import Page, fitted_widths, frame, user_errors

MAX_BROWSE_ROWS = 500
"""The browse table shows at most this many matching rows (the count says how many matched)."""


def browse_tab(page: Page) -> None:
    """The Browse tab, inside the page's Blocks."""
    filters = browse_filters()
    """The Browse tab's dropdowns, every benchmark's, in registry order; ``/browse`` takes the config,
    each filter's value in this order, then the search."""

    @user_errors
    def do_browse(config: str, *values: str) -> tuple[pd.DataFrame, str]:
        *chosen, query = values
        wanted = {f.field: value for f, value in zip(filters, chosen, strict=True)}
        matched = browse.filter_rows(page.rows_of(config), wanted, query or "")
        shown = matched[:MAX_BROWSE_ROWS]
        note = f"{len(matched)} of {len(page.rows_of(config))} rows match"
        if len(matched) > len(shown):
            note += f"; the first {len(shown)} are listed"
        columns = for_config(config).space.browse_columns
        table = frame(columns, browse.summary_table(shown, columns))
        return table, note

    # /browse's parameters, by name for gradio_client (``variant=``), as the dropdowns are labelled
    parameters = ("config", *(f.label for f in filters), "query")
    do_browse.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=str)
            for name in parameters
        ]
    )

    @user_errors
    def do_show(config: str, row_id: str) -> str:
        rows = page.rows_of(config)
        row = next((r for r in rows if r["id"] == (row_id or "").strip()), None)
        if row is None:
            raise EviScopeError(f"no row '{id_text(row_id or '', 200)}' in {config}; pick one from the table")
        return for_config(config).space.row_html(rows, row)

    def on_select(table: pd.DataFrame, event: gr.SelectData) -> str:
        return str(table.iloc[event.index[0]]["id"])

    first = page.configs[0]
    initial_table, initial_note = do_browse(first, *(browse.ANY for _ in filters), "")
    with gr.Tab("Browse"):
        with gr.Row():
            b_config = gr.Dropdown(page.configs, value=first, label="config")
            b_filters = [
                gr.Dropdown([browse.ANY, *f.choices], value=browse.ANY, label=f.label) for f in filters
            ]
        b_query = gr.Textbox(label="search (id, question, claims, document text)")
        b_note = gr.Markdown(initial_note)
        b_table = gr.Dataframe(
            initial_table,
            interactive=False,
            wrap=True,
            max_height=400,
            column_widths=fitted_widths(initial_table),
            pinned_columns=1,
            elem_id="browse",
        )
        first_id = page.rows_of(first)[0]["id"]
        b_id = gr.Textbox(first_id, label="row id (click a row in the table)")
        b_view = gr.HTML(do_show(first, first_id))
        gr.on(
            [b_config.change, *(f.change for f in b_filters), b_query.submit],
            do_browse,
            [b_config, *b_filters, b_query],
            [b_table, b_note],
            api_name="browse",
        ).success(
            lambda table: gr.update(column_widths=fitted_widths(table)), b_table, b_table, api_name=False
        )
        b_table.select(on_select, b_table, b_id)
        b_id.change(do_show, [b_config, b_id], b_view, api_name="show")

        def switch(config: str) -> tuple[str, str]:
            """Another config chosen: its first row in the detail panel, not the last config's row
            (set both, as the first rows of two configs may share an id)."""
            row_id = page.rows_of(config)[0]["id"]
            return row_id, do_show(config, row_id)

        b_config.change(switch, b_config, [b_id, b_view], api_name=False)
