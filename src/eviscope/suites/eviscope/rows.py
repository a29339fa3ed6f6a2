"""The EviScope row schema (contract §2), defined once for builders, metrics, runner and Space."""

from __future__ import annotations

from typing import Any, Literal

import pyarrow as pa
from pydantic import BaseModel, ConfigDict, StrictBool, StrictStr, create_model

from eviscope.core.datafiles import features_of

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

_DOC = pa.struct([("doc_id", pa.string()), ("title", pa.string()), ("text", pa.string())])
_SPAN = pa.struct([("doc_id", pa.string()), ("text", pa.string())])

EVISCOPE_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("quartet_id", pa.string()),
        ("variant", pa.string()),
        ("question", pa.string()),
        ("source_id", pa.string()),
        ("source", pa.string()),
        ("source_license", pa.string()),
        ("title", pa.string()),
        ("documents", pa.list_(_DOC)),
        ("answers", pa.list_(pa.string())),
        ("expected_action", pa.string()),
        ("answerable", pa.bool_()),
        ("supporting_doc_ids", pa.list_(pa.string())),
        ("conflicting_doc_ids", pa.list_(pa.string())),
        ("support_spans", pa.list_(_SPAN)),
        ("conflict_answer", pa.string()),
        ("near_duplicate", pa.string()),
    ]
)
"""The Arrow schema of an EviScope row, its one declaration; field meanings are in contract §2 and the
dataset card. ``EVISCOPE_FEATURES`` is the same as `datasets` features (:func:`__getattr__`)."""


def __getattr__(name: str) -> Any:
    """``EVISCOPE_FEATURES``, the `datasets` features of :data:`EVISCOPE_SCHEMA`, made on first use, so
    that what only reads rows (``eviscope run``) does not import `datasets` (0.6-0.8 s of its start)."""
    if name == "EVISCOPE_FEATURES":
        return features_of(EVISCOPE_SCHEMA)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


def _annotation(kind: pa.DataType, name: str) -> Any:
    """The pydantic type of one Arrow field type (a struct becomes a model of its own)."""
    if pa.types.is_list(kind):
        return list[_annotation(kind.value_type, name)]
    if pa.types.is_struct(kind):
        fields = {field.name: (_annotation(field.type, field.name), ...) for field in kind}
        return create_model(f"_{name.title()}", __config__=ConfigDict(extra="ignore"), **fields)
    return _CHOICES.get(name, _SCALARS[str(kind)])


RowModel: type[BaseModel] = create_model(
    "RowModel",
    __config__=ConfigDict(extra="ignore"),
    **{
        field.name: (_annotation(field.type, field.name), ...)
        if field.name in SCORED_FIELDS
        else (_annotation(field.type, field.name) | None, None)
        for field in EVISCOPE_SCHEMA
    },
)
"""Pydantic validation of a row, made from :data:`EVISCOPE_SCHEMA` (strict types, ``variant`` and
``expected_action`` among their values): the :data:`SCORED_FIELDS` are required, the others checked
when given, fields outside contract §2 ignored."""
