"""A balanced config's (``eviscope-xl``) conflict windows: a window of whole sentences around the
edited one (:func:`conflict_window`) that stands alone (:func:`window_problem`), cut to a drawn length
gap (:func:`gap_target`); the copies of :mod:`~eviscope.builders.eviscope.near_duplicates` are cut to
the same gap, so that neither lengths nor length gaps tell the variants apart
(:mod:`eviscope.suites.eviscope.shortcuts`)."""

from __future__ import annotations

import importlib
import random
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from eviscope.builders.eviscope.answer_types import ENTITY_MODEL
from eviscope.builders.eviscope.conflict_lints import (
    ConflictCase,
    run_lints,
    substituted_phrase,
    without_cue_sentences,
)
from eviscope.builders.eviscope.eligibility import _NAME, _POINTS_BACK, _occurrences
from eviscope.core.normalize import STOPWORDS, tokens
from eviscope.core.sentences import sentence_spans
from eviscope.suites.eviscope.squad_source import Squad

if TYPE_CHECKING:
    from eviscope.builders.eviscope.candidates import Candidate


_CONNECTIVE = re.compile(
    r"^[\"'“‘(]?(?:Besides|However|Finally|Further|Furthermore|Afterwards?|Subsequently|Indeed|Notably|"
    r"Nonetheless|Nevertheless|Also|Thus|Therefore|Hence|Consequently|Accordingly|Instead|Still|Yet|But|And|"
    r"Nor|Moreover|Meanwhile|Then|Later|Again|Otherwise|Conversely|Similarly|Likewise|Another|Others|"
    r"In addition|Additionally|As a result|As such|In turn|By contrast|In contrast|On the other hand|"
    r"For this reason|Despite this|After (?:this|that)|At that time|By then|Until then|Since then|Even so|"
    r"In the end|Ultimately|Overall|Here|There(?:after|fore|by)|Other|Such|Similar|Each|Both|"
    r"The (?:latter|former|same|couple|pair|two|three|rest|remainder))\b"
    r"(?!\s+(?:of|to|as|than)\b)(?!\s+(?:[a-z]+\s+)?(?:year|day|week|month|season|summer|winter|spring|autumn|time)s?\b)"
)
"""A passage's first sentence that opens on a connective that leans on the text before it ("Besides, …
there are also:", "However", "In addition", "Other sports clubs include"), not on its prepositional use
that names what it leans on ("As a result of the earthquake", "In addition to the territories", "Each
year", "Each sitting day")."""
_PRONOUN = re.compile(
    r"^(?:\W*\w+\b){0,7}?\W*\b(?P<pronoun>[Hh]e|[Ss]he|[Hh]im|[Hh]is|[Hh]er|[Tt]hey|[Tt]hem|[Tt]heir|[Ii]ts?|[Tt]his|"
    r"[Tt]hese|[Tt]hose|[Ss]uch)\b(?!\s+as\b)"
)
"""A pronoun or demonstrative among a sentence's first eight words ("In 1187, he launched", "Their local
rivals", 'Made "Marquis of Pombal" in 1770, he'), whose referent :func:`needs_referent` looks for in the
sentence."""
_NEEDS_EVENT = frozenset(
    [
        "perpetrators",
        "victims",
        "survivors",
        "attackers",
        "assailants",
        "culprits",
        "killers",
        "rioters",
        "defenders",
        "mourners",
        "aftermath",
        "incident",
        "affair",
        "latter",
        "former",
        "remainder",
        "rest",
        "term",
        "word",
        "phrase",
        "expression",
        "concept",
        "notion",
    ]
)
"""Heads of a definite description that always refer back to an event, a set or a word named before ("An
amnesty granted in 1574 pardoned the perpetrators": of the massacre the window cut; "The use of the term
for the Iranian language family": of "The term Iranian" the paragraph before introduced), however
common the noun."""
_ENUMERATION = re.compile(
    r"^\W*(?:First(?:ly)?|Second(?:ly)?|Third(?:ly)?|Fourth(?:ly)?|Fifth(?:ly)?|Next|Lastly|Finally|"
    r"\d{1,2}[.)]|\([a-z0-9]\))(?:\W|$)"
)
"""A sentence that opens an item of an enumeration ("First, …", "Lastly, …", "(2) …")."""


_LEAD_IN = re.compile(
    r"(?:\bthe following|\bas follows|\bnamely|\bsuch as|\bincluding|\binclude|\bincludes)\W*$"
)
"""A passage's last words that announce what comes next ("… include:", "the following"), as a colon does."""
_DEMONSTRATIVES = frozenset({"the", "this", "these", "those", "that"})
TOPIC_SHARE = 0.15
"""A word in at least this share of an article's paragraphs is its topic ("the city" in Istanbul, "the
town" in Plymouth, "the show" in Doctor Who): a definite description of it refers to the article's
subject, which the document's title names, not to a sentence the passage cut."""
PLACE_KINDS = frozenset(
    {"country", "city", "state", "town", "nation", "island", "region", "province", "county", "capital"}
    | {"kingdom", "empire", "village", "territory", "colony", "republic"}
)
"""Kinds of place: "the country" refers to the country a cut sentence named unless the article is about
one (its topic words), however common the word in the source (issue 32's read: "Hitler had hoped to
conquer the country" in Rotterdam)."""
PREFIX = 5
"""A noun is named before where a word with its first this many letters is ("blocked … the blockages")."""
COMMON_SHARE = 0.08
"""A word in at least this share of a source's paragraphs is common ("the year", "the world", "the
city"): a definite description of it is understood without a referent in the text."""


@dataclass(frozen=True)
class Around:
    """What the article says around a paragraph, for :func:`window_problem`: ``before``, its previous
    paragraph (empty for the article's first), ``after``, the first sentence of the next one, and
    ``known``, the stems of the words a reader resolves without the text cut before a passage: the
    title's, the article's topic words (:data:`TOPIC_SHARE`) and the source's common ones
    (:data:`COMMON_SHARE`)."""

    before: str = ""
    after: str = ""
    known: frozenset[str] = frozenset()


def around(squad: Squad, paragraph: int) -> Around:
    """The :class:`Around` of ``squad``'s paragraph ``paragraph``, within its article (kept per source)."""
    key = (squad.name, squad.checksum, paragraph)
    if key not in _AROUND:
        paragraphs = squad.paragraphs
        title = paragraphs[paragraph].title
        same = [
            i
            for i in (paragraph - 1, paragraph + 1)
            if 0 <= i < len(paragraphs) and paragraphs[i].title == title
        ]
        before = paragraphs[paragraph - 1].context if paragraph - 1 in same else ""
        following = paragraphs[paragraph + 1].context if paragraph + 1 in same else ""
        after = following[slice(*sentence_spans(following)[0])] if following.strip() else ""
        topic = _article_topic(squad, title)
        # a kind of place ("the country") is understood without the cut text only as the article's topic
        _AROUND[key] = Around(before, after, topic | (_common(squad) - PLACE_KINDS))
    return _AROUND[key]


_AROUND: dict[tuple[str, str, int], Around] = {}
_TOPICS: dict[tuple[str, str, str], frozenset[str]] = {}


def _shared(texts: list[str], share: float) -> frozenset[str]:
    """The stems of the words in at least ``share`` of ``texts``."""
    counts = Counter(w for text in texts for w in {_stem(w) for w in tokens(text)})
    return frozenset(w for w, k in counts.items() if k >= share * len(texts))


def _article_topic(squad: Squad, title: str) -> frozenset[str]:
    """The stems of ``title`` and of the words in :data:`TOPIC_SHARE` of its article's paragraphs."""
    key = (squad.name, squad.checksum, title)
    if key not in _TOPICS:
        topic = _shared([p.context for p in squad.paragraphs if p.title == title], TOPIC_SHARE)
        _TOPICS[key] = topic | {_stem(w) for w in tokens(title.replace("_", " "))}
    return _TOPICS[key]


def _common(squad: Squad) -> frozenset[str]:
    """The stems of the words in :data:`COMMON_SHARE` of ``squad``'s paragraphs."""
    key = (squad.name, squad.checksum, "")
    if key not in _TOPICS:
        _TOPICS[key] = _shared([p.context for p in squad.paragraphs], COMMON_SHARE)
    return _TOPICS[key]


def _stem(word: str) -> str:
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


@cache
def _parser():  # spaCy's Language, imported on first use
    """spaCy's tagger and parser (:data:`~eviscope.builders.eviscope.answer_types.ENTITY_MODEL`)."""
    return importlib.import_module(ENTITY_MODEL).load(exclude=["ner", "lemmatizer"])


@lru_cache(maxsize=65536)
def _parse(sentence: str):  # spaCy's Doc
    return _parser()(sentence)


def definite_heads(sentence: str) -> tuple[tuple[int, str], ...]:
    """``(offset, noun)`` of every bare definite description of ``sentence``: "the" or a demonstrative
    and a common noun with nothing that says which thing it is (spaCy's parse: no adjective, name,
    number or compound before it, no "of …", "for …", relative clause or apposition after it), which
    needs a referent ("took the mausoleum", "recorded the name", "participated in the coup").

    >>> definite_heads("In 1939 soldiers took the mausoleum from the Lord's Enclosure to the largest city.")
    ((22, 'mausoleum'),)
    >>> definite_heads("Krapf recorded the name as Kenia, the name of the country, in the year 1849.")
    ((15, 'name'), (46, 'country'))
    """
    found = []
    for token in _parse(sentence):
        head = token.head
        if (
            token.dep_ == "det"
            and token.lower_ in _DEMONSTRATIVES
            and head.pos_ == "NOUN"
            and head.dep_ != "compound"
            and head.i == token.i + 1
            and [c.i for c in head.children] == [token.i]
        ):
            found.append((token.idx, head.lower_))
    return tuple(found)


_QUANTIFIERS = frozenset(
    {"all", "some", "many", "most", "several", "none", "few", "both", "neither", "either", "each", "others"}
)


def bare_quantifier(sentence: str) -> bool:
    """``sentence``'s subject is a quantifier standing for a noun the sentence does not name ("All declared
    their support for Richard"): of whom, the text before says.

    >>> bare_quantifier("All declared their support for Richard in 1191."), bare_quantifier("All students declared it.")
    (True, False)
    """
    return any(
        t.lower_ in _QUANTIFIERS and t.dep_ in {"nsubj", "nsubjpass"} and not list(t.children)
        for t in _parse(sentence)
    )


def needs_referent(sentence: str) -> bool:
    """``sentence`` opens on a pronoun or demonstrative (:data:`_PRONOUN`) whose referent it does not
    name: no name or subject before it ("Warsaw, especially its city centre", "BSkyB launched its"), it
    is no cataphora (an opening phrase before the subject it refers to: "Since its invention in 1269,
    the 'Phags-pa script") and no expletive "it" ("It is estimated that", "it was said … that").

    >>> needs_referent("Their local rivals, Polonia Warsaw, have fewer supporters."), needs_referent("In 1928, Tesla received his last patent.")
    (True, False)
    >>> needs_referent("Under its new owner, The Sunday Times notched up several firsts."), needs_referent("It is estimated that 60% will.")
    (False, False)
    >>> needs_referent('Made "Marquis of Pombal" in 1770, he ruled Portugal.'), needs_referent("When Tesla arrived in 1884, he met Edison.")
    (True, False)
    """
    match = _PRONOUN.match(sentence)
    if not match:
        return False
    doc = _parse(sentence)
    pronoun = next((t for t in doc if t.idx == match.start("pronoun")), None)
    if pronoun is None:  # the parse splits the words otherwise: the pronoun stands as the regex found it
        return True
    before = doc[: pronoun.i]
    # A subject pronoun refers to a subject named before it ("When Tesla arrived, he"), not to a name that
    # an opening phrase holds as its object ('Made "Marquis of Pombal" in 1770, he ruled').
    subject = pronoun.dep_ in {"nsubj", "nsubjpass"}
    if any((t.pos_ == "PROPN" and not subject) or t.dep_ in {"nsubj", "nsubjpass"} for t in before):
        return False
    if pronoun.dep_ == "expl" or (
        pronoun.lower_ == "it"
        and pronoun.dep_ in {"nsubj", "nsubjpass"}
        and any(c.dep_ in {"ccomp", "xcomp", "csubj"} for c in pronoun.head.children)
    ):
        return False
    subject = next((t for t in doc if t.dep_ in {"nsubj", "nsubjpass"} and t.i > pronoun.i), None)
    comma = next((t.i for t in doc if t.text == "," and t.i > pronoun.i), None)
    return not (
        comma is not None and subject is not None and subject.i > comma and subject.pos_ in {"PROPN", "NOUN"}
    )


_ANAPHORIC_ADVERB = re.compile(
    r"\b(?:subsequently|thereafter|thereupon|afterwards?|meanwhile|beforehand)\b(?!\s+(?:to|of)\b)"
    r"|\bas\s+well\b(?!\s+as\b)|,?\s\btoo\s*[.,;]"
    r"|^\W*The\s+(?:[a-z]+est|first|second|third|last|next|remaining)\s+(?:is|was|are|were|has|had|have|one|ones)\b"
    r"|\b(?:noted|mentioned|listed|described|cited|discussed|named|shown)\s+(?:above|earlier|previously|before)\b"
    r"|\b(?:afore|above-?)mentioned\b"
    r"|\b(?:was|were|is|are|been|had|has|have|would|he|she|they|it)\s+later\b",
    re.IGNORECASE,
)
"""What dates or compares by what was told before, anywhere in a passage's first sentence: an adverb
("Sporadic use of the term occurred subsequently"), "as well" or "too" ("There are other significant
ethnic minorities as well"), a superlative or ordinal standing for a noun ("The oldest is claimed to have
been set up in 1221"), what was "noted above" ("In addition to the territories noted above"), what
happened "later" than a cut event ("West was later released")."""
_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December"
    "|spring|summer|autumn|fall|winter"
)
_TIME_BACK = re.compile(
    r"(?i:\b(?:that|the\s+(?:same|following|next|previous|preceding|prior))\s+(?:year|month|week|day|decade|season|"
    + _MONTHS.lower()
    + r")s?\b|\b(?:later|earlier)\s+that\b)"
    r"|(?:^|\b(?:[Ii]n|[Bb]y|[Oo]n|[Uu]ntil|[Ff]rom|[Ss]ince|[Dd]uring|[Tt]hrough|[Ee]arly|[Ll]ate|[Mm]id-?)\s+)(?:the\s+)?(?:"
    + _MONTHS
    + r")\b(?!\s*-)"
)
"""A time that only the text before the sentence dates: a month or season named without its year
("By November the 300 Spanish colonists had dwindled"), "that year", "the following spring", "later
that"; read only where the sentence names no year."""
_YEAR_NAMED = re.compile(r"(?<!\d)(?:1\d{3}|20\d{2})(?!\d)|'\d{2}\b")
_NEEDS_COMPLEMENT = frozenset(
    {"version", "remainder", "majority", "minority", "successor", "predecessor", "sequel", "counterpart"}
    | {"equivalent", "replacement", "revision", "variant"}
)
"""Nouns that name a thing by its relation to another ("a toned down version", "the successor", "the
majority"): without an "of …" that names the other, a reader of a window that cut sentences of its
paragraph looks for it in them (a paragraph's opening is read whole: "proved an important result")."""
_NEEDS_COMPLEMENT_FORMS = _NEEDS_COMPLEMENT | {w + "s" for w in _NEEDS_COMPLEMENT}


def points_back(sentence: str) -> bool:
    """``sentence`` leans on text before it past its opening words: an anaphoric adverb
    (:data:`_ANAPHORIC_ADVERB`), a time that only the text before dates (:data:`_TIME_BACK`: a month
    without its year, "that year"), or a demonstrative determiner ("this power", "these reforms") whose noun
    the sentence has not named before it and that is no time ("this year"); a reader resolves it from
    the text before, however common the noun.

    >>> points_back("Older constitutions often vest this power in the cabinet."), points_back("Use of the term occurred subsequently.")
    (True, True)
    >>> points_back("In 1950 a company sold power to the town, and this company grew."), points_back("In 1890 he moved.")
    (False, False)
    >>> points_back("By November the 300 colonists had dwindled."), points_back("By November 1526 the colonists had left.")
    (True, False)
    """
    if _ANAPHORIC_ADVERB.search(sentence):
        return True
    if _TIME_BACK.search(sentence) and not _YEAR_NAMED.search(sentence):
        return True
    for token in _parse(sentence):
        head = token.head
        if (
            token.dep_ == "det"
            and token.lower_ in {"this", "these", "those"}
            and head.pos_ == "NOUN"
            and head.i > token.i
            and _stem(head.lower_) not in _TIME_HEADS
            and _stem(head.lower_)[:PREFIX] not in {_stem(w)[:PREFIX] for w in tokens(sentence[: token.idx])}
        ):
            return True
    return False


def _cut_referent(opening: str, cut: str, known: frozenset[str], within: str = "") -> bool:
    """``opening`` (the passage's first sentence) names a bare definite description
    (:func:`definite_heads`) whose noun it has not named before but the text cut before it has
    (``cut``: the sentences dropped and the article's previous paragraph), a noun that a reader does
    not resolve without that text (not in ``known``: :class:`Around`); or one that always refers back
    (:data:`_NEEDS_EVENT`); or, where the passage cuts sentences of its own paragraph (``within``), a
    description with modifiers (:func:`described_heads`: "the 300 Spanish colonists") whose noun those
    sentences name, or an adjective of an unnamed place (:func:`_unnamed_place`). A paragraph's opening is
    read against the paragraph before only by its bare descriptions: the article's paragraphs share
    their words, and a paragraph opens on what it speaks of."""
    words = re.findall(r"(?i)\b(?:the|this|these|those|that)\s+((?:[\w-]+\s+){0,3}[a-z][\w-]*)", opening)
    gone = {_stem(w) for w in tokens(cut)} - STOPWORDS - known
    if within.strip() and _unnamed_place(opening):
        return True
    cut_prefixes = {w[:PREFIX] for w in {_stem(w) for w in tokens(within)} - STOPWORDS - known}
    if not any(
        _stem(w) in gone or _stem(w)[:PREFIX] in cut_prefixes or w in _NEEDS_EVENT
        for run in words
        for w in run.lower().split()
    ):
        return False  # no word of a description was cut: the parse is not needed
    for offset, noun in definite_heads(opening):
        shown = {_stem(w)[:PREFIX] for w in tokens(opening[:offset])}  # "blocked" names "the blockages"
        if noun in _NEEDS_EVENT or (_stem(noun) in gone and _stem(noun)[:PREFIX] not in shown):
            return True
    for offset, noun in described_heads(opening):
        shown = {_stem(w)[:PREFIX] for w in tokens(opening[:offset])}
        if _stem(noun)[:PREFIX] in cut_prefixes and _stem(noun)[:PREFIX] not in shown:
            return True
    return False


_PLACE_ADJECTIVES = frozenset(
    {"national", "nationwide", "countrywide", "domestic", "federal", "provincial", "statewide", "municipal"}
)
"""Adjectives that speak of a place without naming it ("the national import bill"): which nation, only a
name in the sentence says, else the text cut before it."""


def _unnamed_place(sentence: str) -> bool:
    """``sentence`` speaks of a place by an adjective (:data:`_PLACE_ADJECTIVES`) and names no place or
    other proper noun that would say which.

    >>> _unnamed_place("Petroleum accounts for 19% to 25% of the national import bill.")
    True
    >>> _unnamed_place("Petroleum accounts for 19% to 25% of Kenya's national import bill.")
    False
    """
    doc = _parse(sentence)
    return any(t.lower_ in _PLACE_ADJECTIVES for t in doc) and not any(t.pos_ == "PROPN" for t in doc)


def described_heads(sentence: str) -> tuple[tuple[int, str], ...]:
    """``(offset, noun)`` of every definite description of ``sentence`` that names no name, bare or with
    modifiers ("the 300 Spanish colonists", "the national import bill", "The auditorium of the theatre"):
    "the" or a demonstrative and a common noun (no time, :data:`_TIME_HEADS`) with no proper noun in the
    phrase. Where the cut text names its noun (or a word of the same stem: "colony", "colonists"), the
    description refers to it.

    >>> described_heads("By 1527 the 300 Spanish colonists left the Carolina coast.")
    ((8, 'colonists'),)
    """
    found = []
    for token in _parse(sentence):
        head = token.head
        if (
            token.dep_ == "det"
            and token.lower_ in _DEMONSTRATIVES - {"that"}  # "wrote that decentralization …"
            and head.pos_ == "NOUN"
            and head.i > token.i
            and _stem(head.lower_) not in _TIME_HEADS
            and not any(t.pos_ == "PROPN" for t in head.subtree)
        ):
            found.append((token.idx, head.lower_))
    return tuple(found)


def needs_complement(sentence: str) -> bool:
    """``sentence`` names a thing by its relation to another (:data:`_NEEDS_COMPLEMENT`: "a toned down
    version", "the successor") without an "of …" (or another preposition: "a majority in both chambers"), a
    possessive, a clause or a name that says which other.

    >>> needs_complement("A toned down version was adopted in 1989."), needs_complement("A version of the plan passed in 1989.")
    (True, False)
    """
    for token in _parse(sentence):
        if token.pos_ == "NOUN" and token.lower_ in _NEEDS_COMPLEMENT_FORMS:
            children = list(token.children)
            if not any(
                c.dep_ in {"prep", "poss", "compound", "acl", "relcl", "appos"} or c.pos_ == "PROPN"
                for c in children
            ):
                return True
    return False


_EXAMPLE = re.compile(r"^[^.;:]{0,80}?\b(?:for example|for instance|e\.g\.)(?:\W|$)", re.IGNORECASE)
"""A sentence that gives an example of what a sentence before it said ("In the United Kingdom, for example,
…"): cut from that sentence, it does not stand alone."""
_TIME_HEADS = frozenset(
    {"year", "time", "century", "decade", "day", "month", "week", "season", "period", "world"}
)
"""Heads of a definite description that a reader resolves without the text before it ("the year", "the time")."""


def opens_on_definite(sentence: str) -> bool:
    """``sentence`` names, before its main verb, a definite description of common nouns, with a modifier or a
    possessive or none ("The use of the term", "The network's lead broadcast team", "At the west end of the
    zone", "The affected region"): after a cut, its referent is the cut sentence's (issue 32's reads). A
    description that holds a name ("the United Kingdom", "The Sunday Times") or a number, or of time ("the
    year"), refers to nothing before it.

    >>> opens_on_definite("The affected region was 1,160,000 square miles."), opens_on_definite("In 1928, Tesla got a patent.")
    (True, False)
    >>> opens_on_definite("The Sunday Times notched up several firsts."), opens_on_definite("Sporadic use of the term occurred.")
    (False, True)
    """
    doc = _parse(sentence)
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None:
        return False
    for token in doc[: root.i]:
        head = token.head
        if (
            token.lower_ not in _DEMONSTRATIVES
            or token.dep_ != "det"
            or head.pos_ != "NOUN"
            or head.i > root.i
        ):
            continue
        phrase = doc[token.i : head.i + 1]
        if _stem(head.lower_) in _TIME_HEADS or any(t.pos_ in {"PROPN", "NUM"} for t in phrase):
            continue
        return True
    return False


def _inside_quotation(text: str, at: int) -> bool:
    """``text[at]`` stands inside a quotation or a parenthesis that opened before it (an odd number of
    straight double quotes, more “ than ”, or more ( than ): "the 1st Proletarian Assault Brigade (1.
    Proleterska Udarna Brigada)", which a sentence splitter cuts after "(1.")."""
    before = text[:at]
    return (
        before.count('"') % 2 == 1
        or before.count("“") > before.count("”")
        or before.count("(") > before.count(")")
    )


def window_problem(
    text: str, spans: list[tuple[int, int]], first: int, last: int, context: Around | None = None
) -> str | None:
    """Why the passage ``spans[first : last + 1]`` of paragraph ``text`` does not stand alone, or ``None``.

    Its first sentence, where a sentence before it is cut or, with ``context``, where the article has a
    paragraph before it, opens on no connective, pronoun or demonstrative (:data:`_POINTS_BACK`,
    :data:`_CONNECTIVE`) and on no item of an enumeration, and names no definite description ("the
    massacre", "the perpetrators", "the mausoleum") whose referent the cut text names
    (:func:`_cut_referent`); no cut falls inside a quotation; the passage neither ends on a sentence
    that announces what follows (a colon, "include", "the following") nor cuts an enumeration
    (:data:`_ENUMERATION`, in the next sentence or, with ``context``, the next paragraph). With
    ``context`` the whole paragraph is read too: a passage shown whole stands alone by the same rules.

    >>> text = "In 1572 the massacre began. An amnesty granted in 1574 pardoned the perpetrators. It held."
    >>> spans = sentence_spans(text)
    >>> window_problem(text, spans, 1, 1), window_problem(text, spans, 0, 1)
    ('cut_referent', None)
    >>> window_problem("Parks grew. Besides, there are also: A, B and C. Zoos came in 1927.", [(0, 11), (12, 47), (48, 67)], 1, 2)
    'opens_on_connective'
    >>> text = 'He said "We won. We will win in 1920." Then he left.'
    >>> window_problem(text, sentence_spans(text), 0, 0)
    'cuts_quotation'
    >>> text = "In 1939 soldiers took the mausoleum to Gansu. It came back in 1954."
    >>> before = "Genghis Khan was buried in secret. The Genghis Khan Mausoleum is his memorial."
    >>> window_problem(text, sentence_spans(text), 0, 1), window_problem(text, sentence_spans(text), 0, 1, Around(before))
    (None, 'cut_referent')
    >>> text = "The symbol dates from 1390. In 1653 the poet asks the question:"
    >>> window_problem(text, sentence_spans(text), 0, 1, Around())
    'cuts_list'
    """
    context = context or Around()
    start, end = spans[first][0], spans[last][1]
    opening = text[start : spans[first][1]]
    if _inside_quotation(text, start) or (end < len(text.rstrip()) and _inside_quotation(text, end)):
        return "cuts_quotation"
    cut = f"{context.before}\n{text[:start]}"
    if first or context.before.strip():
        if _CONNECTIVE.match(opening) or needs_referent(opening) or bare_quantifier(opening):
            return "opens_on_connective"
        if points_back(opening):
            return "points_back"
        if _cut_referent(opening, cut, context.known, text[:start]) or (first and needs_complement(opening)):
            return "cut_referent"
        if _ENUMERATION.match(opening) or text[:start].rstrip().rstrip("”\"' )").endswith(":"):
            return "cuts_list"
    shown = text[start:end].rstrip().rstrip("”\"' )")
    if shown.endswith(":") or _LEAD_IN.search(shown):
        return "cuts_list"
    following = text[spans[last + 1][0] : spans[last + 1][1]] if last + 1 < len(spans) else context.after
    if following and _ENUMERATION.match(following):
        return "cuts_list"
    if first and _EXAMPLE.match(opening):
        return "opens_on_example"
    if first and opens_on_definite(opening):
        return "opens_on_definite"
    return None


GAP_RANGE = (0.05, 0.35)
"""The length gaps a balanced config draws, uniformly, for its conflict windows (a window is at least
a sentence shorter than its passage, so the range starts well above 0)."""


WHOLE_GAP = 0.01
"""A length gap at most this small is a whole passage's (its edit alone changes its length): a window
or a copy cut to it is the whole passage, else the nearest shorter one."""


def gap_target(seed: int, question_id: str) -> float:
    """The length gap drawn for a question's conflict window (:data:`GAP_RANGE`); its second
    same-article passage is then chosen as much shorter than the support as the window is, so that
    neither the gap between two same-article passages nor their lengths tell a variant apart
    (:mod:`eviscope.suites.eviscope.shortcuts`)."""
    return random.Random(f"{seed}:{question_id}:gap").uniform(*GAP_RANGE)


def _gap(a: int, b: int) -> float:
    """The relative length difference of two texts (as the shortcut audit measures it)."""
    return abs(a - b) / max(a, b, 1)


def conflict_window(squad: Squad, candidate: Candidate, gap: float) -> tuple[str, str] | None:
    """The run of whole sentences of the repaired conflict passage, holding the edited sentence, whose
    length gap to the support is nearest ``gap``, and the same run of the support: a window that stands
    alone in its article (:func:`window_problem` with :func:`around`), else the whole passage where it
    stands alone; ``None`` where none stands alone and passes the lints.

    A window drops sentences after the edited one freely; it drops sentences before it only where the
    first kept sentence does not point back (:data:`_POINTS_BACK`) and no kept sentence names what only
    a dropped one introduced. It must pass the six lints against the same window of the support.

    >>> from types import SimpleNamespace as NS
    >>> text = "Rome grew. It held 10 forts. Its trade rose in 1210. Ships came often to the port."
    >>> squad = NS(name="made-up", checksum="", paragraphs=[NS(title="Rome", context=text)])
    >>> case = NS(question=NS(question="When did trade rise?", paragraph=0), aliases=("1210",),
    ...           conflict_text=text.replace("1210", "1204"), conflict_answer="1204",
    ...           support_span=(29, 52), drops_cue_sentences=False)
    >>> conflict_window(squad, case, 0.35)[0]  # "Its trade …" points back: no sentence before it is dropped
    'Rome grew. It held 10 forts. Its trade rose in 1204.'

    """
    text, new = candidate.conflict_text, candidate.conflict_answer
    support = squad.paragraphs[candidate.question.paragraph].context
    base = without_cue_sentences(support) if candidate.drops_cue_sentences else support
    old = substituted_phrase(base, text, new)
    spans = sentence_spans(text)
    at = text.find(new)
    if old is None:
        return None
    edited = next(i for i, (s, e) in enumerate(spans) if s <= at < e)
    context = around(squad, candidate.question.paragraph)
    options: list[tuple[float, int, int]] = []
    for first in range(edited + 1):
        kept = text[spans[first][0] :]
        dropped = text[: spans[first][0]]
        names = {m.group().removesuffix("’s").removesuffix("'s") for m in _NAME.finditer(" " + dropped)}
        if first and (_POINTS_BACK.match(kept) or any(_occurrences(kept, n) for n in names)):
            continue
        for last in range(edited, len(spans)):
            if (first, last) != (0, len(spans) - 1) and window_problem(
                text, spans, first, last, context
            ) is None:
                length = spans[last][1] - spans[first][0]
                options.append((abs(_gap(len(support), length) - gap), first, last))
    # Where no shorter window stands alone, the whole passage (where it stands alone); first where the gap
    # asked is a whole one's.
    whole = (
        [(0.0, 0, len(spans) - 1)] if window_problem(text, spans, 0, len(spans) - 1, context) is None else []
    )
    for _, first, last in whole + sorted(options) if gap <= WHOLE_GAP else [*sorted(options), *whole]:
        # The whole passage keeps the whitespace around its sentences, as the support shown beside it
        # does (SQuAD-shifts ends every paragraph in a newline: a conflict passage one character
        # shorter than its support was a length tell of the conflicting row).
        whole_text = (first, last) == (0, len(spans) - 1)
        start, end = (0, len(text)) if whole_text else (spans[first][0], spans[last][1])
        window = text[start:end]
        original = text[start:at] + old + text[at + len(new) : end]
        case = ConflictCase(
            candidate.question.question,
            candidate.aliases,
            original,
            support[slice(*candidate.support_span)],
            window,
            new,
        )
        if all(r.ok for r in run_lints(case).values()):
            return window, original
    return None
