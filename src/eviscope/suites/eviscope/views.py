"""What the Space shows of an EviScope row: its quartet side by side, the support span marked and the
conflict passage as a word diff against the support (every string HTML-escaped)."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from eviscope.core.markup import diff_html, highlight
from eviscope.suites.eviscope.rows import VARIANTS

Row = Mapping[str, Any]


def _document_html(row: Row, doc: Mapping[str, str]) -> str:
    doc_id = doc["doc_id"]
    text = html.escape(doc["text"])
    role = ""
    if doc_id in row["supporting_doc_ids"]:
        role = "support"
        for span in row["support_spans"]:
            if span["doc_id"] == doc_id:
                text = highlight(doc["text"], span["text"])
    elif doc_id in row["conflicting_doc_ids"]:
        role = "conflict (diff against the support passage)"
        support = next((d for d in row["documents"] if d["doc_id"] in row["supporting_doc_ids"]), None)
        if support is not None:
            text = diff_html(support["text"], doc["text"])
    else:
        role = "same article, no gold answer" if doc["title"] == row["title"] else "other article"
    return (
        f'<div class="doc"><div class="doc-head"><code>{html.escape(doc_id)}</code> · '
        f"{html.escape(doc['title'])} · <b>{role}</b></div><div>{text}</div></div>"
    )


def quartet_html(rows: Sequence[Row], quartet_id: str) -> str:
    """The four variants of a quartet side by side: question, gold, expected action, and each
    document with its role; the support span is marked and the conflict passage shown as a diff."""
    mine = {row["variant"]: row for row in rows if row["quartet_id"] == quartet_id}
    if not mine:
        return f"<p>No quartet {html.escape(quartet_id)}.</p>"
    first = next(iter(mine.values()))
    head = (
        f"<h3>{html.escape(quartet_id)}: {html.escape(first['question'])}</h3>"
        f"<p>gold: <b>{html.escape(' | '.join(first['answers']))}</b> · article "
        f"{html.escape(first['title'])}</p>"
    )
    columns = []
    for variant in VARIANTS:
        row = mine.get(variant)
        if row is None:
            continue
        extra = (
            f" · conflict answer <b>{html.escape(row['conflict_answer'])}</b>"
            if row["conflict_answer"]
            else ""
        )
        docs = "".join(_document_html(row, doc) for doc in row["documents"])
        columns.append(
            f'<div class="variant"><h4>{variant}</h4><p>expected: <b>{row["expected_action"]}</b>{extra}</p>{docs}</div>'
        )
    return f'{head}<div class="quartet">{"".join(columns)}</div>'
