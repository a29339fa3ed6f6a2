"""Browsing rows: filters, text search, the EviScope quartet view and the ForceBench pair view.

Every string shown comes from the data and is HTML-escaped before any markup is added.

>>> diff_html("scoring 11 points", "scoring 24 points")
'scoring <del>11</del> <ins>24</ins> points'
>>> highlight("The battle was in 1066. It rained.", "The battle was in 1066.")
'<mark>The battle was in 1066.</mark> It rained.'
"""

from __future__ import annotations

import difflib
import html
import re
from collections.abc import Mapping, Sequence
from typing import Any

from eviscope.suites.eviscope.rows import VARIANTS

__all__ = ["diff_html", "filter_rows", "highlight", "pair_html", "quartet_html", "summary_table"]

Row = Mapping[str, Any]

ANY = "any"
"""The filter value that keeps every row."""


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [text for v in value.values() for text in _texts(v)]
    if isinstance(value, list | tuple):
        return [text for v in value for text in _texts(v)]
    return []


def _searchable(row: Row) -> str:
    """Every text of the row (ids, questions, claims, documents…), whatever its benchmark."""
    return "\n".join(_texts(row)).casefold()


def filter_rows(rows: Sequence[Row], wanted: Mapping[str, str], query: str = "") -> list[Row]:
    """The rows matching every filter of ``wanted`` (field → value; :data:`ANY` or empty: no filter);
    a filter a row does not have (``axis`` on an EviScope row) is ignored, and ``query`` matches ids,
    questions, claims and document text, case-insensitively."""
    wanted = {field: value for field, value in wanted.items() if value and value != ANY}
    needle = query.strip().casefold()
    return [
        row
        for row in rows
        if all(field not in row or str(row[field]) == value for field, value in wanted.items())
        and (not needle or needle in _searchable(row))
    ]


def summary_table(rows: Sequence[Row], columns: Sequence[str]) -> list[list[Any]]:
    """One short line per row for the browse table, its ``columns`` (the benchmark's browse columns)."""
    return [[", ".join(v) if isinstance(v := row[c], list) else v for c in columns] for row in rows]


def highlight(text: str, span: str) -> str:
    """``text`` escaped, with the first occurrence of ``span`` marked."""
    before, found, after = text.partition(span) if span else (text, "", "")
    if not found:
        return html.escape(text)
    return f"{html.escape(before)}<mark>{html.escape(span)}</mark>{html.escape(after)}"


def diff_html(old: str, new: str) -> str:
    """A word-level diff of ``new`` against ``old``: removed words struck (``<del>``), added marked (``<ins>``)."""
    a, b = re.findall(r"\S+", old), re.findall(r"\S+", new)
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(html.escape(" ".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(f"<del>{html.escape(' '.join(a[i1:i2]))}</del>")
        if j2 > j1:
            out.append(f"<ins>{html.escape(' '.join(b[j1:j2]))}</ins>")
    return " ".join(out)


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
