"""Evidence contextualization of EviScope rows (RAGONITE on SQuAD), with the answer-leak guard.

Every document of an EviScope row is a SQuAD paragraph, or an edited one (a conflict passage). Its
context is its article's title and the paragraphs just before and after it in the article
(:func:`~eviscope.ragonite.contextualize.squad_context`), prepended by
:func:`~eviscope.ragonite.contextualize.contextualize`. Only ``text`` changes: doc ids name the
evidence, so gold ids, citations and support spans stay valid and a contextualized run can be
compared row by row with a raw one.

**The leak guard.** A neighbouring paragraph can hold the gold answer: it would make an
``insufficient`` row answerable and give a ``noisy`` row a second, unlabelled support. So a document
gets no neighbours (its title only) when either neighbour would answer a row that shows it: it
contains a gold alias (contract §1 normalization), or fails the leak check
(:func:`~eviscope.suites.eviscope.leaks.leak`: ranges split, number words and percentages read, and,
for a neighbour of the question's own article, no sentence about the question holding a value of
the gold's type). The decision is per document, over all rows given, so one
doc id keeps one text across a config (as the build checks) and the text does not depend on which
rows a run is limited to.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from eviscope.core.normalize import contains
from eviscope.ragonite.contextualize import Context, contextualize, squad_context
from eviscope.suites.eviscope.leaks import leak

if TYPE_CHECKING:
    from eviscope.suites.eviscope.squad_source import Squad

__all__ = [
    "TRANSFORM",
    "ContextReport",
    "contextualize_from_squad",
    "contextualize_rows",
    "source_articles",
    "squad_articles",
]

TRANSFORM = (
    "title + neighbouring paragraphs; title only where a neighbour holds a gold alias or fails the leak check"
)
"""What :func:`contextualize_rows` does, as recorded in manifests and build reports."""

Articles = Mapping[str, Sequence[str]]
"""SQuAD article title → its paragraphs in article order."""


def squad_articles(squad: Squad) -> dict[str, list[str]]:
    """The paragraphs of every SQuAD article, in article order, by title."""
    articles: dict[str, list[str]] = {}
    for paragraph in squad.paragraphs:
        articles.setdefault(paragraph.title, []).append(paragraph.context)
    return articles


def source_articles(
    rows: Iterable[Mapping[str, Any]], squad_location: str | None
) -> dict[str, dict[str, list[str]]]:
    """:func:`squad_articles` of every question source that ``rows`` name, by source: SQuAD dev from
    ``squad_location``, else ``$EVISCOPE_SQUAD``, else the hub; another source from its variable, else
    its hub dataset."""
    from eviscope.suites.eviscope.squad_source import DEV, SQUAD, load_question_source, load_squad

    names = dict.fromkeys(str(row.get("source") or DEV.name) for row in rows)
    return {
        name: squad_articles(
            load_squad(SQUAD.resolve(squad_location))
            if name == DEV.name
            else load_question_source(name, None)
        )
        for name in names
    }


@dataclass(frozen=True)
class ContextReport:
    """How many documents were contextualized, and which ones the guard left without neighbours."""

    transform: str
    documents: int
    with_neighbours: int
    without_neighbours: tuple[str, ...]
    """Doc ids whose neighbours hold a gold alias of a row that shows them (title only)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def contextualize_rows(
    rows: Sequence[Mapping[str, Any]], articles: Articles
) -> tuple[list[dict[str, Any]], ContextReport]:
    """Copies of ``rows`` whose document texts carry their article title and (guarded) neighbours.

    >>> article = ["Alpha began in 1901.", "It moved in 1920.", "It closed in 1990."]
    >>> row = {"question": "When did Alpha begin?", "title": "Alpha", "answers": ["1901"],
    ...        "documents": [{"doc_id": "d", "title": "Alpha", "text": article[1]}]}
    >>> rows, report = contextualize_rows([row], {"Alpha": article})
    >>> print(rows[0]["documents"][0]["text"])
    Title: Alpha
    Evidence: It moved in 1920.
    >>> report.without_neighbours
    ('d',)
    """
    contexts: dict[str, Context] = {}
    asked: dict[str, set[tuple[str, tuple[str, ...], bool]]] = {}
    for row in rows:
        for doc in row["documents"]:
            doc_id = str(doc["doc_id"])
            same_article = doc["title"] == row["title"]
            asked.setdefault(doc_id, set()).add((row["question"], tuple(row["answers"]), same_article))
            if doc_id not in contexts:
                paragraphs = articles.get(doc["title"], ())
                contexts[doc_id] = squad_context(paragraphs, doc["title"], doc["text"])

    def answers(near: str, doc_id: str) -> bool:
        return bool(near) and any(
            any(contains(near, alias) for alias in aliases) or leak(question, aliases, near, same_article)
            for question, aliases, same_article in asked[doc_id]
        )

    guarded = sorted(
        doc_id
        for doc_id, context in contexts.items()
        if answers(context.before, doc_id) or answers(context.after, doc_id)
    )
    for doc_id in guarded:
        contexts[doc_id] = Context(title=contexts[doc_id].title)
    out = []
    for row in rows:
        new = copy.deepcopy(dict(row))
        for doc in new["documents"]:
            doc["text"] = contextualize(doc["text"], contexts[str(doc["doc_id"])])
        out.append(new)
    report = ContextReport(TRANSFORM, len(contexts), len(contexts) - len(guarded), tuple(guarded))
    return out, report


def contextualize_from_squad(
    rows: Sequence[Mapping[str, Any]], squad_location: str | None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``rows`` contextualized from their question sources (SQuAD dev from ``squad_location``, else
    ``$EVISCOPE_SQUAD``, else the hub; another source of a row's ``source`` from its variable, else its
    hub dataset), each row within its own source's articles, and what a run manifest records about it
    (the copies, their checksums and the :class:`ContextReport`)."""
    from eviscope.suites.eviscope.squad_source import DEV, SQUAD, load_question_source, load_squad

    ref = SQUAD.resolve(squad_location)
    squad = load_squad(ref)
    names = list(dict.fromkeys(str(row.get("source") or DEV.name) for row in rows))
    squads = {name: squad if name == DEV.name else load_question_source(name, None) for name in names}
    done: dict[int, dict[str, Any]] = {}
    reports = []
    for name in names:
        part = [i for i, row in enumerate(rows) if str(row.get("source") or DEV.name) == name]
        out, report = contextualize_rows([rows[i] for i in part], squad_articles(squads[name]))
        done.update(zip(part, out, strict=True))
        reports.append(report)
    merged = (
        ContextReport(
            reports[0].transform,
            sum(r.documents for r in reports),
            sum(r.with_neighbours for r in reports),
            tuple(d for r in reports for d in r.without_neighbours),
        )
        if reports
        else contextualize_rows([], {})[1]
    )
    recorded = {"squad": ref.location, "squad_checksum": squad.checksum, **merged.to_dict()}
    if set(names) - {DEV.name}:
        recorded["sources"] = {name: squads[name].checksum for name in names}
    return [done[i] for i in range(len(rows))], recorded
