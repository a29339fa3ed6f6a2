"""Where each question source's year, number and date answers are lost on the way to ``eviscope-xl``.

    python scripts/source_funnel.py [SOURCE ...]      # default: every source of QUESTION_SOURCES

Reads each source as the builder does (its flag's environment variable, else its hub dataset) and
follows every question whose shortest answer has the form of a year, a number or a date (the forms
``eviscope-xl`` edits) through the builder's own steps, with ``eviscope-xl``'s construction: typed by
spaCy (``not_typed``), the cheap checks (``eligibility``), an alternative that passes the six lints
and a related passage (``candidates``), the rules of believability, the conflict window, and the
copies with a question-irrelevant edit (``near_duplicates``). It prints, per source, how many stop at
each step and the commonest reasons; what is left is what the draw chooses from (before the per-article
cap, the duplicate checks and the per-source minimum of ``configs.MIN_SOURCE_QUARTETS``).
"""

from __future__ import annotations

import sys
from collections import Counter

from eviscope.builders.eviscope.alternatives import NEAR_MOVES, _NamePool
from eviscope.builders.eviscope.answer_forms import answer_form
from eviscope.builders.eviscope.answer_types import article_labels, paragraph_entities
from eviscope.builders.eviscope.believability import ALL_RULES, shared_believability
from eviscope.builders.eviscope.candidates import _make_candidate
from eviscope.builders.eviscope.configs import DEFAULT_SEED
from eviscope.builders.eviscope.conflict_lints import conflict_cues_in
from eviscope.builders.eviscope.eligibility import Rejection, _aliases, _cheap_checks, typed_paragraphs
from eviscope.builders.eviscope.near_duplicates import near_duplicates
from eviscope.builders.eviscope.retrieval import _RelatedPassages
from eviscope.core.normalize import tokens
from eviscope.suites.eviscope.squad_source import QUESTION_SOURCES, load_question_source

STEPS = (
    "not typed",
    "cheap checks",
    "no alternative, lints or related passage",
    "no believable alternative",
    "no conflict window",
    "no question-irrelevant copy",
    "eligible with copies",
)


def funnel(name: str, seed: int = DEFAULT_SEED) -> tuple[Counter[str], Counter[str]]:
    """How many year, number and date answers of source ``name`` stop at each of :data:`STEPS`, and why
    (by step and reason)."""
    squad = load_question_source(name, None)
    typed = typed_paragraphs(squad)
    entities = paragraph_entities(squad, iter, typed)
    known = article_labels(squad, entities)
    cued = {i for i, p in enumerate(squad.paragraphs) if conflict_cues_in(p.context)}
    names, related, checker = (
        _NamePool(squad, entities),
        _RelatedPassages(squad),
        shared_believability(squad, entities),
    )
    steps: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    for question in squad.questions:
        core = min(_aliases(question), key=lambda a: (len(tokens(a)), len(a)))
        if answer_form(core) not in ("year", "number", "date"):
            continue
        if typed is not None and question.paragraph not in typed:
            steps[STEPS[0]] += 1
            continue
        title = squad.paragraphs[question.paragraph].title
        checked = _cheap_checks(squad, question, cued, entities[question.paragraph], known[title])
        if isinstance(checked, Rejection):
            steps[STEPS[1]] += 1
            reasons[f"{STEPS[1]}: {checked}"] += 1
            continue
        made = _make_candidate(squad, checked, seed, names, related, checker, NEAR_MOVES, ALL_RULES)
        if isinstance(made, Rejection):
            steps[STEPS[2]] += 1
            reasons[f"{STEPS[2]}: {made}"] += 1
        elif not made.believable:
            steps[STEPS[3]] += 1
            reasons[f"{STEPS[3]}: {made.unbelievable}"] += 1
        elif made.window is None:
            steps[STEPS[4]] += 1
        elif near_duplicates(squad, checker, made, ALL_RULES, seed) is None:
            steps[STEPS[5]] += 1
        else:
            steps[STEPS[6]] += 1
    return steps, reasons


def main(argv: list[str]) -> None:
    for name in argv or list(QUESTION_SOURCES):
        steps, reasons = funnel(name)
        print(f"{name}: {sum(steps.values())} year, number and date answers")
        for step in STEPS:
            print(f"  {step}: {steps[step]}")
        for reason, n in reasons.most_common(6):
            print(f"    {n} {reason}")


if __name__ == "__main__":
    main(sys.argv[1:])
