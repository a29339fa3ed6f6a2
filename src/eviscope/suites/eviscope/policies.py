"""The two EviScope policies (paper §5) and how a row becomes a chat request.

``vanilla`` answers from the documents, citing them, and may abstain or flag a conflict; ``gate``
is the same prompt plus one instruction: classify the evidence state (answerable, insufficient,
conflicting) before choosing the action. Both see only the question and the documents' ids and
text, share :data:`~eviscope.suites.eviscope.schemas.ANSWER_SCHEMA`, the parser and temperature 0.

Prompt files live beside this module as ``prompts/<policy>.<version>.txt`` with the placeholders
``{question}`` and ``{documents}``; the manifest records the file and its SHA-256.

>>> row = {"question": "When?", "documents": [{"doc_id": "doc-1", "title": "T", "text": "In 1066."}]}
>>> print(render("vanilla", row).split("Documents:")[1].splitlines()[1])
[doc-1] T: In 1066.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

POLICIES: tuple[str, ...] = ("vanilla", "gate")
PROMPT_VERSION = "v1"


def prompt_id(policy: str) -> str:
    """The versioned prompt id, also its file stem: ``gate.v1``."""
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
    return template(policy).format(question=row["question"], documents=format_documents(row["documents"]))
