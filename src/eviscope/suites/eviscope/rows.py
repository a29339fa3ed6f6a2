"""The EviScope row schema (contract §2), defined once for builders, metrics, runner and Space."""

from __future__ import annotations

from typing import Any, Literal

from datasets import Features, List, Value
from pydantic import BaseModel, ConfigDict, StrictBool, StrictStr, create_model

VARIANTS: tuple[str, ...] = ("sufficient", "noisy", "insufficient", "conflicting")
"""The four evidence variants of a quartet, in canonical order."""

ACTIONS: tuple[str, ...] = ("answer", "abstain", "flag_conflict")
"""The actions a system may take, and the values of ``expected_action``."""

NEAR_DUPLICATES: tuple[str, ...] = ("none", "mirror", "irrelevant_edit", "conflict")
"""Values of ``near_duplicate``: which near-duplicate pair a row shows (contract §2). ``conflict``: the
conflict passage beside the support; ``irrelevant_edit``: a copy of a passage in which a value that does
not answer the question was changed (``eviscope-xl``'s noisy and insufficient rows); ``mirror``: an
unedited copy only; ``none``: no near-duplicate."""

EXPECTED_ACTION: dict[str, str] = {
    "sufficient": "answer",
    "noisy": "answer",
    "insufficient": "abstain",
    "conflicting": "flag_conflict",
}

_DOC = {"doc_id": Value("string"), "title": Value("string"), "text": Value("string")}
_SPAN = {"doc_id": Value("string"), "text": Value("string")}

EVISCOPE_FEATURES = Features(
    {
        "id": Value("string"),
        "quartet_id": Value("string"),
        "variant": Value("string"),
        "question": Value("string"),
        "source_id": Value("string"),
        "source": Value("string"),
        "source_license": Value("string"),
        "title": Value("string"),
        "documents": List(_DOC),
        "answers": List(Value("string")),
        "expected_action": Value("string"),
        "answerable": Value("bool"),
        "supporting_doc_ids": List(Value("string")),
        "conflicting_doc_ids": List(Value("string")),
        "support_spans": List(_SPAN),
        "conflict_answer": Value("string"),
        "near_duplicate": Value("string"),
    }
)
"""`datasets` features of an EviScope row; field meanings are in contract §2 and the dataset card."""


def row_id(quartet_id: str, variant: str) -> str:
    """The row id ``<quartet_id>-<variant>``."""
    return f"{quartet_id}-{variant}"


SCORED_FIELDS: frozenset[str] = frozenset(
    {"id", "quartet_id", "variant", "answers", "expected_action", "supporting_doc_ids", "support_spans"}
)
"""The row fields scoring reads: a row given by a user (a metric's references) must carry them."""

SCORED_WHEN_GIVEN: frozenset[str] = frozenset({"near_duplicate"})
"""Row fields scoring reads where a row carries them (a user's references may leave them out):
``near_duplicate`` defines ``false_conflict_rate``, which is not applicable without it."""

_CHOICES: dict[str, Any] = {
    "variant": Literal[VARIANTS],
    "expected_action": Literal[ACTIONS],
    "near_duplicate": Literal[NEAR_DUPLICATES],
}
_SCALARS: dict[str, Any] = {"string": StrictStr, "bool": StrictBool}


def _annotation(feature: Any, name: str) -> Any:
    """The pydantic type of one ``datasets`` feature (a nested dict becomes a model of its own)."""
    if isinstance(feature, Value):
        return _CHOICES.get(name, _SCALARS[feature.dtype])
    if isinstance(feature, List):
        return list[_annotation(feature.feature, name)]
    fields = {key: (_annotation(value, key), ...) for key, value in feature.items()}
    return create_model(f"_{name.title()}", __config__=ConfigDict(extra="ignore"), **fields)


RowModel: type[BaseModel] = create_model(
    "RowModel",
    __config__=ConfigDict(extra="ignore"),
    **{
        name: (_annotation(feature, name), ...)
        if name in SCORED_FIELDS
        else (_annotation(feature, name) | None, None)
        for name, feature in EVISCOPE_FEATURES.items()
    },
)
"""Pydantic validation of a row, made from :data:`EVISCOPE_FEATURES` (strict types, ``variant`` and
``expected_action`` among their values): the :data:`SCORED_FIELDS` are required, the others checked
when given, fields outside contract §2 ignored."""
