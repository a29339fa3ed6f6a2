"""Why a year or date question of an EviScope question source is not drawn: its eligibility, then
the rule of believability that rejects each alternative given (build-time: it needs the ``build`` extra and reads
the source from its variable, e.g. ``$EVISCOPE_SQUAD_TRAIN``).

The cheap checks come first in the builder; past them, each alternative is read against the whole
article under every rule (:data:`eviscope.builders.eviscope.believability.RULES`), with the sentence
that rules it out. The paper's own examples (docs/eviscope-question-sources.md):

    python scripts/why_not_drawn.py squad-train 56d4f9902ccc5a1400d833c0 2008 2007 2009 2010
    python scripts/why_not_drawn.py squad-train 56be85543aeaaa14008c9063 "the late 1990s" \\
        "the late 1980s" "the late 2000s" "the early 1990s" "the mid-2000s"
"""

from __future__ import annotations

import argparse

from eviscope.builders.eviscope.answer_types import article_labels, paragraph_entities
from eviscope.builders.eviscope.believability import Answer, Believability
from eviscope.builders.eviscope.conflict_lints import conflict_cues_in
from eviscope.builders.eviscope.eligibility import _cheap_checks, typed_paragraphs
from eviscope.suites.eviscope.squad_source import QUESTION_SOURCES, load_question_source


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("source", choices=list(QUESTION_SOURCES))
    parser.add_argument("question_id")
    parser.add_argument("core", help="the answer as the passage writes it (e.g. 'the late 1990s')")
    parser.add_argument("alternatives", nargs="*", help="alternatives to read against the article")
    args = parser.parse_args()
    squad = load_question_source(args.source, None)
    question = next((q for q in squad.questions if q.id == args.question_id), None)
    if question is None:
        raise SystemExit(f"{args.question_id}: not a question of {args.source}")
    paragraph = squad.paragraphs[question.paragraph]
    typed = typed_paragraphs(squad)
    entities = paragraph_entities(squad, iter, typed)
    cued = {i for i, p in enumerate(squad.paragraphs) if conflict_cues_in(p.context)}
    checked = _cheap_checks(
        squad, question, cued, entities[question.paragraph], article_labels(squad, entities)[paragraph.title]
    )
    eligibility = "eligible" if hasattr(checked, "core") else checked
    print(f"{question.question!r} ({paragraph.title}): {eligibility}")
    start = paragraph.context.find(args.core)
    if start < 0:
        raise SystemExit(f"{args.core!r} is not in the question's passage")
    kind = "year" if args.core.isdigit() else "date"
    answer = Answer(question.paragraph, start, args.core, kind, question.question)
    believability = Believability(squad, entities)
    for alternative in args.alternatives:
        found = believability.finding(answer, alternative)
        verdict = "passes every rule" if found is None else f"{found.rule}: {found.sentence}"
        print(f"  {args.core!r} -> {alternative!r}: {verdict}")


if __name__ == "__main__":
    main()
