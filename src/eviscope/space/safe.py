"""Text that a user brought, made harmless where the Space shows or exports it.

Gradio renders an error toast's message and a ``gr.HTML`` value as HTML, and a ``gr.Markdown``
value as Markdown (with its raw HTML and its links): so a string a visitor typed, or that an
upload carries, is escaped at the point where it is put into one, and a cell of an annotation
sheet (a CSV file that people open in a spreadsheet) is neutralized where it is written.

>>> html_text("<a href=https://evil.example/fix>fix</a><img src=x>")
'&lt;a href=https://evil.example/fix&gt;fix&lt;/a&gt;&lt;img src=x&gt;'
>>> print(markdown_text("[fix](https://evil.example) **x** www.evil.example a@b.example"))
\\[fix\\](https\\://evil.example) \\*\\*x\\*\\* www\\.evil.example a\\@b.example
>>> markdown_text("gpt-4 (cot) v1.1")
'gpt-4 (cot) v1.1'
>>> csv_cell("=HYPERLINK(1)"), csv_cell("-3"), csv_cell("plain"), csv_cell("'quoted")
("'=HYPERLINK(1)", "'-3", 'plain', "''quoted")
>>> [csv_value(csv_cell(v)) for v in ("=1+1", "@SUM(A1)", "\\tx", "'x", "x")]
['=1+1', '@SUM(A1)', '\\tx', "'x", 'x']
"""

from __future__ import annotations

import html
import re

__all__ = ["FORMULA_STARTS", "csv_cell", "csv_value", "html_text", "markdown_text"]

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""How a spreadsheet cell that it would run as a formula starts (OWASP, "CSV injection")."""

_QUOTE = "'"
_MARKUP = re.compile(r"([\\`*_\[\]<>!|~&:@])|(?<=www)(\.)", re.IGNORECASE)
"""What can make markup inside a line: emphasis, code, links, images, raw HTML, entities, tables,
strikethrough, and GitHub's bare-URL (``https:``, ``www.``) and e-mail links. (What only counts at
the start of a line, ``#``, ``-``, ``1.``, is left: user text is never put there.)"""


def html_text(text: str) -> str:
    """``text`` as HTML text (``&``, ``<`` and ``>`` as entities): shown as typed, never as markup.

    Quotes are kept, as no user text goes into an attribute, so an API client reading the message
    sees ``'`` where the user typed it."""
    return html.escape(text, quote=False)


def markdown_text(text: str) -> str:
    """``text`` as Markdown text inside a line: each character that could make markup
    backslash-escaped, so it makes no emphasis, link, image, raw HTML or bare-URL link, and shows
    as typed; the rest (``-``, ``.``, parentheses) is left as it is, for API clients to read."""
    return _MARKUP.sub(lambda m: "\\" + m.group(0), text)


def csv_cell(value: str) -> str:
    """``value`` as written into a CSV cell: one that starts like a formula (:data:`FORMULA_STARTS`),
    or with the quote that marks one, gets a leading ``'``, which a spreadsheet shows as text."""
    return _QUOTE + value if value.startswith((*FORMULA_STARTS, _QUOTE)) else value


def csv_value(cell: str) -> str:
    """The value a CSV cell written by :func:`csv_cell` holds (its leading ``'`` dropped)."""
    return cell[1:] if cell.startswith(_QUOTE) else cell
