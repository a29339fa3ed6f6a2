"""What every plot of the suite shares: a colour-blind-safe palette and titles that say whose result
and which config a plot shows (a plot copied into a README or a Space page travels without its run
folder).

>>> plot_title("success per quartet", "smollm2 (gate)", "eviscope-v1.1")
'smollm2 (gate) on eviscope-v1.1: success per quartet'
>>> plot_title("MVR–FS plane", None, "forcebench")
'forcebench: MVR–FS plane'
"""

from __future__ import annotations

import textwrap
from typing import Any

__all__ = [
    "HATCHES",
    "MARKERS",
    "OKABE_ITO",
    "RIGHT",
    "WRONG",
    "legend_below",
    "plot_title",
    "png_metadata",
    "series_style",
]

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442", "#000000")
"""Okabe & Ito's eight colours (blue, orange, bluish green, vermillion, sky blue, reddish purple,
yellow, black), told apart with every common colour-vision deficiency; series take them in order."""
RIGHT, WRONG = OKABE_ITO[0], OKABE_ITO[1]
"""A right and a wrong cell: blue and orange, never red and green."""


MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
"""Point markers: the series after the eighth take the next marker with the colours again."""
HATCHES = ("", "//", "..", "xx", "\\\\", "++", "oo", "--")
"""Bar hatches, for the same purpose."""
LEGEND_LINE_INCHES = 0.2
"""The height of one legend line below a plot (8-point text)."""


def series_style(i: int) -> tuple[str, str, str]:
    """The colour, marker and hatch of series ``i``: no two of the first 64 series look alike.

    >>> series_style(0) == series_style(8)
    False
    """
    return OKABE_ITO[i % 8], MARKERS[i // 8 % 8], HATCHES[i // 8 % 8]


def legend_below(
    fig: Any, ax: Any, width_inches: float, plot_inches: float, title: str | None = None
) -> None:
    """Size ``fig`` to a plot of ``plot_inches`` with the legend of ``ax`` in one column under it,
    each label wrapped to the figure's width, so that no label is cut, squeezes the plot or prints
    over the data (a long system name placed beside a point did all three); ``title`` heads the
    legend with what its labels name (``system``, ``evaluator``)."""
    handles, labels = ax.get_legend_handles_labels()
    wrapped = ["\n".join(textwrap.wrap(label, int(width_inches * 13))) for label in labels]
    lines = sum(label.count("\n") + 1 for label in wrapped) + (title is not None)
    fig.set_size_inches(width_inches, plot_inches + LEGEND_LINE_INCHES * lines + 0.3)
    if handles:
        ax.legend(
            handles,
            wrapped,
            title=title,
            title_fontsize=8,
            loc="upper center",
            bbox_to_anchor=(0.5, -0.16),
            fontsize=8,
            frameon=False,
        )


def plot_title(what: str, system: str | None, config: str | None) -> str:
    """``<system> on <config>: <what>``; the parts not known are left out."""
    whose = " on ".join(part for part in (system, config) if part)
    return f"{whose}: {what}" if whose else what


def png_metadata(title: str) -> dict[str, str | None]:
    """The PNG text chunks of a plot: its title (readable without drawing it), no matplotlib version
    (the same result gives the same bytes)."""
    return {"Title": title, "Software": None}
