"""Blind review sheets of conflict passages, and the agreement of filled sheets (contract §2, constraint 2).

A sheet lists, in shuffled order, each conflicting row's question, the answer-bearing sentence of
the support passage and the same sentence in the conflict passage, with no gold labels. With the
SQuAD source at hand (:func:`conflict_sheet`'s ``articles``) each item also shows the whole edited
passage and every other sentence of its article that holds a date or a number, and the sheet comes
with the whole articles (``<sheet>.articles.md``), so that the reader checks the edit against the
article, not only against its passage. A reviewer marks each item ``yes`` or ``no`` on three questions:

- ``same_type``: the edited sentence answers the question with an answer of the same kind (a person
  for a person, a city for a city, a year for a year, ...);
- ``believable``: a reader of the whole article could believe the edited passage: nothing in the
  passage or in the rest of the article contradicts it;
- ``fluent``: the edited sentence reads right (articles, acronyms, appositives, agreement).

An item *passes* when all three are ``yes``.

Each item carries a ``fingerprint`` of what the reviewer read (source question, question, original
and edited sentence), so that a mark stays tied to that text: a rebuild that renumbers quartets or
changes a conflict passage leaves the old mark *stale*, and ``eviscope review agreement --config``
refuses stale marks instead of counting them for rows nobody read.
"""

from __future__ import annotations

import csv
import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from eviscope.core.errors import EviScopeError, id_text
from eviscope.core.normalize import contains
from eviscope.core.sentences import sentence_spans
from eviscope.core.sheets import checked_ids, read_sheet_lines
from eviscope.core.stats import cohen_kappa, text_fingerprint
from eviscope.suites.eviscope.squad_source import DEV

CRITERIA: tuple[str, ...] = ("same_type", "believable", "fluent")
SHEET_FIELDS: tuple[str, ...] = (
    "item",
    "id",
    "fingerprint",
    "title",
    "question",
    "original",
    "edited",
    *CRITERIA,
    "note",
)


def fingerprint(source_id: str, question: str, original: str, edited: str) -> str:
    """The 16-hex sha256 of what a reviewer reads for one item (its mark holds for this text only).

    >>> fingerprint("5733be", "When?", "Built in 1901.", "Built in 1905.")
    '792f65374d910742'
    """
    return text_fingerprint(source_id, question, original, edited)


def _edited_sentence(text: str, original: str, answer: str) -> str:
    """The sentence of the conflict passage that stands where ``original`` stands in the support."""
    from difflib import SequenceMatcher

    best, score = text, -1.0
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        ratio = SequenceMatcher(None, sentence, original).ratio() + contains(sentence, answer)
        if ratio > score:
            best, score = sentence, ratio
    return best


Articles = Mapping[str, Sequence[str]]
"""The paragraphs of every article of one question source, in article order, by title."""
SourceArticles = Mapping[str, Articles]
"""The :data:`Articles` of every question source that rows name, by the row's ``source``."""
_DATED_OR_NUMBERED = re.compile(
    r"\d|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|"
    r"thousand|million|billion|first|second|third|fourth|fifth|tenth|twice|dozen|January|February|March|"
    r"April|May|June|July|August|September|October|November|December)\b",
    re.IGNORECASE,
)
"""A sentence that holds a date or a number: a digit, a number or ordinal word, or a month."""


def conflict_sheet(
    rows: Iterable[dict[str, Any]],
    sample: int | None = None,
    seed: int = 0,
    articles: SourceArticles | None = None,
) -> list[dict]:
    """The blind sheet of the conflicting rows of ``rows``: ``sample`` of them (all by default), shuffled.

    Rows are ordered by ``sha256(f"{seed}:{source_id}")`` and the first ``sample`` taken, so a sample
    depends on each base question alone, not on which other rows a rebuild keeps. With ``articles``
    (by question source), each item also holds its whole edited passage (``passage``) and, as
    ``(paragraph, sentence)`` pairs, every sentence of its article outside the support paragraph that
    holds a date or a number (``article_sentences``).
    """
    items: list[dict] = []
    keys: dict[str, str] = {}
    for row in rows:
        if row["variant"] != "conflicting":
            continue
        texts = {doc["doc_id"]: doc["text"] for doc in row["documents"]}
        original = row["support_spans"][0]["text"]
        conflict = texts[row["conflicting_doc_ids"][0]]
        edited = _edited_sentence(conflict, original, row["conflict_answer"])
        item = {
            "id": row["id"],
            "fingerprint": fingerprint(row["source_id"], row["question"], original, edited),
            "title": row["title"],
            "question": row["question"],
            "original": original,
            "edited": edited,
        }
        if articles is not None:
            item["source"] = row_source(row)
            item["passage"] = conflict
            item["article_sentences"] = article_sentences(
                article_of(row, articles), texts[row["supporting_doc_ids"][0]]
            )
        items.append(item)
        keys[row["id"]] = hashlib.sha256(f"{seed}:{row['source_id']}".encode()).hexdigest()
    if sample is not None and sample > len(items):
        raise EviScopeError(f"--sample {sample} is more than the {len(items)} conflicting rows")
    items = sorted(items, key=lambda item: keys[item["id"]])[:sample]
    return [{"item": n, **item, **dict.fromkeys(CRITERIA, ""), "note": ""} for n, item in enumerate(items, 1)]


def row_source(row: Mapping[str, Any]) -> str:
    """The question source of ``row`` (SQuAD dev for a row of a config that names none)."""
    return str(row.get("source") or DEV.name)


def article_of(row: Mapping[str, Any], articles: SourceArticles) -> Sequence[str]:
    """The paragraphs of ``row``'s article in its own question source; one error line where it has none."""
    source = row_source(row)
    paragraphs = articles.get(source, {}).get(row["title"])
    if paragraphs is None:
        raise EviScopeError(
            f"row {id_text(row['id'])}: article {row['title']!r} is not in the {source} source"
        )
    return paragraphs


def article_sentences(paragraphs: Sequence[str], passage: str) -> list[tuple[int, str]]:
    """``(paragraph number from 1, sentence)`` of every dated or numbered sentence of the paragraphs
    that do not hold ``passage``."""
    return [
        (number, paragraph[start:end])
        for number, paragraph in enumerate(paragraphs, 1)
        if passage not in paragraph
        for start, end in sentence_spans(paragraph)
        if _DATED_OR_NUMBERED.search(paragraph[start:end])
    ]


class SheetFiles(NamedTuple):
    """The files of one sheet: the CSV to fill, the Markdown to read, and the whole articles."""

    csv: Path
    markdown: Path
    articles: Path | None


def write_sheet(items: list[dict], out: Path, articles: SourceArticles | None = None) -> SheetFiles:
    """Write the sheet as ``out.csv`` (to fill) and ``out.md`` (to read), appended to the whole name
    (``review/eviscope-v1.1-conflicts`` gives ``review/eviscope-v1.1-conflicts.csv``), and with
    ``articles`` the whole article of every item as ``out.articles.md``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    csv_path, md_path = out.with_name(out.name + ".csv"), out.with_name(out.name + ".md")
    articles_path = out.with_name(out.name + ".articles.md") if articles is not None else None
    with csv_path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=SHEET_FIELDS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(items)
    lines = [
        "# Conflict passages: blind review sheet",
        "",
        "Mark each item in the CSV `yes` or `no` for " + ", ".join(f"`{c}`" for c in CRITERIA) + ":",
        "",
        "- `same_type`: the edited sentence answers the question with an answer of the same kind as the "
        "original (a person for a person, a year for a year, a count of the same things);",
        "- `believable`: a reader who knows the whole article could believe the edited passage: nothing "
        "in the passage or in the rest of the article contradicts it;",
        "- `fluent`: the edited sentence reads right.",
        "",
    ]
    if articles_path is not None:
        lines += [
            f"Read each item against its whole article (`{articles_path.name}`): below each item are "
            "the edited passage and every other sentence of the article that holds a date or a number.",
            "",
        ]
    for item in items:
        lines += [
            f"## {item['item']}. `{item['id']}`",
            "",
            f"**Article:** {item['title']}",
            "",
            f"**Question:** {item['question']}",
            "",
            f"**Original:** {item['original']}",
            "",
            f"**Edited:** {item['edited']}",
            "",
        ]
        if "passage" in item:
            lines += [f"**Edited passage:** {item['passage']}", ""]
            lines += ["**The article's other sentences with a date or a number:**", ""]
            lines += [f"- [¶{n}] {sentence}" for n, sentence in item["article_sentences"]] or ["- (none)"]
            lines.append("")
    md_path.write_text("\n".join(lines), encoding="utf-8")
    if articles_path is not None and articles is not None:
        write_articles(items, articles, articles_path)
    return SheetFiles(csv_path, md_path, articles_path)


def write_articles(items: Iterable[Mapping[str, Any]], articles: SourceArticles, path: Path) -> None:
    """Write the whole article of every item (by its ``source`` and ``title``), numbered by paragraph."""
    text = ["# The articles of the sheet's items", ""]
    for source, title in sorted({(item["source"], item["title"]) for item in items}):
        text += [f"## {title}", "", f"(question source: {source})", ""]
        text += [f"¶{n}. {paragraph}\n" for n, paragraph in enumerate(articles[source][title], 1)]
    path.write_text("\n".join(text), encoding="utf-8")


def read_sheet(path: Path) -> dict[str, dict[str, bool]]:
    """A filled sheet: row id to ``{criterion: yes?}``; an unfilled or odd mark names its item, a
    repeated id its line (:func:`eviscope.core.sheets.checked_ids`)."""
    return read_marks(path, CRITERIA, "review")


def read_marks(path: Path, criteria: Sequence[str], what: str) -> dict[str, dict[str, bool]]:
    """The yes/no marks of a filled sheet of ``what`` over ``criteria``, by its ``id`` column."""
    marks: dict[str, dict[str, bool]] = {}
    lines = read_sheet_lines(path, criteria, what)
    for _, row_id, row in checked_ids(lines, None, lambda number: f"{path}:{number}"):
        values = {}
        for criterion in criteria:
            mark = (row[criterion] or "").strip().lower()
            if mark not in {"yes", "no", "y", "n"}:
                raise EviScopeError(
                    f"{path}: item {row.get('item')} ({id_text(row['id'])}): {criterion} is {mark!r}, not yes/no"
                )
            values[criterion] = mark.startswith("y")
        marks[row_id] = values
    return marks


def stale_marks(path: Path, rows: Iterable[dict[str, Any]]) -> list[str]:
    """The ids of the items of sheet ``path`` whose text no conflicting row of ``rows`` shows now.

    An item is current when its ``fingerprint`` is that of some conflicting row of the build (the
    same text under a renumbered id still counts); a sheet without fingerprints cannot be checked.
    """
    current = {item["fingerprint"] for item in conflict_sheet(rows)}
    items = [item for _, item in read_sheet_lines(path, (), "review")]
    if items and "fingerprint" not in items[0]:
        raise EviScopeError(
            f"{path}: the sheet has no fingerprint column, so its marks cannot be checked against a "
            "build; write a new sheet with `eviscope review conflicts`"
        )
    return [item["id"] for item in items if item["fingerprint"] not in current]


def agreement(sheets: dict[str, dict[str, dict[str, bool]]]) -> dict:
    """Per sheet, yes counts per criterion and passes; for two or more sheets, Cohen's kappa on shared items."""
    report: dict = {"sheets": {}}
    for name, marks in sheets.items():
        report["sheets"][name] = {
            "items": len(marks),
            **{c: sum(m[c] for m in marks.values()) for c in CRITERIA},
            "pass": sum(all(m.values()) for m in marks.values()),
            "failed_ids": sorted(i for i, m in marks.items() if not all(m.values())),
        }
    pairs = pair_agreement(sheets, CRITERIA)
    if pairs:
        report["pairs"] = pairs
    return report


def pair_agreement(sheets: Mapping[str, Mapping[str, Mapping[str, bool]]], criteria: Sequence[str]) -> dict:
    """For each pair of sheets with items in common: how many, and per criterion the raw agreement and
    Cohen's kappa (to 4 places) on them."""
    from itertools import combinations

    pairs = {}
    for (a, ma), (b, mb) in combinations(sheets.items(), 2):
        shared = sorted(set(ma) & set(mb))
        if shared:
            pairs[f"{a} vs {b}"] = {
                "items": len(shared),
                **{
                    c: {
                        "agreement": round(sum(ma[i][c] == mb[i][c] for i in shared) / len(shared), 4),
                        "kappa": _kappa([ma[i][c] for i in shared], [mb[i][c] for i in shared]),
                    }
                    for c in criteria
                },
            }
    return pairs


def _kappa(a: list[bool], b: list[bool]) -> float | None:
    """Cohen's kappa to 4 places; 1.0 where both raters gave one and the same mark to every item."""
    value = cohen_kappa(a, b)
    return None if value is None else round(value, 4)
