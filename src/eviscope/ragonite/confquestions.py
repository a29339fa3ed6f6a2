"""ConfQuestions (RAGONITE, WSDM 2025) from a user's own copy, turned into evidence units.

The copy is a folder with ``qa-pairs.json`` and ``documents/confluence-NNN.json`` (found through
``--confquestions PATH`` or ``EVISCOPE_CONFQUESTIONS``; it is CC BY-NC-ND, so the suite never ships
or releases any of it). Each page body is Confluence storage-format XHTML: undeclared ``ac:``/``ri:``
prefixes, HTML entities and CDATA, so it is read with BeautifulSoup's ``html.parser``, not as XML.

A page becomes evidence units in page order, each with its page title and the nearest heading above
it: ``passage`` (a paragraph, a code or noformat body, any other run of text), ``list`` (one ``ul``
or ``ol``, one line per item), ``table`` (the whole table, one verbalized row per line) and ``row``
(one table row verbalized as ``header: cell; header: cell``, with rowspan and colspan expanded and
a leading run of ``th`` or all-bold rows taken as the header). Macro parameters (server ids, column
lists, ``true``) are dropped, a ``jira`` macro keeps only its issue key, a link with no text keeps the
title of the page it points to, and the "Owned by … Last updated …" line every page opens with is
dropped.

Gold pages are joined by the numeric Confluence page id in ``/pages/<id>/``, never by the URL text
(some gold URLs differ from the page's own ``url`` in punctuation).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eviscope.core.errors import EviScopeError
from eviscope.core.sources import Source

if TYPE_CHECKING:
    from bs4 import Tag

__all__ = [
    "CONFQUESTIONS",
    "KINDS",
    "QUESTION_FIELDS",
    "ConfQuestions",
    "Page",
    "Turn",
    "Unit",
    "load_confquestions",
    "page_id_of",
    "parse_page",
]

CONFQUESTIONS = Source(
    "confquestions", "ConfQuestions (folder)", "--confquestions", "EVISCOPE_CONFQUESTIONS", None
)
"""The source: a user's own copy only (no hub default; it is never downloaded or redistributed).
No config is built from it; :data:`eviscope.core.registry.SOURCES` names it."""

KINDS: tuple[str, ...] = ("passage", "list", "table", "row")
"""The kinds of evidence unit, in the order the paper names them."""

QUESTION_FIELDS: tuple[str, ...] = ("completed_q_en", "q_en", "completed_q_de", "q_de")
"""The four forms of each question: completed (self-contained) and original, English and German."""

_PAGE_ID = re.compile(r"/pages/(\d+)(?:/|$)")
_OWNED_BY = re.compile(r"^Owned by\b.*\bLast updated\b", re.DOTALL)
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_LISTS = frozenset({"ul", "ol"})
_BLOCKS = frozenset(
    {
        "p",
        "pre",
        "blockquote",
        "div",
        "hr",
        "table",
        "ul",
        "ol",
        *_HEADINGS,
        "ac:structured-macro",
        "ac:rich-text-body",
        "ac:plain-text-body",
        "ac:layout",
        "ac:layout-section",
        "ac:layout-cell",
        "ac:task-list",
        "ac:task",
        "ac:adf-extension",
        "ac:adf-node",
        "ac:adf-content",
    }
)
_BREAKS = _BLOCKS | {"li", "tr", "td", "th", "br"}
"""Tags whose start separates words when a tag's text is taken as one string."""
_DROPPED = ("ac:parameter", "ac:task-id", "ac:task-status", "ac:adf-attribute", "ac:adf-fallback")


@dataclass(frozen=True)
class Unit:
    """One evidence unit of a page."""

    page_id: str
    """The numeric Confluence page id of its page."""
    kind: str
    """``passage``, ``list``, ``table`` or ``row``."""
    text: str
    title: str
    """The page title."""
    heading: str
    """The nearest heading above the unit on its page (``""`` before the first heading)."""


@dataclass(frozen=True)
class Page:
    doc_id: str
    """The file's ``id``, e.g. ``confluence-001``."""
    page_id: str
    title: str
    url: str
    units: tuple[Unit, ...]


@dataclass(frozen=True)
class Turn:
    """One turn of a conversation, with its gold pages by numeric page id."""

    conv_id: str
    turn_id: str
    questions: dict[str, str]
    """The question in each of :data:`QUESTION_FIELDS`."""
    gold_page_ids: frozenset[str]
    a_source: str
    """The kind of element that holds the answer: ``passage``, ``list`` or ``table``."""


@dataclass(frozen=True)
class ConfQuestions:
    location: Path
    pages: tuple[Page, ...]
    turns: tuple[Turn, ...]
    units: tuple[Unit, ...] = field(init=False)
    """Every unit of every page, page by page, in page order."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "units", tuple(u for page in self.pages for u in page.units))


def page_id_of(url: str) -> str | None:
    """The numeric page id in a Confluence URL, or None.

    >>> page_id_of("https://example.net/wiki/spaces/TEST/pages/761823271/OpenXT+9.0+Test")
    '761823271'
    >>> page_id_of("https://example.net/wiki/spaces/TEST/overview") is None
    True
    """
    found = _PAGE_ID.search(url)
    return found.group(1) if found else None


def load_confquestions(location: str | Path, via: str = "") -> ConfQuestions:
    """Read and parse a copy of ConfQuestions: every page, and every turn joined to its gold pages.

    Every problem is one :class:`EviScopeError` line naming the path and how to point at a copy.
    """
    root = Path(location).expanduser()
    where = f"{CONFQUESTIONS.what} at {root}" + (f" (via {via})" if via else "")

    def error(problem: str) -> EviScopeError:
        return EviScopeError(f"{where}: {problem}; {CONFQUESTIONS.how_to_point()}")

    if not root.is_dir():
        raise error("no such folder" if not root.exists() else "is a file, not the ConfQuestions folder")
    files = sorted((root / "documents").glob("*.json"))
    if not files:
        raise error("no documents/*.json pages in it")
    pages = []
    for file in files:
        document = _read_json(file, error)
        try:
            doc_id, title, url, content = (document[k] for k in ("id", "title", "url", "content"))
        except (KeyError, TypeError):
            raise error(f"{file.name}: not a ConfQuestions page (needs id, title, url, content)") from None
        page_id = page_id_of(url)
        if page_id is None:
            raise error(f"{file.name}: url {url!r} holds no /pages/<id>/")
        pages.append(Page(doc_id, page_id, title, url, tuple(parse_page(content, page_id, title))))
    known = {page.page_id for page in pages}
    conversations = _read_json(root / "qa-pairs.json", error)
    turns = []
    try:
        for conversation in conversations:
            for turn in conversation["turns"]:
                gold = frozenset(page_id_of(url) or url for url in turn["a_url"])
                where_turn = f"conversation {conversation['conv_id']} turn {turn['turn_id']}"
                if not gold <= known:
                    raise error(
                        f"qa-pairs.json: {where_turn}: gold page {sorted(gold - known)} not in documents/"
                    )
                questions = {name: turn[name] for name in QUESTION_FIELDS}
                turns.append(
                    Turn(conversation["conv_id"], turn["turn_id"], questions, gold, turn["a_source"])
                )
    except (KeyError, TypeError) as err:
        raise error(f"qa-pairs.json: not the ConfQuestions schema (missing {err})") from None
    return ConfQuestions(root, tuple(pages), tuple(turns))


def _read_json(file: Path, error: Any) -> Any:
    try:
        return json.loads(file.read_bytes())
    except FileNotFoundError:
        raise error(f"{file.name} not found") from None
    except OSError as err:
        raise error(f"{file.name} cannot be read ({err.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise error(f"{file.name} is not valid JSON ({err})") from None


def parse_page(content: str, page_id: str, title: str) -> list[Unit]:
    """The evidence units of one page body (Confluence storage-format XHTML), in page order."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(content, "html.parser")
    _clean(soup)
    walker = _Walker(page_id, title)
    walker.walk(soup)
    return walker.units


def _clean(soup: Tag) -> None:
    """Drop what is not content and give text-less links and jira macros their words."""
    from bs4 import NavigableString

    for macro in soup.find_all("ac:structured-macro", attrs={"ac:name": "jira"}):
        key = macro.find("ac:parameter", attrs={"ac:name": "key"})
        macro.replace_with(NavigableString(f" {key.get_text(strip=True)} " if key else " "))
    for name in _DROPPED:
        for tag in soup.find_all(name):
            tag.decompose()
    for link in soup.find_all("ac:link"):
        target = link.find("ri:page")
        if not _text(link) and target is not None and target.get("ri:content-title"):
            link.replace_with(NavigableString(f" {target['ri:content-title']} "))


def _text(node: Tag) -> str:
    """The words of ``node``: its strings and CDATA, with a break at every block, cell and ``br``."""
    from bs4 import CData, NavigableString, Tag

    parts = []
    for item in node.descendants:
        if isinstance(item, Tag):
            if item.name in _BREAKS:
                parts.append(" ")
        elif type(item) is NavigableString or isinstance(item, CData):
            parts.append(str(item))
    return " ".join("".join(parts).split())


def _has_block(node: Tag) -> bool:
    return node.find(_BLOCKS) is not None


class _Walker:
    """Walks a page in document order, keeping the last heading, and collects its units."""

    def __init__(self, page_id: str, title: str) -> None:
        self.page_id, self.title = page_id, title
        self.heading = ""
        self.units: list[Unit] = []

    def emit(self, kind: str, text: str) -> None:
        if text and not (kind == "passage" and _OWNED_BY.match(text)):
            self.units.append(Unit(self.page_id, kind, text, self.title, self.heading))

    def walk(self, node: Tag) -> None:
        from bs4 import CData, NavigableString, Tag

        inline: list[str] = []

        def flush() -> None:
            self.emit("passage", " ".join("".join(inline).split()))
            inline.clear()

        for child in node.children:
            if isinstance(child, Tag):
                if child.name in _HEADINGS:
                    flush()
                    self.heading = _text(child) or self.heading
                elif child.name in _LISTS:
                    flush()
                    items = (_text(item) for item in child.find_all("li", recursive=False))
                    self.emit("list", "\n".join(item for item in items if item))
                elif child.name == "table":
                    flush()
                    rows = _verbalize(child)
                    self.emit("table", "\n".join(rows))
                    for row in rows:
                        self.emit("row", row)
                elif _has_block(child):
                    flush()
                    self.walk(child)
                elif child.name in _BLOCKS:
                    flush()
                    self.emit("passage", _text(child))
                else:
                    inline.append(" " if child.name == "br" else _text(child))
            elif type(child) is NavigableString or isinstance(child, CData):
                inline.append(str(child))
        flush()


@dataclass(frozen=True)
class _Cell:
    text: str
    header: bool
    """A ``th`` cell, or one whose every word is bold."""


def _verbalize(table: Tag) -> list[str]:
    """One ``header: cell; header: cell`` line per body row of ``table`` (``cell`` alone without a header)."""
    grid = _grid(table)
    n_header = 0
    while n_header < len(grid) and all(c.header for c in grid[n_header] if c.text):
        n_header += 1
    if n_header == len(grid):
        n_header = 0  # every row looks like a header: there is none
    columns = max((len(row) for row in grid), default=0)
    labels = []
    for col in range(columns):
        words: list[str] = []
        for row in grid[:n_header]:
            if col < len(row) and row[col].text and row[col].text not in words:
                words.append(row[col].text)
        labels.append(" ".join(words))
    lines = []
    for row in grid[n_header:]:
        cells: list[str] = []
        seen: list[_Cell] = []
        for col, cell in enumerate(row):
            if not cell.text or any(cell is s for s in seen):
                continue  # empty, or the same spanning cell again
            seen.append(cell)
            cells.append(f"{labels[col]}: {cell.text}" if labels[col] else cell.text)
        if cells:
            lines.append("; ".join(cells))
    return lines


def _grid(table: Tag) -> list[list[_Cell]]:
    """The table's cells with every rowspan and colspan expanded, row by row."""
    rows = [tr for tr in table.find_all("tr") if tr.find_parent("table") is table]
    carried: dict[tuple[int, int], _Cell] = {}
    grid: list[list[_Cell]] = []
    for r, tr in enumerate(rows):
        line: list[_Cell] = []
        for td in tr.find_all(["td", "th"], recursive=False):
            while (r, len(line)) in carried:
                line.append(carried.pop((r, len(line))))
            cell = _Cell(_text(td), td.name == "th" or _all_bold(td))
            for _ in range(_span(td, "colspan")):
                for down in range(1, _span(td, "rowspan")):
                    carried[(r + down, len(line))] = cell
                line.append(cell)
        while (r, len(line)) in carried:
            line.append(carried.pop((r, len(line))))
        grid.append(line)
    return grid


def _span(cell: Tag, attribute: str) -> int:
    try:
        return max(1, min(int(cell.get(attribute, 1)), 100))
    except (TypeError, ValueError):
        return 1


def _all_bold(cell: Tag) -> bool:
    """True when the cell has text and all of it is inside ``strong`` or ``b``."""
    text = _text(cell)
    bold = " ".join(_text(b) for b in cell.find_all(["strong", "b"]) if not b.find_parent(["strong", "b"]))
    return bool(text) and " ".join(bold.split()) == text
