"""A blind review of the question-irrelevant edits, mixed with real conflicts (contract §2, issue 32).

``eviscope-xl`` shows, in its ``noisy`` and ``insufficient`` rows, a copy of a passage in which a value
that does *not* answer the question was changed (``near_duplicate == "irrelevant_edit"``). Such an
edit must read as well as a conflict edit, and must truly leave the answer alone. A reader told which
items are irrelevant edits would read them looking for that; so the sheet mixes them with real
conflict passages of other quartets, in one shuffled list, each item shown the same way (the question,
a passage and its edited copy, the sentence that changed, the whole article at hand) under an opaque
key. Nothing on the sheet says which kind an item is: not the row id (``q012-noisy`` would say it),
not the variant, not the order. The reader marks each item ``yes`` or ``no``:

- ``fluent``: the edited passage reads right (articles, agreement, number forms);
- ``believable``: a reader of the whole article could believe the edited passage: nothing in it or in
  the rest of the article contradicts it;
- ``stands_alone``: the edited passage makes sense on its own: it opens on no connective, pronoun or
  definite description whose referent was cut away, and cuts no quotation or list;
- ``changes_answer``: a reader who trusts the edited passage would answer the question differently
  from one who trusts the original passage (one answers it and the other does not counts too).

Only the build tells the kinds apart (:func:`sheet_keys`): ``eviscope review agreement SHEET --config
C`` unblinds the marks against the config as built now (:func:`blind_agreement`). An irrelevant edit
*passes* when it is fluent, believable and stands alone and does **not** change the answer; a conflict
passes when it is fluent, believable and stands alone and **does** change it.

The sample is drawn per base question (``sha256(f"{seed}:{source_id}")``), one item per quartet: the
first ``sample`` quartets give their irrelevant edits, alternately the ``noisy`` row's copy of the
support and the ``insufficient`` row's copy of a related passage; the next ``conflicts`` quartets give
their conflict passages. Then all items are shuffled by the seed.
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any, NamedTuple

from eviscope.core.errors import EviScopeError, id_text
from eviscope.core.sentences import sentence_spans
from eviscope.core.sheets import read_sheet_lines
from eviscope.core.stats import text_fingerprint
from eviscope.suites.eviscope.review import (
    SourceArticles,
    article_of,
    article_sentences,
    pair_agreement,
    read_marks,
    row_source,
    write_articles,
)

BLIND_CRITERIA: tuple[str, ...] = ("fluent", "believable", "stands_alone", "changes_answer")
KINDS: tuple[str, ...] = ("irrelevant_edit", "conflict")
"""What an item of the blind sheet is, which only the build knows."""
BLIND_FIELDS: tuple[str, ...] = (
    "item",
    "id",
    "title",
    "question",
    "original_sentence",
    "edited_sentence",
    *BLIND_CRITERIA,
    "note",
)
"""The columns of the blind sheet's CSV; ``id`` is the item's opaque key (:func:`blind_key`)."""


class Pair(NamedTuple):
    """A passage and its edited copy as one row shows them."""

    row_id: str
    kind: str
    original: str
    edited: str


def blind_key(source_id: str, question: str, texts: Iterable[str]) -> str:
    """The item's key: the 16-hex fingerprint of its question and its two passages, in sorted order (so
    that it is computed the same with or without knowing which passage is the copy). It names no row,
    variant or kind, and a rebuild that changes either passage leaves a mark made on it stale.

    >>> blind_key("5733be", "When?", ["Built in 1905.", "Built in 1901."])
    '792f65374d910742'
    """
    return text_fingerprint(source_id, question, *sorted(texts))


def _kind(row: Mapping[str, Any]) -> str | None:
    if row["variant"] == "conflicting":
        return "conflict"
    if row.get("near_duplicate") == "irrelevant_edit" and row["variant"] in {"noisy", "insufficient"}:
        return "irrelevant_edit"
    return None


def _texts(row: Mapping[str, Any]) -> tuple[str, str]:
    """The row's passage and its edited copy, in an order fixed by the row alone (not yet oriented)."""
    texts = {doc["doc_id"]: doc["text"] for doc in row["documents"]}
    if row["variant"] == "conflicting":
        return texts[row["supporting_doc_ids"][0]], texts[row["conflicting_doc_ids"][0]]
    if row["variant"] == "noisy":
        if len(row["supporting_doc_ids"]) != 2:
            raise EviScopeError(
                f"row {id_text(row['id'])}: a noisy row with an irrelevant edit cites two documents"
            )
        return texts[row["supporting_doc_ids"][0]], texts[row["supporting_doc_ids"][1]]
    same = [doc["text"] for doc in row["documents"] if doc["title"] == row["title"]]
    if len(same) != 2:
        raise EviScopeError(
            f"row {id_text(row['id'])}: an insufficient row with an irrelevant edit shows two passages of "
            f"its article, not {len(same)}"
        )
    return same[0], same[1]


def sheet_keys(rows: Iterable[Mapping[str, Any]]) -> dict[str, tuple[str, str]]:
    """Every blind key of a build: key to ``(row id, kind)`` of each conflict and irrelevant edit."""
    keys: dict[str, tuple[str, str]] = {}
    for row in rows:
        kind = _kind(row)
        if kind is not None:
            keys[blind_key(row["source_id"], row["question"], _texts(row))] = (row["id"], kind)
    return keys


def _oriented(row: Mapping[str, Any], articles: SourceArticles) -> Pair:
    """The row's pair, original first: for an insufficient row, the one of its two passages that its
    article holds word for word is the original (the row's fields do not say which is the copy)."""
    first, second = _texts(row)
    if row["variant"] == "insufficient":
        paragraphs = article_of(row, articles)
        held = [any(text in paragraph for paragraph in paragraphs) for text in (first, second)]
        if held == [False, True]:
            first, second = second, first
        elif held != [True, False]:
            raise EviScopeError(
                f"row {id_text(row['id'])}: cannot tell its passage from the edited copy "
                f"({'both' if all(held) else 'neither'} found word for word in the article)"
            )
    return Pair(row["id"], _kind(row) or "", first, second)


def changed_sentences(original: str, edited: str) -> tuple[str, str]:
    """The first sentence of ``edited`` that ``original`` does not hold word for word, and the sentence
    of ``original`` most like it (its place before the edit).

    >>> changed_sentences("A came. It was built in 1901. B left.", "It was built in 1905. B left.")
    ('It was built in 1901.', 'It was built in 1905.')
    """
    sentences = [edited[s:e] for s, e in sentence_spans(edited)]
    new = next((s for s in sentences if s not in original), None)
    if new is None:
        raise EviScopeError(f"no sentence of the edited passage differs from the original: {edited[:60]!r}")
    old = max(
        (original[s:e] for s, e in sentence_spans(original)),
        key=lambda s: SequenceMatcher(None, s, new, autojunk=False).ratio(),
    )
    return old, new


def _order(seed: int, row: Mapping[str, Any]) -> str:
    return hashlib.sha256(f"{seed}:{row['source_id']}".encode()).hexdigest()


def blind_sheet(
    rows: Iterable[dict[str, Any]], sample: int, conflicts: int, seed: int, articles: SourceArticles
) -> list[dict]:
    """The blind sheet: ``sample`` irrelevant edits and ``conflicts`` conflict passages, each of its own
    quartet, shuffled (see the module's docstring for the draw). Each item holds what the reader sees
    and, apart from the sheet's columns, ``row_id`` and ``kind`` (never written to the sheet)."""
    quartets: dict[str, dict[str, dict[str, Any]]] = {}
    for row in rows:
        if _kind(row) is not None:
            quartets.setdefault(row["quartet_id"], {})[row["variant"]] = row
    drawable = [q for q in quartets.values() if {"noisy", "insufficient", "conflicting"} <= q.keys()]
    if sample + conflicts > len(drawable):
        raise EviScopeError(
            f"{sample} irrelevant edits and {conflicts} conflicts need {sample + conflicts} quartets with "
            f"both; the config has {len(drawable)}"
        )
    drawable.sort(key=lambda q: _order(seed, q["conflicting"]))
    chosen = [q["noisy" if n % 2 == 0 else "insufficient"] for n, q in enumerate(drawable[:sample])] + [
        q["conflicting"] for q in drawable[sample : sample + conflicts]
    ]
    items = []
    for row in chosen:
        pair = _oriented(row, articles)
        old, new = changed_sentences(pair.original, pair.edited)
        key = blind_key(row["source_id"], row["question"], (pair.original, pair.edited))
        items.append(
            {
                "id": key,
                "title": row["title"],
                "question": row["question"],
                "original_sentence": old,
                "edited_sentence": new,
                "original": pair.original,
                "edited": pair.edited,
                "source": row_source(row),
                "article_sentences": article_sentences(article_of(row, articles), pair.original),
                "row_id": row["id"],
                "kind": pair.kind,
            }
        )
    items.sort(key=lambda item: hashlib.sha256(f"{seed}:item:{item['id']}".encode()).hexdigest())
    return [
        {"item": n, **item, **dict.fromkeys(BLIND_CRITERIA, ""), "note": ""}
        for n, item in enumerate(items, 1)
    ]


INSTRUCTIONS = """\
# Edited passages: blind review sheet

Each item shows a question, a passage of a Wikipedia article, and an **edited copy** of that passage
in which one value (a year, a date, a number, …) was changed. Some edits change the answer to the
question, some change another fact; the sheet does not say which, and the items are in no order.
Read each item against its whole article (`{articles}`; the article's other sentences with a date or
a number are listed under each item) and mark it in the CSV (`{csv}`), `yes` or `no` in each column:

- `fluent`: the edited passage reads right (articles, agreement, number forms, punctuation);
- `believable`: a reader who knows the whole article could believe the edited passage: nothing in
  the passage or in the rest of the article contradicts it (dates in order, counts that add up, the
  same fact stated elsewhere);
- `stands_alone`: the edited passage makes sense on its own: it does not open on a connective
  ("Besides", "However"), a pronoun or a description whose referent was cut away, and it does not cut
  a quotation or a list in the middle;
- `changes_answer`: a reader who trusts the edited passage would answer the question differently
  from a reader who trusts the original passage (`yes` also where one of the two answers the
  question and the other does not; `no` where both give the same answer or neither answers it).

Judge each item on its own. Use `note` for any doubt, and for every `no` (or `yes` in
`changes_answer` that you hesitated on) say why, naming the article paragraph (¶) you rely on. Do
not change the `item` or `id` columns.
"""


def write_blind_sheet(items: list[dict], out: Path, articles: SourceArticles) -> tuple[Path, Path, Path]:
    """Write ``out.csv`` (to fill), ``out.md`` (to read: the instructions and every item) and
    ``out.articles.md`` (the whole articles); nothing written names an item's row or kind."""
    out.parent.mkdir(parents=True, exist_ok=True)
    csv_path, md_path = out.with_name(out.name + ".csv"), out.with_name(out.name + ".md")
    articles_path = out.with_name(out.name + ".articles.md")
    with csv_path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=BLIND_FIELDS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(items)
    lines = [INSTRUCTIONS.format(articles=articles_path.name, csv=csv_path.name)]
    for item in items:
        lines += [
            f"## {item['item']}. `{item['id']}`",
            "",
            f"**Article:** {item['title']}",
            "",
            f"**Question:** {item['question']}",
            "",
            f"**Changed sentence, original:** {item['original_sentence']}",
            "",
            f"**Changed sentence, edited:** {item['edited_sentence']}",
            "",
            f"**Original passage:** {item['original']}",
            "",
            f"**Edited passage:** {item['edited']}",
            "",
            "**The article's other sentences with a date or a number:**",
            "",
            *([f"- [¶{n}] {sentence}" for n, sentence in item["article_sentences"]] or ["- (none)"]),
            "",
        ]
    md_path.write_text("\n".join(lines), encoding="utf-8")
    write_articles(items, articles, articles_path)
    return csv_path, md_path, articles_path


def is_blind_sheet(path: Path) -> bool:
    """Whether the CSV at ``path`` is a blind sheet (its header has ``changes_answer``); a file that
    cannot be read is no blind sheet (the conflict sheets' reader names what is wrong with it)."""
    try:
        read_sheet_lines(path, ("changes_answer",), "blind review")
    except EviScopeError:
        return False
    return True


def read_blind_sheet(path: Path) -> dict[str, dict[str, bool]]:
    """A filled blind sheet: key to ``{criterion: yes?}``; an unfilled or odd mark names its item."""
    return read_marks(path, BLIND_CRITERIA, "blind review")


def passes(kind: str, marks: Mapping[str, bool]) -> bool:
    """An item passes when it reads well and its ``changes_answer`` is what its kind must be: no for
    an irrelevant edit, yes for a conflict."""
    reads = marks["fluent"] and marks["believable"] and marks["stands_alone"]
    return reads and marks["changes_answer"] == (kind == "conflict")


def blind_agreement(
    sheets: Mapping[str, Mapping[str, Mapping[str, bool]]], keys: Mapping[str, tuple[str, str]]
) -> dict:
    """Per sheet and kind, yes counts per criterion, passes and the failed row ids; for two or more
    sheets, agreement and Cohen's kappa per criterion on shared items. Every key of every sheet must
    be one of the build's (``keys``, :func:`sheet_keys`), else the marks are stale: an error."""
    report: dict = {"sheets": {}}
    for name, marks in sheets.items():
        stale = [key for key in marks if key not in keys]
        if stale:
            shown = ", ".join(stale[:8]) + (f" and {len(stale) - 8} more" if len(stale) > 8 else "")
            raise EviScopeError(
                f"{name}: {len(stale)} marked item(s) are not edits of the config as built now "
                f"(stale marks: {shown}); review them again"
            )
        per_kind = {}
        for kind in KINDS:
            mine = {keys[key][0]: m for key, m in marks.items() if keys[key][1] == kind}
            per_kind[kind] = {
                "items": len(mine),
                **{c: sum(m[c] for m in mine.values()) for c in BLIND_CRITERIA},
                "pass": sum(passes(kind, m) for m in mine.values()),
                "failed_ids": sorted(i for i, m in mine.items() if not passes(kind, m)),
            }
        report["sheets"][name] = per_kind
    pairs = pair_agreement(sheets, BLIND_CRITERIA)
    if pairs:
        report["pairs"] = pairs
    return report


def draw_summary(items: Sequence[Mapping[str, Any]]) -> str:
    """How many items of each kind a sheet holds, for the writer's one line (never for the reader)."""
    edits = sum(item["kind"] == "irrelevant_edit" for item in items)
    return f"{edits} irrelevant edits and {len(items) - edits} conflicts"
