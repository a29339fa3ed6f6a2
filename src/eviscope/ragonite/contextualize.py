"""Evidence contextualization (RAGONITE): give each evidence the document context it lacks.

An evidence cut out of a page loses the words that say what it is about: the page title, the heading
it sits under, the passages around it. The transform prepends that context, one labelled line each,
and ends with the evidence itself, so the retriever and the model see both:

>>> print(contextualize("Set it to 4.", Context(title="Build guide", heading="Memory")))
Title: Build guide
Heading: Memory
Evidence: Set it to 4.

Empty parts are left out, so an evidence without context is returned unchanged:

>>> contextualize("Set it to 4.", Context())
'Set it to 4.'

For SQuAD the page is the article: its title, and the neighbouring paragraphs of the article
(see :func:`squad_context`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from eviscope.core.normalize import tokens

__all__ = ["Context", "contextualize", "neighbours", "squad_context"]


@dataclass(frozen=True)
class Context:
    """What is prepended to one evidence; every part is optional."""

    title: str = ""
    heading: str = ""
    """The nearest heading above the evidence on its page."""
    before: str = ""
    """The evidence just before it on the page (or the previous paragraph of the article)."""
    after: str = ""
    """The evidence just after it (or the next paragraph of the article)."""


def contextualize(evidence: str, context: Context) -> str:
    """The evidence with its context prepended as labelled lines: title, heading, before, after.

    >>> print(contextualize("B.", Context(title="T", before="A.", after="C.")))
    Title: T
    Before: A.
    After: C.
    Evidence: B.
    """
    parts = [
        ("Title", context.title),
        ("Heading", context.heading),
        ("Before", context.before),
        ("After", context.after),
    ]
    lines = [f"{label}: {value}" for label, value in parts if value]
    if not lines:
        return evidence
    return "\n".join([*lines, f"Evidence: {evidence}"])


def neighbours(texts: Sequence[str], index: int) -> tuple[str, str]:
    """The texts just before and just after ``texts[index]`` (``""`` at either end of the page).

    >>> neighbours(["a", "b", "c"], 0), neighbours(["a", "b", "c"], 1)
    (('', 'b'), ('a', 'c'))
    """
    before = texts[index - 1] if index > 0 else ""
    after = texts[index + 1] if index + 1 < len(texts) else ""
    return before, after


def squad_context(paragraphs: Sequence[str], title: str, text: str, with_neighbours: bool = True) -> Context:
    """The context of ``text`` inside a SQuAD article: its title and, optionally, the paragraphs around it.

    ``paragraphs`` are the article's paragraphs in article order (``Paragraph.context`` of
    ``eviscope.suites.eviscope.squad_source`` for one title). ``text`` is found verbatim, or else it is an
    edited paragraph (an EviScope conflict passage) and takes the place of the paragraph it shares the
    most tokens with, so an edited passage gets the same neighbours as its original and its context
    does not tell it apart.

    >>> article = ["Alpha was founded in 1901.", "It moved to Berlin in 1920.", "It closed in 1990."]
    >>> squad_context(article, "Alpha", "It moved to Berlin in 1920.")
    Context(title='Alpha', heading='', before='Alpha was founded in 1901.', after='It closed in 1990.')
    >>> squad_context(article, "Alpha", "It moved to Munich in 1920.").before
    'Alpha was founded in 1901.'
    >>> squad_context(article, "Alpha", "It closed in 1990.", with_neighbours=False)
    Context(title='Alpha', heading='', before='', after='')
    """
    if not with_neighbours or not paragraphs:
        return Context(title=title)
    try:
        index = list(paragraphs).index(text)
    except ValueError:
        words = set(tokens(text))
        overlap = [len(words & set(tokens(p))) for p in paragraphs]
        index = max(range(len(paragraphs)), key=overlap.__getitem__)
    before, after = neighbours(paragraphs, index)
    return Context(title=title, before=before, after=after)
