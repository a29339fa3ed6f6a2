"""The Space's Leaderboard tab: the recorded results of a config, filtered and sorted, its plot, and
the paired comparison of two systems (API ``/leaderboard`` and ``/compare``)."""

from __future__ import annotations

import logging
import threading
from typing import Any

import gradio as gr
import pandas as pd

from eviscope.core.errors import EviScopeError, plain
from eviscope.space.leaderboard import (
    compare_table,
    leaderboard_columns,
    leaderboard_lines,
    leaderboard_plot,
    leaderboard_table,
)
from eviscope.space.page import PLOT_LOCK, Page, figures_shown, user_errors, word_width
from eviscope.space.reference import REFERENCE, REPORTED, registry_records, reported_records

KIND_STYLE = {
    REFERENCE: "background-color: #eef2f7",
    REPORTED: "background-color: #fdf6e3; font-style: italic",
}
"""How a reference line and a paper's line are set apart from the submissions on the page."""


TEXT_WIDTHS = {"system": 190, "kind": 105, "source": 210, "submitted": 100}
"""The leaderboard's text columns' least widths, in pixels: names, kinds and sources wrap between words."""
FIGURE_CHARS = 5
"""A figure as :func:`~eviscope.core.tables.format_value` writes most of them (``0.125``)."""


def column_widths(table: pd.DataFrame, metrics: list[str]) -> list[int]:
    """Each leaderboard column's width in pixels, so that no word of a header or a cell is broken
    across lines (a line breaks between words): a figure column as wide as its header's longest
    word or a figure; a text column as wide as its longest word, or its least width. EviScope's
    leaderboard, source included, fits a window 1280 pixels wide."""
    widths = {name: word_width([name, "0" * FIGURE_CHARS]) for name in metrics}
    widths |= {name: word_width([name, *table[name]], least) for name, least in TEXT_WIDTHS.items()}
    widths["submitted"] = TEXT_WIDTHS["submitted"]  # shown as date and time (:func:`_when`)
    return [widths[name] for name in table.columns]


def _when(submitted: str) -> str:
    """When a line was submitted (or its reference run finished), as the page shows it: date, hours
    and minutes (UTC); empty where undated (a registered reference system, a paper's figures)."""
    return submitted[:16].replace("T", " ")


def styled(table: pd.DataFrame, metrics: list[str]) -> Any:
    """The leaderboard as the page shows it: every figure written by
    :func:`~eviscope.core.tables.format_value` (three decimals, as the reports write them; a figure
    not reported left empty), and the reference and paper lines shaded apart from the submissions.
    The cells keep their numbers (``.data``), which API clients receive."""
    shade = [KIND_STYLE.get(kind, "") for kind in table["kind"]]
    shown = figures_shown(table, metrics).format(_when, subset=["submitted"])
    return shown.apply(lambda column: shade, axis=0)


log = logging.getLogger(__name__)


def leaderboard_tab(page: Page, load: Any) -> None:
    """The Leaderboard tab, inside the page's Blocks; ``load`` is the Blocks' load event (the
    leaderboard is drawn when the page opens)."""
    store = page.store
    with_references: set[str] = set()
    references_lock = threading.Lock()

    def add_references(config: str) -> None:
        """The config's reference systems and reported figures, put on its leaderboard when it is
        first shown (scoring them takes a few seconds, which a Space that nobody views never pays)."""
        with references_lock:
            if config not in with_references:
                for record in [*registry_records(config, page.rows_of(config)), *reported_records(config)]:
                    store.add_reference(record)
                with_references.add(config)

    @user_errors
    def do_leaderboard(config: str, query: str, sort_by: str | None) -> tuple[Any, ...]:
        page.rows_of(config)
        add_references(config)
        records = [record for record, _ in leaderboard_lines(config, store.records(config))]
        columns = leaderboard_columns(config)
        sort_by = sort_by if sort_by in [*columns, "system"] else columns[0]
        table = leaderboard_table(config, records, query or "", sort_by)
        path = page.plots_dir / f"leaderboard-{config}-{len(records)}.png"
        try:  # the table still shows when the plot cannot be written (a full disk)
            with PLOT_LOCK:
                plot = leaderboard_plot(config, records, path)
        except OSError:
            plot = None
        except (LookupError, TypeError, ValueError) as err:  # a stored result the plot cannot read
            log.warning("leaderboard of %s: no plot, a stored result lacks %r", config, err)
            plot = None
        systems = [r["system"] for r in records if r.get("kind") != REPORTED]  # those with predictions
        return (
            styled(table, columns),
            str(plot) if plot else None,
            gr.update(choices=["system", *columns], value=sort_by),
            gr.update(choices=systems, value=systems[0] if systems else None),
            gr.update(choices=systems, value=systems[1] if len(systems) > 1 else None),
        )

    @user_errors
    def do_compare(config: str, system_a: str, system_b: str) -> Any:
        by_name = {r["system"]: r for r in store.records(config)}
        missing = [name for name in (system_a, system_b) if name not in by_name]
        if missing:
            shown = ", ".join(repr(plain(name or "", 80)) for name in missing)
            raise EviScopeError(f"no result for {shown} on {config}")
        if system_a == system_b:
            raise EviScopeError("choose two different systems to compare")
        a, b = store.full(by_name[system_a]), store.full(by_name[system_b])
        return figures_shown(compare_table(config, a, b, page.rows_of(config)))

    first = page.configs[0]
    with gr.Tab("Leaderboard") as tab:
        with gr.Row():
            l_config = gr.Dropdown(page.configs, value=first, label="config")
            l_query = gr.Textbox(label="filter systems")
            l_sort = gr.Dropdown(
                ["system", *leaderboard_columns(first)], label="sort by (best first)", allow_custom_value=True
            )
            l_refresh = gr.Button("Refresh")
        gr.Markdown(
            "Submissions first; then, as `reference` lines, the suite's reference systems run on the "
            "rows served and scored as a submission is, and the committed runs of a real model; then, "
            "as `reported (paper)` lines, the figures the papers print for their own models and rows "
            "(the `source` column says where): compare their shape, not their numbers. An empty cell "
            "is a figure the paper does not give, or one that contract §4 leaves undefined on these rows."
        )
        l_table = gr.Dataframe(
            interactive=False,
            show_search="filter",
            wrap=True,
            pinned_columns=1,
            max_height=2000,  # every line on the page: a reader scrolls the page, not a box in it
            elem_id="leaderboard",
        )
        l_plot = gr.Image(label="per-variant joint success, or the ForceBench MVR–FS plane", type="filepath")
        gr.Markdown("### Compare two systems (exact McNemar and bootstrap 95% CI of A − B, per quartet)")
        with gr.Row():
            l_a = gr.Dropdown([], label="system A", allow_custom_value=True)
            l_b = gr.Dropdown([], label="system B", allow_custom_value=True)
            l_compare = gr.Button("Compare")
        l_result = gr.Dataframe(interactive=False)
        board = [l_table, l_plot, l_sort, l_a, l_b]

        def fit(table: pd.DataFrame, config: str) -> Any:
            """The page's table sized to the lines it shows (:func:`column_widths`); a step of its own
            after ``/leaderboard``, whose API clients get the table as they always did."""
            if list(table.columns) != [
                "system",
                "kind",
                "source",
                *leaderboard_columns(config),
                "submitted",
            ]:  # another config chosen since
                return gr.update()
            return gr.update(column_widths=column_widths(table, leaderboard_columns(config)))

        gr.on(
            # drawn again when the tab is opened: a submission just recorded is on it
            [load, tab.select, l_refresh.click, l_config.change, l_sort.input, l_query.submit],
            do_leaderboard,
            [l_config, l_query, l_sort],
            board,
            api_name="leaderboard",
        ).success(fit, [l_table, l_config], l_table, api_name=False)
        l_compare.click(do_compare, [l_config, l_a, l_b], l_result, api_name="compare")
        l_config.change(lambda: None, None, l_result, api_name=False)  # no comparison of another config
