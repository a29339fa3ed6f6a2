"""Reading EviScope's question sources: SQuAD v1.1 dev and every other extractive source of the same
shape (:data:`QUESTION_SOURCES`), each a local JSON file or folder of JSON files in SQuAD v1.1 format, or
its hub dataset.

One reader (:func:`load_squad`) normalises them all to the same article / paragraph / question
structure: the paragraphs of articles that share a title (TyDi QA GoldP gives each passage its own
entry, one per question) become one article, the same paragraph given twice in an article becomes
one with the questions of both, and every answer span must match its context. A source may declare
:class:`TextFix` es for artefacts of how it was extracted (TyDi QA's citation marks, MLQA's missing space
after a full stop), applied to every paragraph as it is read, its answers moved with the text. Every
problem with a source becomes one :class:`~eviscope.core.errors.EviScopeError` line that names the source, the place in it, and
how to point the builder at another copy.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from eviscope.core.errors import EviScopeError, first_line
from eviscope.core.sources import Source, SourceRef

SQUAD = Source("squad", "SQuAD v1.1 dev (JSON)", "--squad", "EVISCOPE_SQUAD", "rajpurkar/squad")
"""SQuAD v1.1 dev, the source of ``eviscope-v1``."""


@dataclass(frozen=True)
class TextFix:
    """An artefact of how a source's text was extracted, and what each match of it becomes."""

    pattern: str
    replacement: str
    why: str

    def apply(self, text: str) -> tuple[str, list[tuple[int, int, int]]]:
        """``text`` fixed, and each change as ``(start, end, new length)`` in ``text``, in order.

        >>> CITATION_MARKS.apply("It opened in 1907.[24] Ewing coaches.[3][5]")[0]
        'It opened in 1907. Ewing coaches.'
        >>> MISSING_SPACE.apply("Poe died in 1849.Poe and his works")[0]
        'Poe died in 1849. Poe and his works'
        """
        changes = [(m.start(), m.end(), len(self.replacement)) for m in re.finditer(self.pattern, text)]
        return re.sub(self.pattern, self.replacement, text), changes


CITATION_MARKS = TextFix(
    r"\[(?:\d+(?:, ?\d+)*|(?:lower-alpha|lower-roman|upper-alpha|[Nn]ote|nb|n) \d+)\]",
    "",
    'Wikipedia\'s citation and footnote marks ("[24]", "[note 3]"), kept by TyDi QA in 60% of its '
    "passages: noise in every sentence they end, and no part of what the sentence says",
)
MISSING_SPACE = TextFix(
    r"(?<=[a-z0-9)]\.)(?=[A-Z][a-z])",
    " ",
    'a full stop with no space before the next sentence ("India.The disease"), in a third of MLQA\'s '
    "paragraphs, which reads two sentences as one",
)


def _moved(position: int, changes: list[tuple[int, int, int]], end: bool) -> int:
    """Where ``position`` of a text stands once ``changes`` (:meth:`TextFix.apply`) are made: a change
    at an answer's start moves it, a change at its end does not (a mark after an answer stays out)."""
    shift = 0
    for start, stop, length in changes:
        if stop < position or (stop == position and not (end and start == stop)):
            shift += length - (stop - start)
        elif start < position:
            return start + shift + (length if end else 0)
    return position + shift


@dataclass(frozen=True)
class QuestionSource:
    """An extractive question source of SQuAD v1.1 shape: how it is found, named in rows and licensed."""

    source: Source
    name: str
    """The row's ``source``: short and stable."""
    license: str
    """The row's ``source_license``."""
    hub_config: str | None = None
    hub_splits: tuple[str, ...] = ("validation",)
    hub_id_prefix: str = ""
    """Only hub rows whose id starts with it (TyDi QA's English questions)."""
    fixes: tuple[TextFix, ...] = ()
    """Artefacts of its text's extraction, fixed as it is read (:class:`TextFix`)."""


QUESTION_SOURCES: dict[str, QuestionSource] = {
    qs.name: qs
    for qs in (
        QuestionSource(SQUAD, "squad-dev", "CC BY-SA 4.0"),
        QuestionSource(
            Source(
                "squad-train",
                "SQuAD v1.1 train (JSON file or folder)",
                "--squad-train",
                "EVISCOPE_SQUAD_TRAIN",
                "rajpurkar/squad",
            ),
            "squad-train",
            "CC BY-SA 4.0",
            hub_splits=("train",),
        ),
        QuestionSource(
            Source(
                "tydiqa-goldp-en",
                "TyDi QA GoldP English (folder of SQuAD-format JSON)",
                "--tydiqa-goldp-en",
                "EVISCOPE_TYDIQA_GOLDP_EN",
                "google-research-datasets/tydiqa",
            ),
            "tydiqa-goldp-en",
            "Apache-2.0",
            hub_config="secondary_task",
            hub_splits=("train", "validation"),
            hub_id_prefix="english-",
            fixes=(CITATION_MARKS,),
        ),
        QuestionSource(
            Source(
                "squadshifts-new-wiki",
                "SQuAD-shifts New Wikipedia (JSON)",
                "--squadshifts-new-wiki",
                "EVISCOPE_SQUADSHIFTS_NEW_WIKI",
                "ludwigschmidt/squadshifts",
            ),
            "squadshifts-new-wiki",
            "CC BY 4.0",
            hub_config="new_wiki",
            hub_splits=("test",),
        ),
        QuestionSource(
            Source(
                "mlqa-en-dev",
                "MLQA English dev (JSON)",
                "--mlqa-en-dev",
                "EVISCOPE_MLQA_EN_DEV",
                "facebook/mlqa",
            ),
            "mlqa-en-dev",
            "CC BY-SA 3.0",
            hub_config="mlqa.en.en",
            fixes=(MISSING_SPACE,),
        ),
    )
}
"""EviScope's question sources, in the order ``eviscope-xl`` reads them (SQuAD dev first); each
:attr:`QuestionSource.source` is one of EviScope's :attr:`~eviscope.core.registry.Benchmark.sources`."""

DEV = QUESTION_SOURCES["squad-dev"]


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


def _merged(articles: list[_Article]) -> list[tuple[str, list[_Paragraph]]]:
    """Articles in first-seen order: the paragraphs of entries that share a title under one, and
    paragraphs of one article that share a context as one, with their questions in source order."""
    merged: dict[str, dict[str, _Paragraph]] = {}
    for article in articles:
        paragraphs = merged.setdefault(article.title, {})
        for paragraph in article.paragraphs:
            if paragraph.context in paragraphs:
                paragraphs[paragraph.context].qas.extend(paragraph.qas)
            else:
                paragraphs[paragraph.context] = paragraph.model_copy(update={"qas": list(paragraph.qas)})
    return [(title, list(paragraphs.values())) for title, paragraphs in merged.items()]


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
    source: str = DEV.name
    """The :attr:`QuestionSource.name` of its source."""


@dataclass(frozen=True)
class Squad:
    paragraphs: list[Paragraph]
    questions: list[Question]
    checksum: str
    """``sha256:<hex>`` of the local file (of its folder's ``*.json`` files, read in name order), or
    ``hub:<id>@<fingerprint>``."""
    origin: str
    name: str = DEV.name
    """The :attr:`QuestionSource.name` of its source, each row's ``source``."""
    license: str = DEV.license
    """Its source's licence, each row's ``source_license``."""


def load_squad(ref: SourceRef, spec: QuestionSource = DEV) -> Squad:
    """Read and check the question source ``spec`` from ``ref``; every answer span must match its context,
    and the source's :attr:`~QuestionSource.fixes` are made (its answers moved with the text)."""
    articles, checksum = _read_hub(ref, spec) if ref.is_hub else _read_local(ref, spec)
    for article in articles:
        for paragraph in article.paragraphs:
            for qa in paragraph.qas:
                for answer in qa.answers:
                    found = paragraph.context[answer.answer_start : answer.answer_start + len(answer.text)]
                    if found != answer.text:
                        raise _error(
                            ref, spec, f"question {qa.id}: answer {answer.text!r} is not at its answer_start"
                        )
    if spec.fixes:
        articles = [_fixed(article, spec.fixes) for article in articles]
    paragraphs: list[Paragraph] = []
    questions: list[Question] = []
    for title, article in _merged(articles):
        for paragraph in article:
            paragraphs.append(Paragraph(title, paragraph.context))
            for qa in paragraph.qas:
                answers = tuple((a.text, a.answer_start) for a in qa.answers)
                questions.append(Question(qa.id, qa.question, len(paragraphs) - 1, answers, spec.name))
    origin = f"{ref.location} (via {ref.via})"
    return Squad(paragraphs, questions, checksum, origin, spec.name, spec.license)


def _fixed(article: _Article, fixes: tuple[TextFix, ...]) -> _Article:
    """``article`` with ``fixes`` made in every paragraph, each answer moved with its text (an answer that
    was all artefact is dropped, and a question left without an answer)."""
    paragraphs = []
    for paragraph in article.paragraphs:
        context = paragraph.context
        spans = {
            id(a): (a.answer_start, a.answer_start + len(a.text)) for qa in paragraph.qas for a in qa.answers
        }
        for fix in fixes:
            context, changes = fix.apply(context)
            spans = {k: (_moved(s, changes, False), _moved(e, changes, True)) for k, (s, e) in spans.items()}
        qas = []
        for qa in paragraph.qas:
            answers = [
                _Answer(text=context[s:e], answer_start=s)
                for s, e in (spans[id(a)] for a in qa.answers)
                if context[s:e].strip()
            ]
            if answers:
                qas.append(qa.model_copy(update={"answers": answers}))
        paragraphs.append(_Paragraph(context=context, qas=qas))
    return _Article(title=article.title, paragraphs=paragraphs)


def _error(ref: SourceRef, spec: QuestionSource, problem: str) -> EviScopeError:
    what = spec.source
    return EviScopeError(f"{what.what} at {ref.location} (via {ref.via}): {problem}; {what.how_to_point()}")


def _read_local(ref: SourceRef, spec: QuestionSource) -> tuple[list[_Article], str]:
    """A JSON file, or a folder whose ``*.json`` files are read in name order as one source."""
    path = Path(ref.location).expanduser()
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    if not files:
        raise _error(ref, spec, "is a folder without a .json file")
    articles: list[_Article] = []
    digest = hashlib.sha256()
    for file in files:
        raw = _read_bytes(ref, spec, file)
        digest.update(raw)
        articles.extend(_parse(ref, spec, file, raw))
    return articles, "sha256:" + digest.hexdigest()


def _read_bytes(ref: SourceRef, spec: QuestionSource, file: Path) -> bytes:
    try:
        return file.read_bytes()
    except FileNotFoundError:
        raise _error(ref, spec, "no such file") from None
    except OSError as err:
        raise _error(ref, spec, f"{file.name} cannot be read ({err.strerror})") from None


def _parse(ref: SourceRef, spec: QuestionSource, file: Path, raw: bytes) -> list[_Article]:
    where_file = "" if Path(ref.location).expanduser() == file else f"{file.name}: "
    try:
        document = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise _error(ref, spec, f"{where_file}not valid JSON ({err})") from None
    try:
        return _SquadFile.model_validate(document).data
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "top level"
        raise _error(ref, spec, f"{where_file}not a SQuAD v1.1 file: {where}: {first['msg']}") from None


def _read_hub(ref: SourceRef, spec: QuestionSource) -> tuple[list[_Article], str]:
    from datasets import concatenate_datasets, load_dataset

    try:
        parts = [load_dataset(ref.location, spec.hub_config, split=name) for name in spec.hub_splits]
    except Exception as err:  # datasets raises many types for offline, missing or gated repos
        message = first_line(err)
        raise _error(ref, spec, f"could not load the hub dataset ({message})") from None
    split = concatenate_datasets(parts) if len(parts) > 1 else parts[0]
    if "title" not in split.column_names:
        raise _error(
            ref, spec, f"the hub dataset has no title column (columns: {', '.join(split.column_names)})"
        )
    articles: dict[str, dict[str, list[dict]]] = {}
    for row in split:
        if not row["id"].startswith(spec.hub_id_prefix):
            continue
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


def load_question_source(name: str, flag_value: str | None) -> Squad:
    """The question source ``name`` (of :data:`QUESTION_SOURCES`), found from its flag, else its
    environment variable, else its hub dataset."""
    spec = QUESTION_SOURCES[name]
    return load_squad(spec.source.resolve(flag_value), spec)
