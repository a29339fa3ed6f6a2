"""Matching the ForceBench drafting rules (:data:`~eviscope.suites.forcebench.rules.RULES`) to claims.

``find_edits`` applies every rule to a sentence: a match right after a negation, in a sentence the
rule vetoes, or one the rule does not accept is left alone; the rest become an :class:`Edit` (the
limiter, its stronger form and the raised sentence). ``licenses`` and ``licenses_raised`` ask the
rule's declared ``licensing`` whether a cited span warrants the claim's marker, or already its
raised form.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from eviscope.core.normalize import contains, norm
from eviscope.suites.forcebench.licensing import NEGATION
from eviscope.suites.forcebench.rules import RULES, Rule

__all__ = ["Edit", "find_edits", "licenses", "licenses_raised", "raising_axes"]


@dataclass(frozen=True)
class Edit:
    """One application of a rule to a sentence."""

    rule: Rule
    start: int
    end: int
    old: str
    new: str
    raised: str
    severity: int
    match: re.Match[str] = field(compare=False, repr=False)
    """The rule's match in the sentence (its groups hold the anchor: the number, year, population…)."""


def licenses(span: str, edit: Edit) -> bool:
    """True when ``span`` warrants the limiter that ``edit`` raises (its rule's ``licensing``).

    >>> edit = next(find_edits("Coffee may reduce fatigue."))
    >>> licenses("Studies show coffee might reduce fatigue in adults.", edit)
    True
    >>> licenses("Coffee reduces fatigue.", edit)
    False
    """
    return edit.rule.licensing.calibrated(span, edit.match)


def licenses_raised(span: str, edit: Edit) -> bool:
    """True when ``span`` already warrants ``edit``'s raised form (its raised marker, or the raised
    claim word for word).

    >>> edit = next(find_edits("Coffee may reduce fatigue."))
    >>> licenses_raised("Coffee might reduce fatigue; it will not cure it.", edit)
    False
    >>> licenses_raised("Coffee will reduce fatigue.", edit)
    True
    """
    return edit.rule.licensing.raised(span, edit.match) or contains(span, edit.raised)


def _apply(rule: Rule, sentence: str, m: re.Match[str]) -> Edit | None:
    if NEGATION.search(sentence[: m.start()]) or (rule.veto is not None and rule.veto.search(sentence)):
        return None
    if rule.veto_before is not None and rule.veto_before.search(sentence, max(0, m.start() - 25), m.start()):
        return None
    if rule.accept is not None and not rule.accept(m):
        return None
    new = rule.replace(m)
    head, tail = sentence[: m.start()], sentence[m.end() :]
    if m.start() == 0 or head.endswith((". ", "! ", "? ")):
        if new:
            new = new[0].upper() + new[1:]
        else:
            tail = tail.lstrip(" ,")
            tail = tail[:1].upper() + tail[1:]
    elif not new and head.endswith(" ") and tail.startswith(" "):
        tail = tail[1:]
    raised = head + new + tail
    return Edit(rule, m.start(), m.end(), m.group(0), new, raised, rule.severity_of(m), m)


def find_edits(sentence: str, axis: str | None = None) -> Iterator[Edit]:
    """Every force-raising rewrite of ``sentence`` (on ``axis`` only, when given), in rule order.

    >>> [e.raised for e in find_edits("Coffee may reduce fatigue.")]
    ['Coffee will reduce fatigue.']
    >>> [e.raised for e in find_edits("It sits around 1.5 to 2.0.", "numeric")]
    ['It sits 1.5 to 2.0.', 'It sits around 2.0.']
    """
    for rule in RULES:
        if axis is not None and rule.axis != axis:
            continue
        for m in rule.pattern.finditer(sentence):
            edit = _apply(rule, sentence, m)
            if edit is not None:
                yield edit


def raising_axes(calibrated: str, raised: str) -> set[str]:
    """The axes with a rule that rewrites ``calibrated`` into ``raised`` (compared after ``norm``)."""
    target = norm(raised)
    return {edit.rule.axis for edit in find_edits(calibrated) if norm(edit.raised) == target}
