"""What the Space shows of a ForceBench row: the evidence with its decisive span marked and the raised
claim as a word diff against the calibrated one (every string HTML-escaped)."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from eviscope.core.markup import diff_html, highlight

Row = Mapping[str, Any]


def pair_html(row: Row) -> str:
    """A ForceBench pair: the evidence with its decisive span marked, and the raised claim as a
    word diff against the calibrated one."""
    fields = "".join(
        f"<p><b>{name}</b>: {html.escape(str(row[name]))}</p>"
        for name in ("axis", "severity", "annotation_status", "repair", "rationale", "source")
    )
    return (
        f"<h3>{html.escape(row['id'])}</h3>"
        f"<p><b>context</b>: {html.escape(row['context'])}</p>"
        f'<div class="doc"><div class="doc-head"><b>evidence</b> (decisive span marked)</div>'
        f"{highlight(row['evidence'], row['evidence_span'])}</div>"
        f"<p><b>calibrated claim</b>: {html.escape(row['calibrated_claim'])}</p>"
        f"<p><b>raised claim</b> (diff against the calibrated claim): "
        f"{diff_html(row['calibrated_claim'], row['raised_claim'])}</p>{fields}"
    )
