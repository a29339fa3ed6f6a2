"""What semantic answer type a question asks for, from its wh-phrase alone (contract §2, constraint 2).

The answer types of EviScope conflict passages:

| type | examples |
| --- | --- |
| ``person`` | Cam Newton, Francisco de Orellana |
| ``organisation`` | The Walt Disney Company, Lothian Regional Council |
| ``country`` / ``city`` / ``region`` / ``place`` | Kenya; Warsaw; Massachusetts, Europe; Lake Constance |
| ``facility`` | the Cathedral of Saint John the Divine, Fulton Mall |
| ``work`` | Book of Discipline, Three's Company |
| ``event`` | Super Bowl XXXIII, Williamite war |
| ``group`` | Sunni Arabs, Denver Broncos (nationality, religion, party, team) |
| ``year`` / ``date`` / ``quantity`` | 1879; July 1899; 42,000 |
| ``other`` | anything else, or a type that cannot be told confidently |

>>> sorted(expected_types("Which NFL team won Super Bowl 50?"))
['group']
>>> sorted(expected_types("In what city was he born?")), sorted(expected_types("When did it open?"))
(['city'], ['date', 'year'])
>>> expected_types("What is the famous rock near Sankt Goarshausen?") is None
True
"""

from __future__ import annotations

import re

TYPES: tuple[str, ...] = (
    "person",
    "organisation",
    "country",
    "city",
    "region",
    "place",
    "facility",
    "work",
    "event",
    "group",
    "year",
    "date",
    "quantity",
    "other",
)
"""Every answer type, ``other`` last (a conflict edit never uses it)."""

PLACES = frozenset({"country", "city", "region", "place"})
"""The place types: kept apart where known, all of them ``place`` where not."""

_WH_TYPES: dict[str, frozenset[str]] = {
    "who": frozenset({"person", "organisation", "group"}),
    "whom": frozenset({"person", "organisation", "group"}),
    "whose": frozenset({"person", "organisation", "group"}),
    "when": frozenset({"year", "date"}),
    "where": PLACES | {"facility"},
}

_HEAD_TYPES: dict[str, str] = {}
for _type, _words in {
    "person": "person man woman king queen emperor president leader scientist author writer general "
    "player quarterback coach artist composer poet physicist philosopher ruler pope saint son daughter "
    "father mother wife husband brother sister individual voyager explorer inventor journalist architect "
    "economist politician minister chancellor governor mayor khan actor actress singer director founder "
    "member",
    "organisation": "company corporation organization organisation agency institution university college "
    "network firm business broadcaster station channel court council commission body department ministry "
    "newspaper bank school society association union committee administration government",
    "group": "team party religion denomination tribe nationality ethnicity dynasty club",
    "city": "city town village capital",
    "country": "country nation",
    "region": "state province region continent county territory district",
    "place": "river lake mountain sea ocean island desert valley forest",
    "facility": "building stadium airport bridge hall museum cathedral castle palace venue arena library "
    "tower hospital church",
    "work": "book film movie show series album song novel magazine poem opera play publication "
    "sitcom story episode painting work",
    "event": "war battle revolution event tournament rebellion",
    "year": "year",
    "date": "date day month",
    "quantity": "percentage percent number amount",
}.items():
    for _word in _words.split():
        _HEAD_TYPES[_word] = _type
        _HEAD_TYPES[_word + "s"] = _type

_WORD = re.compile(r"[A-Za-z]+")
_HOW = re.compile(r"\bhow (many|much|long|far|old|large|big|tall|high|wide|deep|fast|heavy)\b")


_NOT_ENTITY_HEADS = frozenset(
    [
        "type",
        "kind",
        "class",
        "sort",
        "form",
        "equation",
        "theory",
        "mineral",
        "element",
        "compound",
        "satellite",
        "disease",
        "method",
        "process",
        "style",
        "term",
        "word",
        "color",
        "colour",
        "part",
        "piece",
        "problem",
        "material",
        "substance",
        "technique",
    ]
)
"""Head nouns that ask for a thing none of the answer types covers ("what type of engine")."""
_DETERMINERS = frozenset(["a", "an", "the", "his", "her", "its", "their", "this", "these", "those"])
_NAME_OF = re.compile(r" (?:is|was|are|were) (?:the|a) names? of (?:the |a |an )?")
_PHRASE_END = frozenset(
    [
        "is",
        "was",
        "are",
        "were",
        "be",
        "been",
        "did",
        "does",
        "do",
        "has",
        "had",
        "have",
        "that",
        "in",
        "on",
        "for",
        "to",
        "by",
        "with",
        "from",
        "as",
        "at",
        "when",
        "about",
        "can",
        "could",
        "would",
        "will",
        "should",
        "may",
        "might",
        "must",
        "into",
    ]
)


def _expand(kind: str) -> frozenset[str]:
    return PLACES if kind == "place" else frozenset({kind})


def question_head(question: str) -> str | None:
    """The word of the wh-phrase that names what ``question`` asks for, or ``None``.

    The last head noun of the phrase after ``what``/``which`` (singular), ``other`` for a thing of no
    answer type, ``how`` for "how many", else the wh-word (``who``, ``when``, ``where``).

    >>> question_head("Which NFL team won?"), question_head("What networks aired it?"), question_head("Who won?")
    ('team', 'network', 'who')
    """
    text = _NAME_OF.sub(" ", question.lower())
    if _HOW.search(text):
        return "how"
    words = _WORD.findall(text)
    for i, word in enumerate(words):
        if word in {"what", "which"}:
            found: str | None = None
            for n, head in enumerate(words[i + 1 : i + 5]):
                if head in _PHRASE_END or (n == 1 and head in _DETERMINERS):
                    if n == 1 and head in _DETERMINERS | {"that"}:
                        found = None  # "What states that", "What carries a": the first word is a verb
                    break
                if head in _NOT_ENTITY_HEADS:
                    found = "other"
                    break
                if head in _HEAD_TYPES:
                    found = head[:-1] if head[:-1] in _HEAD_TYPES else head
            if found is not None:
                return found
        if word in _WH_TYPES:
            return word
    return None


def expected_types(question: str) -> frozenset[str] | None:
    """The answer types ``question`` allows, from its wh-phrase; ``None`` where the phrase says nothing.

    ``what``/``which`` take the type of the last head noun of the phrase that follows, up to four
    words ("which NFL team" asks for a group, "which Carolina Panthers team member" for a person,
    "what type of engine" for ``other``); ``how many``/``how much`` ask for a quantity, and a
    question that asks for a date also takes a year.
    """
    head = question_head(question)
    if head is None:
        return None
    if head == "how":
        return frozenset({"quantity"})
    if head == "other":
        return frozenset({"other"})
    if head in _WH_TYPES:
        return _WH_TYPES[head]
    found = _expand(_HEAD_TYPES[head])
    return found | {"year"} if "date" in found else found


def head_type(word: str) -> str | None:
    """The answer type a head noun names ("war": ``event``), or ``None``.

    >>> head_type("tribe"), head_type("Stadium"), head_type("engine")
    ('group', 'facility', None)
    """
    kind = _HEAD_TYPES.get(word.lower())
    return None if kind is None else kind
