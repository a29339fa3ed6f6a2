"""The EviScope row schema (SPEC §2), defined once for builders, metrics, runner and Space."""

from __future__ import annotations

from datasets import Features, List, Value

VARIANTS: tuple[str, ...] = ("sufficient", "noisy", "insufficient", "conflicting")
"""The four evidence variants of a quartet, in canonical order."""

ACTIONS: tuple[str, ...] = ("answer", "abstain", "flag_conflict")
"""The actions a system may take, and the values of ``expected_action``."""

EXPECTED_ACTION: dict[str, str] = {
    "sufficient": "answer",
    "noisy": "answer",
    "insufficient": "abstain",
    "conflicting": "flag_conflict",
}

SPLIT = "test"
"""Every EviScope config has one split."""

_DOC = {"doc_id": Value("string"), "title": Value("string"), "text": Value("string")}
_SPAN = {"doc_id": Value("string"), "text": Value("string")}

EVISCOPE_FEATURES = Features(
    {
        "id": Value("string"),
        "quartet_id": Value("string"),
        "variant": Value("string"),
        "question": Value("string"),
        "source_id": Value("string"),
        "title": Value("string"),
        "documents": List(_DOC),
        "answers": List(Value("string")),
        "expected_action": Value("string"),
        "answerable": Value("bool"),
        "supporting_doc_ids": List(Value("string")),
        "conflicting_doc_ids": List(Value("string")),
        "support_spans": List(_SPAN),
        "conflict_answer": Value("string"),
    }
)
"""`datasets` features of an EviScope row; field meanings are in SPEC §2 and the dataset card."""


def row_id(quartet_id: str, variant: str) -> str:
    """The row id ``<quartet_id>-<variant>``."""
    return f"{quartet_id}-{variant}"
