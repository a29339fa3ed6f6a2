"""The six constraints on an EviScope conflict passage (contract §2), one named lint function each.

``eviscope-v1.1`` conflict passages pass all six; the build runs every lint on every ``v1`` and
``v1.1`` conflict passage and reports the results per row. Each lint takes a :class:`ConflictCase`
and returns a :class:`LintResult` whose ``reason`` says what failed.

A repaired passage is made on the support passage or, where the support holds a conflict cue outside
the answer's sentences, on :func:`without_cue_sentences` of it (the support less its whole sentences
that hold a cue), so that constraint 6 can hold; lint 1 accepts exactly these two bases and nothing
else, so a :class:`ConflictCase` built from a dataset row (support, span, conflict passage) is
checked with no extra input.

>>> case = ConflictCase(
...     question="When did the Normans conquer England?",
...     answers=("1066", "in 1066"),
...     support_text="The Normans arrived in 1066. They built castles.",
...     support_span="The Normans arrived in 1066.",
...     conflict_text="The Normans arrived in 1071. They built castles.",
...     conflict_answer="1071",
... )
>>> all(result.ok for result in run_lints(case).values())
True
>>> lint_no_conflict_cue(case._replace(conflict_text=case.conflict_text + " However, 1066 is disputed."))
LintResult(ok=False, reason="conflict cue(s) 'however', 'disputed' in the passage")
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

from eviscope.builders.eviscope.answer_forms import FORMS, answer_form, number_value
from eviscope.builders.eviscope.surface_types import same_type
from eviscope.core.normalize import QUESTION_WORDS, contains, norm, tokens
from eviscope.core.sentences import sentence_spans

CONFLICT_CUES: tuple[str, ...] = (
    "however",
    "contrary",
    "incorrect",
    "incorrectly",
    "actually",
    "in fact",
    "in reality",
    "disputed",
    "dispute",
    "disputes",
    "some sources",
    "other sources",
    "other accounts",
    "reportedly",
    "allegedly",
    "supposedly",
    "purportedly",
    "false",
    "falsely",
    "not true",
    "mistaken",
    "mistakenly",
    "erroneous",
    "erroneously",
    "contradict",
    "contradicts",
    "contradicted",
    "conflicting",
)
"""Words and phrases that announce a contradiction instead of stating one (constraint 6).

Matched with :func:`eviscope.core.normalize.contains`, so on whole normalized words: ``falsehood`` and
``disputedly`` are not cues, ``In fact,`` is. A repaired conflict passage must state the alternative
answer as plainly as the support states the original, so a model has to notice the contradiction
from the content alone."""


class ConflictCase(NamedTuple):
    """What the lints look at: a base question, its support, and one conflict passage."""

    question: str
    answers: tuple[str, ...]
    """The gold aliases."""
    support_text: str
    support_span: str
    """The answer-bearing sentence(s) of the support passage, verbatim."""
    conflict_text: str
    conflict_answer: str


class LintResult(NamedTuple):
    ok: bool
    reason: str = ""


def substituted_phrase(support_text: str, conflict_text: str, new: str) -> str | None:
    """The phrase of ``support_text`` that ``new`` replaced, when that one replacement is the whole edit.

    >>> substituted_phrase("Won in 1901, aged 40.", "Won in 1905, aged 40.", "1905")
    '1901'
    >>> substituted_phrase("Won in 1901.", "Won in 1905. Or not.", "1905") is None
    True
    """
    if not new:
        return None
    for match in re.finditer(re.escape(new), conflict_text):
        prefix, suffix = conflict_text[: match.start()], conflict_text[match.end() :]
        if len(prefix) + len(suffix) >= len(support_text):
            continue
        if not (support_text.startswith(prefix) and support_text.endswith(suffix)):
            continue
        old = support_text[len(prefix) : len(support_text) - len(suffix)]
        on_word_boundaries = not (prefix[-1:].isalnum() or suffix[:1].isalnum())
        if old == old.strip() and old and on_word_boundaries:
            return old
    return None


def lint_grammatical_substitution(case: ConflictCase) -> LintResult:
    """1. The edit replaces the answer with a phrase of the same form and leaves the rest intact.

    The conflict passage must equal its *base* with exactly one phrase replaced by
    ``conflict_answer``. The base is the support passage or, where the support holds a conflict cue,
    :func:`without_cue_sentences` of it: the support less the whole sentences that hold a cue,
    none of which may overlap ``support_span`` (the answer's sentences are kept whole). Nothing else
    may be removed, so a passage that drops the answer's sentence or any text without a cue fails.
    The replaced phrase and ``conflict_answer`` must have the same form (year, number, date or name; see
    :mod:`eviscope.builders.eviscope.answer_forms`), and an acronym in parentheses right after it must not
    still spell the replaced phrase ("The American Football Conference (UMC)").

    >>> support = "It opened in 1932. However, tolls were disputed. It was busy."
    >>> case = ConflictCase("When did it open?", ("1932",), support, "It opened in 1932.",
    ...                     "It opened in 1938. It was busy.", "1938")
    >>> lint_grammatical_substitution(case)
    LintResult(ok=True, reason='')
    >>> lint_grammatical_substitution(case._replace(conflict_text="It opened in 1938.")).ok
    False
    """
    old = substituted_phrase(case.support_text, case.conflict_text, case.conflict_answer)
    excerpt = _cue_free_base(case)
    if (old is None or answer_form(old) not in FORMS) and isinstance(excerpt, str):
        old = substituted_phrase(excerpt, case.conflict_text, case.conflict_answer) or old
    if old is None:
        base = (
            "the support" if excerpt is None else "the support (less its sentences that hold a conflict cue)"
        )
        why = f" ({excerpt.reason})" if isinstance(excerpt, LintResult) else ""
        return LintResult(
            False, f"the passage is not {base} with one phrase replaced by conflict_answer{why}"
        )
    old_form, new_form = answer_form(old), answer_form(case.conflict_answer)
    if old_form not in FORMS or old_form != new_form:
        return LintResult(False, f"replaces {old!r} ({old_form}) with {case.conflict_answer!r} ({new_form})")
    at = case.conflict_text.find(case.conflict_answer) + len(case.conflict_answer)
    acronym = re.match(r"\s*\(([A-Z][A-Za-z&.]{1,9})\)", case.conflict_text[at:])
    if acronym and _initials(old) == acronym[1].replace(".", "") != _initials(case.conflict_answer):
        return LintResult(
            False, f"the acronym ({acronym[1]}) after {case.conflict_answer!r} stands for {old!r}"
        )
    return LintResult(True)


def _cue_free_base(case: ConflictCase) -> str | LintResult | None:
    """The support less its sentences that hold a cue, or why it cannot be the base (the answer's
    sentence holds a cue), or ``None`` where the support holds no cue."""
    cued = cue_sentence_spans(case.support_text)
    if not cued:
        return None
    at = case.support_text.find(case.support_span)
    if at < 0:
        return LintResult(False, "support_span is not in the support passage")
    if any(s < at + len(case.support_span) and at < e for s, e in cued):
        return LintResult(False, "the answer's sentence holds a conflict cue, so no sentence may be dropped")
    return without_cue_sentences(case.support_text)


def _initials(name: str) -> str:
    """``United Methodist Church`` -> ``UMC`` (capitalised words only)."""
    return "".join(word[0] for word in name.split() if word[:1].isupper())


def lint_answers_question(case: ConflictCase) -> LintResult:
    """2. It directly answers the question with a same-type alternative, ``conflict_answer``.

    ``conflict_answer`` is stated in the passage, has the form of a gold alias, is of the same
    semantic type as the gold answer by :func:`~eviscope.builders.eviscope.surface_types.same_type` (a typing
    signal independent of the spaCy entities that chose it), and the sentence that states it shares
    a content word with the question.
    """
    new = case.conflict_answer
    if not new.strip():
        return LintResult(False, "conflict_answer is empty")
    form = answer_form(new)
    gold_forms = {answer_form(a) for a in case.answers}
    if form not in FORMS or form not in gold_forms:
        return LintResult(
            False, f"conflict_answer {new!r} is a {form}, the gold answer a {'/'.join(sorted(gold_forms))}"
        )
    mismatch = same_type(case.question, min(case.answers, key=lambda a: (len(tokens(a)), len(a))), new)
    if mismatch:
        return LintResult(False, f"not a same-type alternative: {mismatch}")
    stating = [case.conflict_text[s:e] for s, e in sentence_spans(case.conflict_text)]
    stating = [sentence for sentence in stating if contains(sentence, new)]
    if not stating:
        return LintResult(False, f"conflict_answer {new!r} is not stated in the passage")
    content = set(tokens(case.question)) - QUESTION_WORDS
    if not any(content & set(tokens(sentence)) for sentence in stating):
        return LintResult(
            False, "no sentence stating conflict_answer shares a content word with the question"
        )
    return LintResult(True)


def lint_contradicts_support(case: ConflictCase) -> LintResult:
    """3. It contradicts the support: ``conflict_answer`` and every gold alias are mutually non-containing."""
    for alias in case.answers:
        if contains(alias, case.conflict_answer) or contains(case.conflict_answer, alias):
            return LintResult(
                False, f"conflict_answer {case.conflict_answer!r} overlaps gold alias {alias!r}"
            )
    return LintResult(True)


def lint_excludes_original(case: ConflictCase) -> LintResult:
    """4. It excludes the original answer: no gold alias is contained in the passage."""
    found = [alias for alias in case.answers if contains(case.conflict_text, alias)]
    if found:
        return LintResult(False, "gold alias(es) " + ", ".join(map(repr, found)) + " still in the passage")
    return LintResult(True)


def lint_modifies_answer_claim(case: ConflictCase) -> LintResult:
    """5. It modifies the answer-bearing claim.

    ``conflict_answer`` is contained in the conflict passage's counterpart of the support span: the run
    of as many sentences as the span has that shares the largest share of its words (Jaccard).
    """
    spans = sentence_spans(case.conflict_text)
    width = max(1, len(sentence_spans(case.support_span)))
    windows = [
        case.conflict_text[spans[i][0] : spans[i + width - 1][1]] for i in range(len(spans) - width + 1)
    ] or [case.conflict_text]
    span_words = set(case.support_span.split())
    counterpart = max(
        windows, key=lambda w: len(span_words & set(w.split())) / len(span_words | set(w.split()))
    )
    if not contains(counterpart, case.conflict_answer):
        return LintResult(False, f"the answer-bearing sentence does not state {case.conflict_answer!r}")
    return LintResult(True)


def conflict_cues_in(text: str) -> list[str]:
    """The cues of :data:`CONFLICT_CUES` that ``text`` contains."""
    padded = f" {norm(text)} "  # contains(text, cue) for every cue, normalizing the text once
    return [cue for cue in CONFLICT_CUES if f" {norm(cue)} " in padded]


@lru_cache(maxsize=4096)
def cue_sentence_spans(text: str) -> tuple[tuple[int, int], ...]:
    """The ``(start, end)`` spans (:func:`~eviscope.core.sentences.sentence_spans`) of the sentences of
    ``text`` that hold a conflict cue.

    >>> text = "It opened in 1932. However, tolls were disputed. It was busy."
    >>> [text[s:e] for s, e in cue_sentence_spans(text)]
    ['However, tolls were disputed.']
    """
    return tuple((s, e) for s, e in sentence_spans(text) if conflict_cues_in(text[s:e]))


@lru_cache(maxsize=4096)
def without_cue_sentences(text: str) -> str:
    """``text`` less its whole sentences that hold a conflict cue (:func:`cue_sentence_spans`).

    A dropped sentence goes with the white space after it (before it, when it is the last), so the
    kept sentences keep their own text and the white space between them. A text without a cue is
    returned unchanged.

    >>> without_cue_sentences("However, it rained. It opened in 1932. In fact, it was busy.")
    'It opened in 1932.'
    >>> without_cue_sentences("It opened in 1932.  Tolls ended.")
    'It opened in 1932.  Tolls ended.'
    """
    spans = sentence_spans(text)
    dropped = set(cue_sentence_spans(text))
    if not dropped:
        return text
    starts = [s for s, _ in spans[1:]] + [len(text)]
    kept = "".join(text[s:nxt] for (s, e), nxt in zip(spans, starts, strict=True) if (s, e) not in dropped)
    return kept.rstrip() if spans[-1] in dropped else kept


def lint_no_conflict_cue(case: ConflictCase) -> LintResult:
    """6. It contains no conflict cue from :data:`CONFLICT_CUES`."""
    found = conflict_cues_in(case.conflict_text)
    if found:
        return LintResult(False, "conflict cue(s) " + ", ".join(map(repr, found)) + " in the passage")
    return LintResult(True)


ONE_SIDED = (
    "more than",
    "fewer than",
    "less than",
    "at least",
    "at most",
    "up to",
    "over",
    "under",
    "after",
    "before",
    "since",
    "by",
)
"""Qualifiers that bound a value on one side only ("over 800,000", "after 1850"): any two values under
the same one never contradict each other, whatever they are ("over 800,000" and "over 900,000" both hold
of 950,000). ``by``, ``after``, ``before`` and ``since`` bound only a year or date ("increased by 20%"
is no bound)."""
APPROXIMATE = ("about", "around", "roughly", "approximately", "nearly", "almost", "some", "circa", "c.")
"""Qualifiers that make a value approximate ("about 1850", "some 800"): an alternative within
:data:`APPROXIMATE_YEARS` or :data:`APPROXIMATE_SHARE` of the original is satisfied by it."""
APPROXIMATE_YEARS = 5
"""An approximate year ("around 1848") still holds of a year this many years away ("around 1850")."""
APPROXIMATE_SHARE = 0.2
"""An approximate number ("about 120") still holds of one this share of its value away ("about 100")."""
_TIME_ONLY = frozenset({"by", "after", "before", "since"})
_QUALIFIER_BEFORE = re.compile(
    r"(?<![\w.])(?P<q>"
    + "|".join(re.escape(q) for q in sorted({*ONE_SIDED, *APPROXIMATE}, key=len, reverse=True))
    + r")\s+(?:(?:the|a|an)\s+)?(?:year\s+|[$£€]\s?)?$",
    re.IGNORECASE,
)
_BOUND_AFTER = re.compile(
    r"^(?:\+|\s+or\s+(?:more|fewer|less|so|later|earlier|after|before)\b|\s+plus\b)", re.IGNORECASE
)


def compatible_bound(before: str, old: str, new: str, after: str = "") -> str | None:
    """Why ``new`` written where ``old`` stood (``before`` and ``after`` it) does not contradict
    ``old``: the qualifier before it bounds it on one side (:data:`ONE_SIDED`, or "or more" after it)
    or makes it approximate (:data:`APPROXIMATE`) and ``old`` still satisfies it; else ``None``.

    >>> compatible_bound("home to over ", "800,000", "900,000")
    "'over 900,000' still holds where 'over 800,000' does (a one-sided bound)"
    >>> compatible_bound("more than ", "120", "100") is not None, compatible_bound("founded after ", "1848", "1850") is not None
    (True, True)
    >>> compatible_bound("founded in ", "1848", "1850") is None, compatible_bound("grew by ", "20%", "25%") is None
    (True, True)
    >>> compatible_bound("in about ", "1848", "1850") is not None, compatible_bound("about ", "1848", "1870") is None
    (True, True)
    """
    form = answer_form(old)
    timed = form in {"year", "date"}
    found = _QUALIFIER_BEFORE.search(before)
    qualifier = found["q"].lower() if found else None
    if qualifier in _TIME_ONLY and not timed:
        qualifier = None
    if qualifier is None and _BOUND_AFTER.match(after):
        return f"{new!r} followed by {after.strip().split()[0]!r} still holds where {old!r} does (a one-sided bound)"
    if qualifier is None:
        return None
    if qualifier in ONE_SIDED:
        return f"'{qualifier} {new}' still holds where '{qualifier} {old}' does (a one-sided bound)"
    if form == "year" and answer_form(new) == "year":
        near = abs(int(old) - int(new)) <= APPROXIMATE_YEARS
    elif form == "number" and answer_form(new) == "number":
        a, b = number_value(old.rstrip("%")), number_value(new.rstrip("%"))
        near = abs(a - b) <= APPROXIMATE_SHARE * max(abs(a), abs(b))
    else:
        near = timed
    return f"'{qualifier} {new}' still holds of '{qualifier} {old}' (an approximation)" if near else None


def lint_no_compatible_bound(case: ConflictCase) -> LintResult:
    """The alternative is no bound or approximation that the original value still satisfies
    (:func:`compatible_bound`): "over 800,000" against "over 900,000" is no conflict.

    >>> case = ConflictCase("How many Muslims live there?", ("800,000",), "Over 800,000 Muslims live there.",
    ...                     "Over 800,000 Muslims live there.", "Over 900,000 Muslims live there.", "900,000")
    >>> lint_no_compatible_bound(case).ok, lint_no_compatible_bound(case._replace(support_text="Some say 800,000 Muslims live there.", support_span="", conflict_text="Some say 900,000 Muslims live there.")).ok
    (False, True)
    """
    old = substituted_phrase(case.support_text, case.conflict_text, case.conflict_answer)
    excerpt = _cue_free_base(case)
    if old is None and isinstance(excerpt, str):
        old = substituted_phrase(excerpt, case.conflict_text, case.conflict_answer)
    if old is None:
        return LintResult(True)
    at = case.conflict_text.find(case.conflict_answer)
    why = compatible_bound(
        case.conflict_text[:at],
        old,
        case.conflict_answer,
        case.conflict_text[at + len(case.conflict_answer) :],
    )
    return LintResult(False, why) if why else LintResult(True)


FURTHER_LINTS: dict[str, Callable[[ConflictCase], LintResult]] = {
    "no_compatible_bound": lint_no_compatible_bound,
}
"""Lints beyond the six constraints, from the readers' failures (issue 32): the build reports their
counts for every config; ``v1.1`` and ``xl`` draw none that they catch (the rule of believability
``compatible_bound`` applies them to every alternative), ``v1`` only reports them."""


LINTS: dict[str, Callable[[ConflictCase], LintResult]] = {
    "grammatical": lint_grammatical_substitution,
    "answers_question": lint_answers_question,
    "contradicts_support": lint_contradicts_support,
    "excludes_original": lint_excludes_original,
    "modifies_answer_claim": lint_modifies_answer_claim,
    "no_conflict_cue": lint_no_conflict_cue,
}
"""The six constraints, in the contract's order, under the names the build report uses."""


def run_lints(case: ConflictCase) -> dict[str, LintResult]:
    """Every lint of :data:`LINTS` on ``case``."""
    return {name: lint(case) for name, lint in LINTS.items()}
