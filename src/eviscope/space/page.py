"""What every tab of the Space's page shares (:func:`eviscope.space.ui.build_demo` makes one
:class:`Page` and hands it to each tab's module): the served rows, the stores, who is acting, the
plots folder, and how a user-facing problem is shown."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import wraps
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from eviscope.core.errors import EviScopeError
from eviscope.core.tables import format_value
from eviscope.space.annotation import AnnotationStore, id_key
from eviscope.space.data import RowSource
from eviscope.space.leaderboard import ResultStore
from eviscope.space.limits import Limits
from eviscope.space.safe import html_text

LOCAL_USER = "local"
"""Everyone's identity when the Space runs without Hugging Face sign-in (single-user)."""

PLOT_LOCK = threading.Lock()
"""matplotlib's pyplot is not thread-safe, and Gradio runs callbacks in threads."""


@dataclass(frozen=True)
class Page:
    """The Space's state, one per :func:`~eviscope.space.ui.build_demo`."""

    source: RowSource
    configs: list[str]
    """The configs served, read once from ``source`` at the start."""
    store: ResultStore
    annotations: AnnotationStore
    signin: bool
    """Whether users sign in with Hugging Face (else everyone is :data:`LOCAL_USER`)."""
    limits: Limits
    plots_dir: Path
    """The temporary folder the reports' and the leaderboard's plots are drawn into."""
    annotation_key: bytes = field(default_factory=id_key, repr=False)
    """Keys the row ids an annotator sees (:func:`~eviscope.space.annotation.blind_id`)."""

    def user_of(self, profile: gr.OAuthProfile | None, doing: str) -> str:
        """Who is acting: the signed-in Hub user, or :data:`LOCAL_USER` without sign-in."""
        if not self.signin:
            return LOCAL_USER
        if profile is None:
            raise EviScopeError(f"sign in with Hugging Face (the button at the top of the page) to {doing}")
        return profile.username

    def rows_of(self, config: str) -> list[dict[str, Any]]:
        """The served rows of ``config``; a config the Space does not serve is an error naming those it does."""
        if config not in self.configs:
            raise EviScopeError(f"no config {config!r}; choose one of {', '.join(self.configs)}")
        return self.source.rows(config)


def user_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Show an :class:`EviScopeError` to the user (and to API clients) as its one-line message,
    HTML-escaped: gradio renders a ``gr.Error`` message as HTML."""

    @wraps(fn)
    def wrapper(*args: Any) -> Any:
        try:
            return fn(*args)
        except EviScopeError as err:
            raise gr.Error(html_text(str(err)), print_exception=False) from None

    return wrapper


def frame(columns: tuple[str, ...] | list[str], lines: list[list[Any]]) -> pd.DataFrame:
    """A table output's value."""
    return pd.DataFrame(lines, columns=list(columns))


def figures_shown(table: pd.DataFrame, columns: list[str] | None = None) -> Any:
    """``table`` as the page shows it: each figure of ``columns`` (default: every column of
    fractional numbers) written by :func:`~eviscope.core.tables.format_value`, as every report and
    plot writes it (``0.5`` shows as ``0.500``; a figure not given, empty). The cells keep their
    numbers (``.data``), which API clients receive."""
    if columns is None:
        columns = [name for name, kind in table.dtypes.items() if kind.kind == "f"]
    return table.style.format(format_value, subset=columns, na_rep="")


CHAR_PX, PADDING_PX = 8, 24
"""A character of the tables' monospace font (13 pixels, :data:`eviscope.space.ui.CSS`) and a
cell's padding, in pixels."""
WORDS = re.compile(r"[^\s-]+-?")
"""What a line of a cell cannot be broken inside: a word, with the hyphen after it."""
MOST_CHARS = 36
"""The widest a column of long text is made, in characters (its lines wrap between words)."""


def word_width(texts: Iterable[Any], least: int = 0) -> int:
    """Pixels for a column whose longest word is the longest of ``texts`` (and ``least`` at least)."""
    longest = max((len(word) for text in texts for word in WORDS.findall(str(text))), default=0)
    return max(least, CHAR_PX * longest + PADDING_PX)


def fitted_widths(table: pd.DataFrame) -> list[int]:
    """Each column's width in pixels: its whole cells where they are short, at most
    :data:`MOST_CHARS` characters where they are long text, and never less than its longest word,
    header's included; so no word is broken across lines (``se|ve|ri|ty``) and short columns do not
    wrap at all."""
    widths = []
    for name in table.columns:
        cells = [str(value) for value in table[name] if value is not None]
        whole = min(MOST_CHARS, max(map(len, cells), default=0))
        widths.append(word_width([name, *cells], CHAR_PX * whole + PADDING_PX))
    return widths
