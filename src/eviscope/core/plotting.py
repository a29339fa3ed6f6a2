"""What every plot of the suite shares: a colour-blind-safe palette and titles that say whose result
and which config a plot shows (a plot copied into a README or a Space page travels without its run
folder).

>>> plot_title("success per quartet", "smollm2 (gate)", "eviscope-v1.1")
'smollm2 (gate) on eviscope-v1.1: success per quartet'
>>> plot_title("MVR–FS plane", None, "forcebench")
'forcebench: MVR–FS plane'
"""

from __future__ import annotations

__all__ = ["OKABE_ITO", "RIGHT", "WRONG", "plot_title", "png_metadata"]

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442", "#000000")
"""Okabe & Ito's eight colours (blue, orange, bluish green, vermillion, sky blue, reddish purple,
yellow, black), told apart with every common colour-vision deficiency; series take them in order."""
RIGHT, WRONG = OKABE_ITO[0], OKABE_ITO[1]
"""A right and a wrong cell: blue and orange, never red and green."""


def plot_title(what: str, system: str | None, config: str | None) -> str:
    """``<system> on <config>: <what>``; the parts not known are left out."""
    whose = " on ".join(part for part in (system, config) if part)
    return f"{whose}: {what}" if whose else what


def png_metadata(title: str) -> dict[str, str | None]:
    """The PNG text chunks of a plot: its title (readable without drawing it), no matplotlib version
    (the same result gives the same bytes)."""
    return {"Title": title, "Software": None}
