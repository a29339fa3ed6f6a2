"""How the conflict passage of a quartet is made, in its legacy (``v1``) and repaired (``v1.1``) forms.

Both start from the support passage. The repaired edit replaces the one occurrence of the answer in
the answer-bearing sentence with a same-form alternative and changes nothing else, so it passes the
six lints of :mod:`eviscope.builders.eviscope.conflict_lints` by construction (the build still runs them).
Where the support holds a conflict cue outside the answer's sentences, the builder hands it the
support less its whole sentences that hold one
(:func:`~eviscope.builders.eviscope.conflict_lints.without_cue_sentences`), which lint 1 accepts as the base.
The legacy edit is the unrepaired construction that ``eviscope-v1`` keeps for comparison.
"""

from __future__ import annotations

LEGACY_CUE_SENTENCES: tuple[str, ...] = (
    "",
    " However, some sources dispute this.",
    " In fact, other accounts give {donor}.",
)
"""Sentences the legacy construction appended, in turn, to every third quartet's conflict passage."""


def legacy_conflict(support_text: str, answers: tuple[str, ...], donor: str, index: int) -> str:
    """The ``v1`` conflict passage: the legacy, unrepaired construction.

    It replaces the first occurrence of the first SQuAD answer in the passage (wherever it stands,
    on word boundaries or not) with ``donor``, the first answer of the next quartet, whatever its
    form, and appends ``LEGACY_CUE_SENTENCES[index % 3]``. Other aliases and other occurrences stay.

    >>> legacy_conflict("Built in 1901 by Tesla.", ("1901",), "Paris", 1)
    'Built in Paris by Tesla. However, some sources dispute this.'
    """
    first = answers[0]
    position = support_text.find(first)
    edited = support_text[:position] + donor + support_text[position + len(first) :]
    return edited + LEGACY_CUE_SENTENCES[index % len(LEGACY_CUE_SENTENCES)].format(donor=donor)


def repaired_conflict(support_text: str, answer: str, answer_start: int, alternative: str) -> str:
    """The ``v1.1`` conflict passage: ``answer`` at ``answer_start`` replaced by ``alternative``.

    >>> repaired_conflict("Built in 1901 by Tesla.", "1901", 9, "1907")
    'Built in 1907 by Tesla.'
    """
    if support_text[answer_start : answer_start + len(answer)] != answer:
        raise ValueError(f"{answer!r} is not at offset {answer_start}")
    return support_text[:answer_start] + alternative + support_text[answer_start + len(answer) :]
