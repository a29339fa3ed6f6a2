"""Safe HTML of the data's own text: everything shown is HTML-escaped before any markup is added.

>>> diff_html("scoring 11 points", "scoring 24 points")
'scoring <del>11</del><ins>24</ins> points'
>>> diff_html("a schedule in 1978. Carolina", "a schedule in 1986. Carolina")
'a schedule in <del>1978</del><ins>1986</ins>. Carolina'
>>> highlight("The battle was in 1066. It rained.", "The battle was in 1066.")
'<mark>The battle was in 1066.</mark> It rained.'
"""

from __future__ import annotations

import difflib
import html
import re

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")
"""A diff's tokens: runs of spaces, of word characters, or one other character."""


def highlight(text: str, span: str) -> str:
    """``text`` escaped, with the first occurrence of ``span`` marked."""
    before, found, after = text.partition(span) if span else (text, "", "")
    if not found:
        return html.escape(text)
    return f"{html.escape(before)}<mark>{html.escape(span)}</mark>{html.escape(after)}"


def diff_html(old: str, new: str) -> str:
    """A diff of ``new`` against ``old`` by words and punctuation, keeping the text's own spacing:
    removed tokens struck (``<del>``), added ones marked (``<ins>``)."""
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(html.escape("".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(f"<del>{html.escape(''.join(a[i1:i2]))}</del>")
        if j2 > j1:
            out.append(f"<ins>{html.escape(''.join(b[j1:j2]))}</ins>")
    return "".join(out)
