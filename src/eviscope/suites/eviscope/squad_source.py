"""Reading SQuAD v1.1 (a local ``dev-v1.1.json`` or the hub dataset ``rajpurkar/squad``).

Every problem with the source becomes one :class:`~eviscope.core.errors.EviScopeError` line that names the
source, the place in it, and how to point the builder at another copy.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from eviscope.core.errors import EviScopeError, first_line
from eviscope.core.sources import Source, SourceRef

SQUAD = Source("squad", "SQuAD v1.1 dev (JSON)", "--squad", "EVISCOPE_SQUAD", "rajpurkar/squad")
"""EviScope's one source (its :attr:`~eviscope.core.registry.Benchmark.sources`)."""


class _Answer(BaseModel):
    text: str
    answer_start: int


class _Question(BaseModel):
    id: str
    question: str
    answers: list[_Answer] = Field(min_length=1)


class _Paragraph(BaseModel):
    context: str
    qas: list[_Question]


class _Article(BaseModel):
    title: str
    paragraphs: list[_Paragraph]


class _SquadFile(BaseModel):
    data: list[_Article] = Field(min_length=1)


@dataclass(frozen=True)
class Paragraph:
    title: str
    context: str


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    paragraph: int
    """Index into :attr:`Squad.paragraphs`."""
    answers: tuple[tuple[str, int], ...]
    """``(text, answer_start)`` of every SQuAD answer, in source order."""


@dataclass(frozen=True)
class Squad:
    paragraphs: list[Paragraph]
    questions: list[Question]
    checksum: str
    """``sha256:<hex>`` of the local file, or ``hub:<id>@<fingerprint>``."""
    origin: str


def load_squad(ref: SourceRef) -> Squad:
    """Read and check SQuAD from ``ref``; every answer span must match its context."""
    articles, checksum = _read_hub(ref) if ref.is_hub else _read_file(ref)
    paragraphs: list[Paragraph] = []
    questions: list[Question] = []
    for article in articles:
        for paragraph in article.paragraphs:
            paragraphs.append(Paragraph(article.title, paragraph.context))
            for qa in paragraph.qas:
                for answer in qa.answers:
                    found = paragraph.context[answer.answer_start : answer.answer_start + len(answer.text)]
                    if found != answer.text:
                        raise _error(
                            ref, f"question {qa.id}: answer {answer.text!r} is not at its answer_start"
                        )
                answers = tuple((a.text, a.answer_start) for a in qa.answers)
                questions.append(Question(qa.id, qa.question, len(paragraphs) - 1, answers))
    return Squad(paragraphs, questions, checksum, f"{ref.location} (via {ref.via})")


def _error(ref: SourceRef, problem: str) -> EviScopeError:
    return EviScopeError(f"{SQUAD.what} at {ref.location} (via {ref.via}): {problem}; {SQUAD.how_to_point()}")


def _read_file(ref: SourceRef) -> tuple[list[_Article], str]:
    path = Path(ref.location).expanduser()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise _error(ref, "no such file") from None
    except IsADirectoryError:
        raise _error(ref, "is a folder, not the dev-v1.1.json file") from None
    except OSError as err:
        raise _error(ref, f"cannot be read ({err.strerror})") from None
    try:
        document = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise _error(ref, f"not valid JSON ({err})") from None
    try:
        parsed = _SquadFile.model_validate(document)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "top level"
        raise _error(ref, f"not a SQuAD v1.1 file: {where}: {first['msg']}") from None
    return parsed.data, "sha256:" + hashlib.sha256(raw).hexdigest()


def _read_hub(ref: SourceRef) -> tuple[list[_Article], str]:
    from datasets import load_dataset

    try:
        split = load_dataset(ref.location, split="validation")
    except Exception as err:  # datasets raises many types for offline, missing or gated repos
        message = first_line(err)
        raise _error(ref, f"could not load the hub dataset ({message})") from None
    articles: dict[str, dict[str, list[dict]]] = {}
    for row in split:
        contexts = articles.setdefault(row["title"], {})
        contexts.setdefault(row["context"], []).append(
            {
                "id": row["id"],
                "question": row["question"],
                "answers": [
                    {"text": t, "answer_start": s}
                    for t, s in zip(row["answers"]["text"], row["answers"]["answer_start"], strict=True)
                ],
            }
        )
    document = {
        "data": [
            {"title": title, "paragraphs": [{"context": c, "qas": qas} for c, qas in contexts.items()]}
            for title, contexts in articles.items()
        ]
    }
    return _SquadFile.model_validate(document).data, f"hub:{ref.location}@{split._fingerprint}"
