"""Evidence contextualization: the transform carries the page title, heading and neighbours."""

from __future__ import annotations

from pathlib import Path

from eviscope.core.sources import resolve
from eviscope.ragonite.contextualize import Context, contextualize, squad_context
from eviscope.suites.eviscope.squad_source import load_squad


def test_contextualized_text_carries_title_heading_neighbours_and_ends_with_the_evidence() -> None:
    text = contextualize("Set it to 4.", Context("Build guide", "Memory", "Open the menu.", "Then reboot."))
    assert text.splitlines() == [
        "Title: Build guide",
        "Heading: Memory",
        "Before: Open the menu.",
        "After: Then reboot.",
        "Evidence: Set it to 4.",
    ]


def test_squad_paragraph_gets_article_title_and_neighbouring_paragraphs(squad_path: Path) -> None:
    squad = load_squad(resolve("squad", str(squad_path)))
    title = squad.paragraphs[0].title
    article = [p.context for p in squad.paragraphs if p.title == title]
    text = contextualize(article[1], squad_context(article, title, article[1]))
    assert f"Title: {title}" in text
    assert f"Before: {article[0]}" in text and f"After: {article[2]}" in text
    assert text.endswith(f"Evidence: {article[1]}")
    first = squad_context(article, title, article[0])
    assert first.before == "" and first.after == article[1]


def test_edited_squad_paragraph_gets_the_neighbours_of_its_original() -> None:
    article = ["Alpha began in 1901.", "It moved to Berlin in 1920 with staff.", "It closed in 1990."]
    edited = squad_context(article, "Alpha", "It moved to Munich in 1920 with staff.")
    assert edited == squad_context(article, "Alpha", article[1])
