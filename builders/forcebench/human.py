"""Human-written claims of the sources beside AttributionBench (contract §5, issue 33).

Each reader turns one source's files into :class:`Unit`\\ s: a claim a person wrote against a passage
(a press office's conclusion, a Wikipedia editor's annotator claim, a journalist's news claim, a
fact-checker's accurate premise, a citing sentence), the passage it is checked against
(``evidence``, verbatim from the source) and the sentences of it that the source marks as the
evidence (``span``). Where the source holds a person's own over-claim of the same finding (InSciOut's
causal press sentence for a correlational abstract, MissciPlus's misinformation claim), the unit
says so: ``over_claim`` and its ``axis``; the drafting cuts it to a local difference.

The readers take only what each ``SOURCE.md`` describes; a file that is missing or not the
documented shape is an error naming the file and the source's flag.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eviscope.core.errors import EviScopeError
from eviscope.core.sources import SourceRef, how_to_point
from eviscope.suites.forcebench.rows import AXES

VITAMINC_AXES = ("scope", "temporal", "numeric")
"""VitaminC's axes: its Wikipedia claims give dated states, figures and quantifiers; "associated
with" there names an affiliation and "suggested" a proposal, so relation and modality are left out."""

__all__ = ["HUMAN_SOURCES", "HumanSource", "Unit", "detokenize", "read_units"]


@dataclass(frozen=True)
class Unit:
    """One human-written claim and the passage it is checked against."""

    source: str
    """``<Source>:<row id>``, the row's ``source`` field."""
    license: str
    context: str
    evidence: str
    span: str
    """The sentences of ``evidence`` the source marks as decisive (verbatim)."""
    claim: str
    """The human claim the evidence warrants, at its own force ('' when the source holds none)."""
    over_claim: str = ""
    """A person's own over-claim of the same finding ('' when the source holds none)."""
    axis: str = ""
    """The axis of ``over_claim``."""
    axes: tuple[str, ...] = AXES
    """The axes the source's claims are drafted on."""


def _load_jsonl(path: Path, name: str) -> Iterator[tuple[int, dict[str, Any]]]:
    if not path.is_file():
        raise EviScopeError(f"{name}: {path} is missing; {how_to_point(name)}")
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise EviScopeError(f"{name} {path}:{number}: not a JSON object ({err.msg})") from err
        if not isinstance(row, dict):
            raise EviScopeError(f"{name} {path}:{number}: not a JSON object")
        yield number, row


def _field(row: dict[str, Any], key: str, kind: type, where: str) -> Any:
    value = row.get(key)
    if not isinstance(value, kind):
        raise EviScopeError(f"{where}: field {key!r} missing or not a {kind.__name__}")
    return value


def _tidy(text: str) -> str:
    return " ".join(text.replace("\u00a0", " ").split())


_DETOKENIZE = (
    (re.compile(r"-LRB-\s*"), "("),
    (re.compile(r"\s*-RRB-"), ")"),
    (re.compile(r"-LSB-\s*"), "["),
    (re.compile(r"\s*-RSB-"), "]"),
    (re.compile(r"``\s*"), '"'),
    (re.compile(r"\s*''"), '"'),
    (re.compile(r"\s+([.,;:!?%)])"), r"\1"),
    (re.compile(r"\(\s+"), "("),
    (re.compile(r"\s+(n't|'s|'re|'ve|'ll|'d|'m)\b"), r"\1"),
    (re.compile(r"\$\s+(?=\d)"), "$"),
)


def detokenize(text: str) -> str:
    """VitaminC's tokenized Wikipedia text as a person writes it.

    >>> detokenize("Sarawak -LRB- Malaysia -RRB- had 110 cases , as of 27 March 2020 .")
    'Sarawak (Malaysia) had 110 cases, as of 27 March 2020.'
    >>> detokenize("Franta 's video has `` Coming Out '' in it")
    'Franta\\'s video has "Coming Out" in it'
    """
    text = _tidy(text)
    for pattern, repl in _DETOKENIZE:
        text = pattern.sub(repl, text)
    return text.strip()


def _sentence(text: str) -> str:
    text = _tidy(text)
    if text and text[-1] not in ".!?":
        text += "."
    return text[:1].upper() + text[1:]


# InSciOut ----------------------------------------------------------------------------------------

_CONCLUSIONS = re.compile(r"^(?:CONCLUSIONS?|INTERPRETATION|SIGNIFICANCE)\s*(?:AND RELEVANCE)?\s*:\s*", re.I)


_ATTRIBUTION_TAIL = re.compile(
    r"(?:,|\s[—–-])\s*(?=[^,—–]*\b(?:finds?|found|conclude[sd]?|reveals?|says?|said|according to|published|"
    r"reports?|reported|shows?|suggests?|indicates?)\b)(?=[^,—–]*\b(?:study|studies|research|researchers|"
    r"trial|review|analysis|BMJ|journal|Journal|paper|authors|experts|scientists|team|data)\b)[^,—–]*\.$"
)


def press_claim(text: str) -> str:
    """A press release's conclusion without its closing attribution (", finds a study in The BMJ
    today"), which names a journal or team that the abstract does not.

    >>> press_claim("Cycling is linked to fewer deaths, finds a study in The BMJ today.")
    'Cycling is linked to fewer deaths.'
    >>> press_claim("Cycling, a cheap habit, is linked to fewer deaths.")
    'Cycling, a cheap habit, is linked to fewer deaths.'
    """
    text = _sentence(text)
    return _ATTRIBUTION_TAIL.sub(".", text)


def read_insciout(folder: Path) -> Iterator[Unit]:
    """InSciOut: a press release's conclusion against the abstract's conclusion for the same finding.
    A correlational abstract (strength 1) with a press sentence at the same strength gives a
    calibrated human claim; with a causal press sentence (strength 2 or 3), a human relation
    over-claim; a causal abstract (3) with a causal press sentence, a claim whose evidence warrants
    causation (a control)."""
    for name in ("insciout_train.jsonl", "insciout_test.jsonl"):
        for number, row in _load_jsonl(folder / name, "insciout"):
            where = f"insciout {folder / name}:{number}"
            press = press_claim(_field(row, "press_release_conclusion", str, where))
            abstract = _tidy(_CONCLUSIONS.sub("", _tidy(_field(row, "abstract_conclusion", str, where))))
            a, p = (
                _field(row, "abstract_strength", int, where),
                _field(row, "press_release_strength", int, where),
            )
            source = f"InSciOut:{_field(row, 'original_file_id', str, where)}"
            if a == 1 and p in (2, 3):
                yield Unit(source, "GPL-3.0", "", abstract, abstract, "", over_claim=press, axis="relation")
            elif a == p:
                yield Unit(source, "GPL-3.0", "", abstract, abstract, press)


# VitaminC real ---------------------------------------------------------------------------------


def read_vitaminc(folder: Path) -> Iterator[Unit]:
    """VitaminC real revisions: every annotator's SUPPORTS claim against the Wikipedia sentence it was
    written for (each distinct claim once, the first row that holds it), detokenized. A case holds
    revisions of one sentence and annotators wrote several claims for it: each is a claim of its own
    (reading one per case with a figure or date gave 8,080 of the 17,071 distinct supported claims,
    leaving out among others the "as of" claims of later revisions). The temporal and numeric axes
    need a date or a figure in the evidence; a sentence without one gives scope only."""
    seen: set[str] = set()
    for number, row in _load_jsonl(folder / "test.jsonl", "vitaminc_real"):
        where = f"vitaminc_real {folder / 'test.jsonl'}:{number}"
        if _field(row, "label", str, where) != "SUPPORTS":
            continue
        _field(row, "case_id", str, where)
        evidence = detokenize(_field(row, "evidence", str, where))
        claim = _sentence(detokenize(_field(row, "claim", str, where)))
        if claim in seen:
            continue
        seen.add(claim)
        page = detokenize(_field(row, "page", str, where))
        yield Unit(
            f"VitaminC:{_field(row, 'unique_id', str, where)}",
            "CC BY-SA 3.0",
            page,
            evidence,
            evidence,
            claim,
            axes=VITAMINC_AXES if re.search(r"\d", evidence) else ("scope",),
        )


# Check-COVID -----------------------------------------------------------------------------------


def read_check_covid(folder: Path) -> Iterator[Unit]:
    """Check-COVID: a SUPPORT news claim against the abstract it was checked on; the span is the
    claim's evidence sentences (PRIMARY and SUPPLEMENTARY) in abstract order."""
    corpus: dict[str, list[str]] = {}
    for number, row in _load_jsonl(folder / "corpus.json", "check_covid"):
        where = f"check_covid {folder / 'corpus.json'}:{number}"
        corpus[_field(row, "cord_id", str, where)] = [_tidy(s) for s in _field(row, "abstract", list, where)]
    seen: set[str] = set()
    for number, row in _load_jsonl(folder / "Check-COVID_all.json", "check_covid"):
        where = f"check_covid {folder / 'Check-COVID_all.json'}:{number}"
        if _field(row, "label", str, where) != "SUPPORT":
            continue
        sentences = corpus.get(_field(row, "cord_id", str, where))
        claim = _sentence(_field(row, "claim", str, where))
        if not sentences or claim in seen:
            continue
        seen.add(claim)
        picked = sorted({e["sent_index"] for e in _field(row, "evidence_set", list, where)})
        if not picked or picked[-1] >= len(sentences):
            continue
        lo, hi = max(0, picked[0] - 1), min(len(sentences), picked[-1] + 2)
        evidence = " ".join(sentences[lo:hi])
        span = " ".join(sentences[i] for i in picked)
        if span not in evidence:
            span = sentences[picked[0]]
        yield Unit(f"Check-COVID:{row['id']}", "MIT", "", evidence, span, claim)


# MissciPlus ------------------------------------------------------------------------------------

_RELATION_FALLACIES = frozenset(["Causal Oversimplification"])
_SCOPE_FALLACIES = frozenset(
    ["Hasty Generalization", "False Equivalence", "Biased Sample Fallacy", "Biased Sample"]
)


def read_missciplus(folder: Path) -> Iterator[Unit]:
    """MissciPlus: the annotator's accurate premise (a calibrated human claim) against the passages
    of the cited study it maps to; the misinformation claim is the human over-claim, on relation for
    a causal oversimplification, on scope for an overgeneralisation."""
    for name in ("dev.missciplus.jsonl", "test.missciplus.jsonl"):
        for number, row in _load_jsonl(folder / name, "missciplus"):
            where = f"missciplus {folder / name}:{number}"
            argument = _field(row, "argument", dict, where)
            premise = _field(argument, "accurate_premise_p0", dict, where)
            passages = _field(_field(row, "study", dict, where), "all_passages", dict, where)
            mapped = [m for m in premise.get("mapping", []) if m.get("passage") in passages]
            if not mapped:
                continue
            sentences = passages[mapped[0]["passage"]]["sentences"]
            picked = [i for i in mapped[0].get("sentences", []) if i < len(sentences)]
            if not picked:
                continue
            evidence = " ".join(_tidy(s) for s in sentences)
            span = " ".join(_tidy(sentences[i]) for i in sorted(picked))
            if span not in evidence:
                span = _tidy(sentences[picked[0]])
            classes = {
                f.get("class")
                for fallacy in argument.get("fallacies", [])
                for f in fallacy.get("interchangeable_fallacies", [])
            }
            axis = (
                "relation" if classes & _RELATION_FALLACIES else "scope" if classes & _SCOPE_FALLACIES else ""
            )
            claim = _sentence(_field(premise, "premise", str, where))
            over = _sentence(_field(argument, "claim", str, where)) if axis else ""
            yield Unit(
                f"MissciPlus:{row.get('id', number)}", "Apache-2.0", "", evidence, span, claim, over, axis
            )


# Citation-Integrity ----------------------------------------------------------------------------

_CITATION_MARK = re.compile(
    r"\s*\[?<\|(?:cit|multi_cit|other_cit)\|>\]?(?:\s*,\s*\[?<\|(?:cit|multi_cit|other_cit)\|>\]?)*"
)


def read_citation_integrity(folder: Path) -> Iterator[Unit]:
    """Citation-Integrity: a citing sentence labelled ACCURATE for every evidence set of one cited
    document, against that document's abstract; the span is the labelled sentences."""
    corpus: dict[int, list[str]] = {}
    for number, row in _load_jsonl(folder / "corpus.jsonl", "citation_integrity"):
        where = f"citation_integrity {folder / 'corpus.jsonl'}:{number}"
        corpus[int(_field(row, "doc_id", int, where))] = [
            _tidy(s) for s in _field(row, "abstract", list, where)
        ]
    for name in ("claims-train.jsonl", "claims-dev.jsonl", "claims-test.jsonl"):
        for number, row in _load_jsonl(folder / name, "citation_integrity"):
            where = f"citation_integrity {folder / name}:{number}"
            evidence_sets = _field(row, "evidence", dict, where)
            if len(evidence_sets) != 1:
                continue
            ((doc, sets),) = evidence_sets.items()
            sentences = corpus.get(int(doc))
            if not sentences or any(s.get("label") != "ACCURATE" for s in sets):
                continue
            picked = sorted({i for s in sets for i in s.get("sentences", []) if i < len(sentences)})
            if not picked:
                continue
            claim = _CITATION_MARK.sub("", _field(row, "claim", str, where))
            claim = _sentence(
                re.sub(r"\s*(?:\(\s*[,;]?\s*\)|\[\s*[,;]?\s*\])|,\d+(?:[,–-]\d+)*(?=[.;]?$)", "", claim)
            )
            lo, hi = max(0, picked[0] - 2), min(len(sentences), picked[-1] + 3)
            evidence = " ".join(sentences[lo:hi])
            span = " ".join(sentences[i] for i in picked)
            if span not in evidence:
                span = sentences[picked[0]]
            yield Unit(
                f"Citation-Integrity:{name.split('-')[1].split('.')[0]}-{row.get('id', number)}",
                "MIT",
                "",
                evidence,
                span,
                claim,
            )


# TimeQA human ----------------------------------------------------------------------------------

_TIMEQA_Q = re.compile(
    r"^(?:(?P<pre>(?:From|Between|In|During) [^,]*?\d{4}[^,]*?),\s*)?"
    r"(?:which|what) (?P<what>team|club|position|office|role) (?:did|was|were) (?P<who>.+?) "
    r"(?P<verb>play for|play|hold|work for|serve as|serve) ?(?P<post>(?:from|between|in|during) [^?]*?\d{4}[^?]*?)?\?$",
    re.I,
)


def read_timeqa(folder: Path) -> Iterator[Unit]:
    """TimeQA human: a time-scoped question and its answer over a Wikipedia paragraph. A claim is
    written only for the question shapes ``_TIMEQA_Q`` reads (which team/position X played for/held
    in a named period): "From 2006 to 2009, X played for Y." The evidence is the answer's paragraph."""
    tenses = {
        "play for": "played for",
        "play": "played for",
        "hold": "held",
        "work for": "worked for",
        "serve as": "served as",
        "serve": "served as",
    }
    for name in ("human_annotated_train.json", "human_annotated_test.json"):
        path = folder / name
        if not path.is_file():
            raise EviScopeError(f"timeqa_human: {path} is missing; {how_to_point('timeqa_human')}")
        try:
            documents = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise EviScopeError(f"timeqa_human {path}: not JSON ({err.msg})") from err
        for doc in documents:
            paras = doc.get("paras", [])
            for q, (question, answers) in enumerate(doc.get("questions", [])):
                m = _TIMEQA_Q.match(_tidy(question))
                if not m or not answers or not (m.group("pre") or m.group("post")):
                    continue
                answer = answers[0]
                if not isinstance(answer.get("para"), int) or answer["para"] >= len(paras):
                    continue
                when = m.group("pre") or m.group("post")
                when = when[:1].lower() + when[1:]
                obj = detokenize(answer["answer"])
                claim = _sentence(f"{m.group('who')} {tenses[m.group('verb').lower()]} {obj} {when}")
                evidence = detokenize(paras[answer["para"]])
                yield Unit(
                    f"TimeQA:{doc.get('index', name)}#{q}", "BSD-3-Clause", "", evidence, evidence, claim
                )


@dataclass(frozen=True)
class HumanSource:
    """A source of human-written claims: its key (a :class:`~eviscope.core.sources.Source`'s name),
    its name in rows, its licence and its reader."""

    name: str
    title: str
    license: str
    read: Callable[[Path], Iterator[Unit]]


HUMAN_SOURCES: tuple[HumanSource, ...] = (
    HumanSource("insciout", "InSciOut", "GPL-3.0", read_insciout),
    HumanSource("vitaminc_real", "VitaminC", "CC BY-SA 3.0", read_vitaminc),
    HumanSource("check_covid", "Check-COVID", "MIT", read_check_covid),
    HumanSource("missciplus", "MissciPlus", "Apache-2.0", read_missciplus),
    HumanSource("citation_integrity", "Citation-Integrity", "MIT", read_citation_integrity),
    HumanSource("timeqa_human", "TimeQA", "BSD-3-Clause", read_timeqa),
)


def read_units(source: HumanSource, ref: SourceRef) -> list[Unit]:
    """Every unit of ``source`` at ``ref`` (a local folder)."""
    folder = Path(ref.location)
    if not folder.is_dir():
        raise EviScopeError(
            f"{source.title} ({ref.location}, from {ref.via}): not a folder; {how_to_point(source.name)}"
        )
    return list(source.read(folder))
