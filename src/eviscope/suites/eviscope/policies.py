"""The two EviScope policies (paper §5) and how a row becomes a chat request.

``vanilla`` answers from the documents, citing them, and may abstain or flag a conflict; ``gate``
is the same prompt plus one instruction: classify the evidence state (answerable, insufficient,
conflicting) before choosing the action. Both see only the question and the documents' ids and
text, share :func:`~eviscope.suites.eviscope.schemas.answer_schema` of the row, the parser and temperature 0.

Prompt files live beside this module as ``prompts/<policy>.<version>.txt`` with the placeholders
``{question}``, ``{documents}``, ``{doc_ids}`` (the row's ids, quoted, in order) and
``{quote_max_chars}`` (the schema's bound on a quote); the manifest records the file and its SHA-256.

>>> row = {"question": "When?", "documents": [{"doc_id": "doc-1", "title": "T", "text": "In 1066."}]}
>>> print(render("vanilla", row).split("Documents:")[1].splitlines()[1])
[doc-1] T: In 1066.
>>> 'chosen from "doc-1";' in render("vanilla", row)
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

from eviscope.suites.eviscope.schemas import QUOTE_MAX_CHARS

POLICIES: tuple[str, ...] = ("vanilla", "gate")
PROMPT_VERSION = "v2"
"""``v2`` lists the row's doc ids and says in words what each key holds (``v1``, kept for the
manifests that name it, showed a template with placeholders a small model copied)."""


def prompt_id(policy: str) -> str:
    """The versioned prompt id, also its file stem: ``gate.v2``."""
    return f"{policy}.{PROMPT_VERSION}"


@cache
def template(policy: str) -> str:
    """The prompt text of ``policy`` at ``PROMPT_VERSION``."""
    if policy not in POLICIES:
        raise KeyError(f"unknown policy {policy!r}; known: {', '.join(POLICIES)}")
    return resources.files(__package__).joinpath("prompts", f"{prompt_id(policy)}.txt").read_text("utf-8")


def format_documents(documents: list[Mapping[str, Any]]) -> str:
    """One document per paragraph: ``[doc_id] title: text``, in the row's order."""
    return "\n\n".join(f"[{d['doc_id']}] {d['title']}: {d['text']}" for d in documents)


def render(policy: str, row: Mapping[str, Any]) -> str:
    """The prompt of ``policy`` for one EviScope row."""
    return template(policy).format(
        question=row["question"],
        documents=format_documents(row["documents"]),
        doc_ids=", ".join(json.dumps(d["doc_id"]) for d in row["documents"]),
        quote_max_chars=QUOTE_MAX_CHARS,
    )
