"""Draft the ForceBench candidate pool (config ``forcebench``) from AttributionBench (contract §5, issues 4, 14).

Drafting is deterministic and rule-based. As in the ForceBench paper, the unit is a cited claim and
its passage:

1. Read every row of the AttributionBench copy and keep the ``attributable`` ones: a cited-QA
   system wrote the ``claim`` and its cited passages (``references``) support it.
2. Split each claim into sentences (``forcebench_claims.claim_sentences``: citation markers dropped,
   first letter capitalised, final full stop added; the wording is the claim's) and keep the
   self-contained ones (``eligible_sentence``; an opening ``It``/``They``/``This``… is allowed, as the
   question in ``context`` resolves it).
3. Run the axis patterns (``eviscope.suites.forcebench.patterns``) on each claim sentence. A match is the
   claim's force marker: the sentence is the calibrated claim, its local rewrite the raised claim,
   and the pattern gives the axis, severity, rationale and repair. The decisive span is the
   sentence of the cited passages (or pair of sentences) holding most of the claim's content words.
4. Reject every draft that fails a rule (``REJECTION_REASONS``, tried in order; the build report
   counts, per axis, the drafts each reason removed first): a raise off the paper's axes (help →
   direct effect, treat → cure, "for all time", "always" for "currently", a bound deleted), a raise
   the claim already licenses, a garbled claim, a calibrated claim naming what the evidence does not,
   then the lints (``eviscope.suites.forcebench.lints``): the span covers the claim, licenses its
   marker and does not license the raised form; the raise is local, on one axis, and changes no
   entity or number outside the marker's window.
5. Keep one contrast draft per calibrated claim and axis (the smallest seeded hash), at most
   ``MAX_PER_AXIS`` per axis, scarcest axis first, no claim on two axes: ``claim_source:
   attribution_claim``. An axis with fewer than ``FLOOR_PER_AXIS`` such drafts is filled up to it
   with drafts whose calibrated claim is a sentence of the cited passage itself (one per source row
   and axis, same rules): ``claim_source: evidence_sentence``.
6. Controls (``pair_type: licensed``): every unused claim or evidence sentence whose stronger marker
   a contrast rule can lower locally with a marker the contrast pairs use and raise back exactly
   (``lowerings``), whose span states the stronger wording with its neighbours, and that passes the
   same rules less the two on the raised form; kept in proportion to each marker's contrast count
   (``_select_matched``), at most ``CONTROLS_PER_AXIS`` per axis, cited claims first.

The evidence of a row is the paragraph of the cited passage that holds the span, clipped to the span
and two sentences on either side when the paragraph is longer than
``forcebench_claims.MAX_EVIDENCE_CHARS``; it is
always a verbatim excerpt. Every draft says ``annotation_status: drafted`` and ``split: pool``.

7. The annotation's marks (``MARKS_FILE``, written by ``eviscope forcebench marks`` from the filled
   sheets; ids, fingerprints and answers, no text) settle every draft whose id and fingerprint they
   record (:func:`eviscope.suites.forcebench.sheets.apply_marks`): kept rows become ``adjudicated``
   with their ``eval`` or ``pool`` split, rejected ones leave the config, and a draft whose text
   changed since it was read stays ``drafted`` in ``pool``, counted in the build report.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eviscope.builders.dataset_card import update_card
from eviscope.builders.forcebench.balance import match_shares
from eviscope.builders.forcebench.claims import Span, best_span, claim_sentences
from eviscope.builders.forcebench.grammar import grammar_flags
from eviscope.builders.forcebench.human import HUMAN_SOURCES, Unit, read_units
from eviscope.builders.parquet_split import split_path, write_split
from eviscope.core.errors import EviScopeError
from eviscope.core.normalize import contains, norm
from eviscope.core.sources import SourceRef, how_to_point
from eviscope.suites.forcebench.baselines import token_overlap
from eviscope.suites.forcebench.lints import (
    DRAFT_LINTS,
    MIN_COVERAGE,
    copies_evidence,
    coverage,
    edit_window,
    entities_and_numbers,
    failed_lints,
    lint_counts,
)
from eviscope.suites.forcebench.patterns import Edit, find_edits
from eviscope.suites.forcebench.rows import AXES, CLAIM_SOURCES, CONFIG, FORCEBENCH_FEATURES, PAIR_TYPES
from eviscope.suites.forcebench.sheets import apply_marks, read_marks_file

__all__ = [
    "MARKS_FILE",
    "MAX_PER_AXIS",
    "build_forcebench",
    "draft_rows",
    "eligible_sentence",
    "lints_of",
    "read_attributionbench",
]

MAX_PER_AXIS = 70
"""The most contrast drafts kept per axis (smallest seeded hash first)."""

CONTROLS_PER_AXIS = 70
"""The most control drafts (``pair_type: licensed``) kept per axis, cited claims first."""

CONTROL_RATIO = 1.0
"""The most controls kept per contrast pair of the same axis: every axis holds controls in the same
share of its pairs (issue 33), so that neither the axis nor its marker words tell the pair type."""

MARKS_FILE = Path(__file__).with_name("forcebench-annotation.marks.csv")
"""The committed marks of the two annotation passes and the adjudication (``eviscope forcebench marks``)."""

HUB_CONFIG = "subset_balanced"
HUB_SPLITS = ("dev", "test", "test_ood")
"""The hub splits read when no local copy is given; ``train`` is left out, as in the CI copy."""

_REQUIRED = {
    "id": str,
    "question": str,
    "claim": str,
    "references": list,
    "attribution_label": str,
    "src_dataset": str,
}
_PRONOUN_START = frozenset(
    [
        "it",
        "its",
        "this",
        "these",
        "those",
        "they",
        "their",
        "them",
        "he",
        "his",
        "she",
        "her",
        "we",
        "our",
        "us",
        "you",
        "your",
        "i",
        "that",
        "such",
        "there's",
        "yes",
        "yeah",
        "no",
        "well",
        "sure",
        "okay",
        "ok",
    ]
)
ANSWER_PRONOUNS = frozenset(["it", "its", "they", "their", "this", "these", "he", "his", "she", "her"])
"""Opening pronouns allowed in a cited answer's sentence: the question (``context``) says what they
refer to, as it does for the reader of the answer."""
_LABEL_START = re.compile(r"^[A-Z][A-Za-z]*: ")
_NUMBERED_END = re.compile(r"\s\d{1,2}\.$")
_BAD_TEXT = re.compile(
    r"https?:|www\.|[\[\]{}|•…<>@#*_=]|\.\.\.|[a-z][.!?][A-Z]|\s{2,}|[^\x00-\u2fff]|\s[.,;:!?]|[.!?]\s+[a-z]"
)


def read_attributionbench(source: SourceRef) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """All AttributionBench rows of ``source`` and a description of what was read (files, sha256).

    A local copy is a folder of ``*.jsonl`` files read in name order; the hub copy is the
    ``subset_balanced`` config, splits ``dev``, ``test`` and ``test_ood``.
    """
    where = f"AttributionBench ({source.location}, from {source.via})"
    if source.is_hub:
        return _read_hub(source, where)
    folder = Path(source.location)
    if not folder.is_dir():
        raise EviScopeError(f"{where}: not a folder of JSONL files; {how_to_point('attributionbench')}")
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        raise EviScopeError(f"{where}: no *.jsonl files in the folder; {how_to_point('attributionbench')}")
    rows: list[dict[str, Any]] = []
    digests: dict[str, str] = {}
    combined = hashlib.sha256()
    for path in files:
        data = path.read_bytes()
        digests[path.name] = hashlib.sha256(data).hexdigest()
        combined.update(path.name.encode() + b"\0" + data)
        for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
            if line.strip():
                rows.append(_parse_line(line, f"{path}:{number}"))
    return rows, {
        "location": str(folder),
        "via": source.via,
        "files": digests,
        "sha256": combined.hexdigest(),
    }


def _read_hub(source: SourceRef, where: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    import datasets

    try:
        dataset = datasets.load_dataset(source.location, HUB_CONFIG)
    except Exception as err:  # any failure to fetch or read the hub copy is the user's to fix
        raise EviScopeError(
            f"{where}: cannot load ({type(err).__name__}); {how_to_point('attributionbench')}"
        ) from err
    rows: list[dict[str, Any]] = []
    combined = hashlib.sha256()
    for split in HUB_SPLITS:
        for number, row in enumerate(dataset[split], start=1):
            rows.append(_check_row(dict(row), f"{where} split {split} row {number}"))
            combined.update(json.dumps(row, sort_keys=True, ensure_ascii=False).encode() + b"\n")
    return rows, {
        "location": source.location,
        "via": source.via,
        "splits": list(HUB_SPLITS),
        "sha256": combined.hexdigest(),
    }


def _parse_line(line: str, where: str) -> dict[str, Any]:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as err:
        raise EviScopeError(
            f"AttributionBench {where}: not a JSON object ({err.msg}); {how_to_point('attributionbench')}"
        ) from err
    if not isinstance(row, dict):
        raise EviScopeError(
            f"AttributionBench {where}: not a JSON object; {how_to_point('attributionbench')}"
        )
    return _check_row(row, f"AttributionBench {where}")


def _check_row(row: dict[str, Any], where: str) -> dict[str, Any]:
    for name, kind in _REQUIRED.items():
        if not isinstance(row.get(name), kind):
            raise EviScopeError(
                f"{where}: field {name!r} missing or not a {kind.__name__}; {how_to_point('attributionbench')}"
            )
    if not all(isinstance(ref, str) for ref in row["references"]):
        raise EviScopeError(f"{where}: field 'references' must be a list of strings")
    return row


def eligible_sentence(text: str, answer_pronoun: bool = False) -> bool:
    """True for a self-contained declarative sentence a claim can be drafted from. With
    ``answer_pronoun``, a sentence of a cited answer may open with a pronoun that the question
    resolves (``It``, ``They``, ``This``, …; see ``ANSWER_PRONOUNS``).

    >>> eligible_sentence("Regular exercise may lower blood pressure in older adults.")
    True
    >>> eligible_sentence("It may lower blood pressure in older adults.")
    False
    >>> eligible_sentence("It may lower blood pressure in older adults.", answer_pronoun=True)
    True
    """
    words = text.split()
    first = words[0].lower() if words else ""
    return (
        7 <= len(words) <= 50
        and text[0].isupper()
        and text.endswith(".")
        and (first not in _PRONOUN_START or (answer_pronoun and first in ANSWER_PRONOUNS))
        and not _BAD_TEXT.search(text)
        and not _LABEL_START.match(text)
        and not _NUMBERED_END.search(text)
    )


def _hash(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()


@dataclass(frozen=True)
class Origin:
    """Where a draft comes from: the source row's key (hashed into the id), the row's ``source``,
    ``context`` and ``source_license``."""

    key: str
    source: str
    context: str
    license: str


def _attribution_origin(row: dict[str, Any]) -> Origin:
    dataset = row["src_dataset"]
    terms = "MIT" if dataset == "ExpertQA" else f"Apache-2.0 (AttributionBench); {dataset}'s own terms"
    return Origin(
        row["id"],
        f"AttributionBench/{dataset}:{row['id']}",
        row["question"].strip() or row["claim"].strip(),
        terms,
    )


def _human_origin(unit: Unit) -> Origin:
    return Origin(unit.source, unit.source, unit.context, unit.license)


def human_span(unit: Unit, claim: str) -> Span:
    """The decisive span of a human ``claim``: the sentences its source marks, or, when they hold
    under ``MIN_COVERAGE`` of the claim's content words, the sentence (or two) of the same evidence
    that holds at least that share (``best_span``). The source's marked sentences are not always the
    ones the claim paraphrases (a Check-COVID news claim is checked on the whole abstract, its evidence
    set names the sentences of one finding); the span shown must still cover the claim
    (``span_covers_claim``), so no claim passes that its evidence does not hold.

    >>> unit = Unit("S:1", "MIT", "", "Cats sleep. Masks may cut spread in schools.", "Cats sleep.", "")
    >>> human_span(unit, "Masks may cut spread in schools.").text
    'Masks may cut spread in schools.'
    """
    if coverage(unit.span, claim) >= MIN_COVERAGE:
        return Span(unit.span, unit.evidence)
    best = best_span(claim, [unit.evidence])
    if best is not None and coverage(best.text, claim) >= MIN_COVERAGE:
        return Span(best.text, unit.evidence)
    return Span(unit.span, unit.evidence)


def _draft(
    row: Origin,
    calibrated: str,
    span: Span,
    edit: Edit,
    claim_source: str,
    pair_type: str,
    raised_source: str = "edit",
) -> dict[str, Any]:
    """A candidate row: ``calibrated`` is the weaker claim and ``edit.raised`` the stronger one."""
    old, new = edit.old.strip(" ,"), edit.new
    calibrated_window, raised_window = edit_window(calibrated, edit.raised)
    if pair_type == "licensed":
        rationale = (
            f'The cited span itself says "{raised_window}": it warrants the stronger claim as well as the '
            f'weaker one, which says "{old}".'
        )
        repair = "None needed: the evidence warrants both claims."
    elif new:
        rationale = (
            f'The claim says "{old}" and the cited span warrants no more: {edit.rule.boundary}. The raised '
            f'claim says "{new}", a stronger {edit.rule.axis} than the passage warrants.'
        )
        repair = f'Write "{calibrated_window}" instead of "{raised_window}".'
    else:
        rationale = (
            f'The claim is limited by "{old}", as the cited span is: {edit.rule.boundary}. The raised claim '
            f"drops the limit, a stronger {edit.rule.axis} than the passage warrants."
        )
        repair = f'Write "{calibrated_window}" instead of "{raised_window}".'
    if raised_source == "human":
        rationale = (
            f'A person wrote the stronger claim ("{raised_window}") of a finding the cited span states as '
            f'"{calibrated_window}": {edit.rule.boundary}.'
        )
    return {
        "id": "fb-" + _hash(row.key, edit.rule.axis, edit.rule.name, edit.start, calibrated, pair_type)[:10],
        "axis": edit.rule.axis,
        "severity": edit.severity,
        "context": row.context,
        "evidence": span.evidence,
        "evidence_span": span.text,
        "calibrated_claim": calibrated,
        "raised_claim": edit.raised,
        "repair": repair,
        "rationale": rationale,
        "source": row.source,
        "annotation_status": "drafted",
        "claim_source": claim_source,
        "raised_source": raised_source,
        "source_license": row.license,
        "pair_type": pair_type,
        "split": "pool",
    }


@dataclass
class _Pool:
    """The drafts of one ``claim_source`` and ``pair_type``: how many were drafted, how many each
    rejection reason removed (the first reason a draft fails), and those that pass.
    ``one_per_row`` keeps one draft per source row and axis (evidence sentences, where a long passage
    would otherwise give many); a claim sentence gives at most one per axis anyway."""

    one_per_row: bool
    pair_type: str = "contrast"

    drafts: Counter[str] = field(default_factory=Counter)
    removed: dict[str, Counter[str]] = field(default_factory=dict)
    by_source: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    """(source dataset, axis, ``drafts`` or the reason that removed them) → how many drafts."""
    passing: list[tuple[str, dict[str, Any], Edit]] = field(default_factory=list)

    def drop(self, reason: str, candidate: dict[str, Any]) -> None:
        """Count ``candidate`` as removed by ``reason``, per axis and per source dataset."""
        self.removed.setdefault(reason, Counter())[candidate["axis"]] += 1
        self.by_source[(source_name(candidate["source"]), candidate["axis"], reason)] += 1

    def add(self, candidate: dict[str, Any], edit: Edit, seed: int) -> None:
        axis = candidate["axis"]
        self.drafts[axis] += 1
        self.by_source[(source_name(candidate["source"]), axis, "drafts")] += 1
        reasons = rejection_reasons(candidate, edit)
        if len(reasons) == 1:  # the drafts that this reason alone removes: what easing it would give
            self.by_source[(source_name(candidate["source"]), axis, "alone:" + reasons[0])] += 1
        if reasons:
            self.drop(reasons[0], candidate)
        else:
            self.passing.append((_hash(seed, candidate["id"]), candidate, edit))

    def chosen(self) -> list[tuple[str, dict[str, Any], Edit]]:
        """One draft per (source row, axis) when ``one_per_row``, then one per (calibrated claim,
        axis), smallest hash first, in hash order."""
        by_row: dict[tuple[str, str], tuple[str, dict[str, Any], Edit]] = {}
        for item in sorted(self.passing, key=lambda item: item[0]):
            key = item[1]["source"] if self.one_per_row else item[1]["id"]
            by_row.setdefault((key, item[1]["axis"]), item)
        by_claim: dict[tuple[str, str], tuple[str, dict[str, Any], Edit]] = {}
        for item in sorted(by_row.values(), key=lambda item: item[0]):
            if by_claim.setdefault((norm(item[1]["calibrated_claim"]), item[1]["axis"]), item) is not item:
                self.drop("duplicate_claim_axis", item[1])
        return sorted(by_claim.values(), key=lambda item: item[0])

    def stats(self, kept: dict[str, int]) -> dict[str, Any]:
        return {
            "drafts": {axis: self.drafts[axis] for axis in AXES},
            "rejected": {
                reason: {axis: self.removed[reason][axis] for axis in AXES}
                for reason in REJECTION_REASONS
                if reason in self.removed
            },
            "passing": {axis: sum(c["axis"] == axis for _, c, _ in self.passing) for axis in AXES},
            "kept": kept,
        }


_PERMANENT = re.compile(
    r"\b(?:of the (?:decade|year|century|season|month|week|night|game|match|tournament|festival|race|show)"
    r"|of all time|ever|in history|first|last)\b",
    re.I,
)
_REPEATED_WORD = re.compile(r"\b(\w+) \1\b", re.I)
_DOUBLED_VERB = re.compile(r"\b(?:is|are|was|were|be|been|being) (?:is|are|was|were)\b", re.I)
_DANGLING = re.compile(r"\b(?:and|or|but|of|the|a|an|to|with|as|is|are|etc)\.$", re.I)


_SUPERLATIVE_BEFORE = re.compile(
    r"\bthe (?:first|last|only|most|least|(?!(?:west|rest|test|interest|forest|guest|request|contest|harvest|protest|chest)\b)\w+est)\b(?![^,;:]*[,;:])",
    re.I,
)
"""A superlative or ordinal whose clause runs on to the scope marker (no clause break between)."""
_MIXED_CONDITIONAL = re.compile(r"\b(?:will|may|might|can)\b.*\bhad (?:\w+ ){1,4}not\b", re.I)
_AUTHOR_LIST = re.compile(r"^[A-Z][a-z]+, (?:[A-Z]\. ?)+,")
_LIST_AFTER_COLON = re.compile(r"\b(?:including|include|includes|following|as follows): [A-Z]")
_QUESTION_OPENER = re.compile(
    r"^(?:Think|Consider|Ask|Imagine|Remember|Decide|Figure out)\b"
    r"|^\w+, (?:who|what|which|where|when|why|how) (?:is|are|was|were|do|does|did)\b"
)


def _unnatural(text: str) -> bool:
    """A garbled claim: a doubled word or verb (``is were``), unbalanced brackets or quotes, a dangling
    last word, sentences glued together (``(2007).This``), a number glued to letters (``4IR``), a
    pointer into the source (``Passage ID 3``), a mixed conditional (``every dollar … will save $32
    had the owner not paid``), an imperative or question, not a statement (``Think, who are the
    top 3-5 stakeholders …``), a reference's author list (``Kadin, M. E., Levi, E. & Kempf, W.
    Progression …``), a list glued on after a colon (``including: Asking questions …``) or TeX
    markup (``as $R^2$``)."""
    return bool(
        _MIXED_CONDITIONAL.search(text)
        or _AUTHOR_LIST.search(text)
        or _LIST_AFTER_COLON.search(text)
        or re.search(r"\$(?!\d)", text)
        or _QUESTION_OPENER.search(text)
        or _REPEATED_WORD.search(text)
        or _DOUBLED_VERB.search(text)
        or re.search(r"[.!?)][A-Z]", text)
        or re.search(r"\b(?:may|might|could) (?:likely|probably)\b", text)
        or text.count("(") != text.count(")")
        or text.count('"') % 2
        or _DANGLING.search(text)
        or re.search(r"\b(?:passage|id|document|source)\s+(?:id\s+)?\d", text, re.I)
        or re.search(r"\b\d+(?!st\b|nd\b|rd\b|th\b|s\b)[A-Za-z]{2,}\b", text)
    )


def _exceeds_span(row: dict[str, Any]) -> bool:
    """The weaker claim names an entity or number that the evidence does not (it says more than its
    span); compared lower-cased, numbers without commas. A human claim may also name its context
    (VitaminC's page title: the article the sentence stands in)."""
    named = (
        row["evidence"] if row["claim_source"] != "human_claim" else row["context"] + " " + row["evidence"]
    )
    evidence = named.lower().replace(",", "")
    claim = row["calibrated_claim"].split(" ", 1)[-1]  # the first word is capitalised as a sentence's
    return any(
        not re.search(rf"(?<!\w){re.escape(item)}(?!\w)", evidence) for item in entities_and_numbers(claim)
    )


def _stronger_in_span(row: dict[str, Any]) -> bool:
    """The span itself holds the stronger claim's changed words with one word either side."""
    _, strong = edit_window(row["calibrated_claim"], row["raised_claim"])
    return contains(row["evidence_span"], strong)


REJECTION_REASONS: tuple[str, ...] = (
    "not_association_to_causation",
    "unnatural_raise",
    "bound_deletion_only",
    "frequency_not_modality",
    "qualifier_deleted",
    "range_cut",
    "raise_licensed_by_claim",
    "quantifier_in_superlative",
    "unnatural_claim",
    "calibrated_exceeds_span",
    "copies_evidence",
    *DRAFT_LINTS,
    "stronger_not_in_span",
    "ungrammatical_rewrite",
    "duplicate_claim_axis",
    "claim_on_other_axis",
    "over_axis_cap",
    "over_marker_quota",
    "surface_unmatched",
)
"""Every reason a draft is not kept, in the order they are tried (the build report counts each per
axis). The first six are rules that find a limiter but give no pair of the paper's axes
(``Rule.reject``): help → direct effect and treat → cure are not association → causation; "since
2010" → "for all time" and "currently" → "always" are not English a person would write; deleting a
bound ("over", "at least", "up to") changes no precision; a frequency word ("often", "usually" →
"always") counts occasions, it is no epistemic or deontic modality (and "always had no idea" is no
English); deleting a place or population ("in South Africa", "in children") changes more than a
force marker, and the claim without it reads as the same claim elided; cutting a range to its
endpoint ("5-17" → "17") cuts a figure, it approximates none (``range_cut``). ``raise_licensed_by_claim``: a
past ranking or state that is permanent (``of the decade``, ``first``, ``ever``).
``quantifier_in_superlative``: a scope marker inside a superlative or ordinal ("the first … to
achieve this on all charts"), where "several" neither follows from "all" nor says less.
``unnatural_claim``: a garbled claim (``_unnatural``). ``calibrated_exceeds_span``: the weaker claim names what the evidence does not. Then
the nine lints (for controls ``raised_not_licensed`` is replaced by ``stronger_not_in_span``), then
``ungrammatical_rewrite``: a parse of the two claims flags the words the edit changed
(:mod:`eviscope.builders.forcebench.grammar`: "contribute to of", "associated with more the",
"caspase about 8"). Then the selection: one pair per claim and axis, one axis per claim, the
per-axis cap, for controls the per-marker quota that keeps their markers in the contrast pairs'
proportions (``_select_matched``), and last ``surface_unmatched``: the drafts set aside so that
contrasts and controls hold every surface cue in matched shares
(:func:`eviscope.builders.forcebench.balance.match_shares`)."""

_CONTROL_LINTS = tuple(
    name for name in DRAFT_LINTS if name not in ("raised_not_licensed", "span_licenses_marker")
)


_HUMAN_LINTS = tuple(name for name in DRAFT_LINTS if name != "span_licenses_marker")
_HUMAN_CONTROL_LINTS = _CONTROL_LINTS
"""A human claim is a paraphrase that a person checked against this evidence (VitaminC SUPPORTS,
Check-COVID SUPPORT, Citation-Integrity ACCURATE, InSciOut's press sentence coded at the abstract's
strength, MissciPlus's accurate premise): that person's judgment, not the marker list, says the span
warrants its force, so ``span_licenses_marker`` is not asked of it. ``span_covers_claim`` is (issue
33): the third annotation round found the calibrated claim not supported by its passage in 139 of
286 human-claim drafts with a settled answer, nearly always because the person's claim says more
than the passage shown (a news claim names a poll, a citing sentence what the cited paper's full
text says, a press release the journal); of the claims with 70% of their content words in the span,
14 of 75 were not supported, against 125 of 211 below. Every other lint is asked (the raise not licensed, local, on one axis),
and the annotators read every pair. For the same reason a control from a human claim needs no
``stronger_not_in_span``: the stronger claim is the person's own, checked against this evidence as
worded."""


def lints_of(row: dict[str, Any]) -> tuple[str, ...]:
    """The lints asked of ``row``: all of ``DRAFT_LINTS`` (controls: those less the two on the raised
    form), less ``span_licenses_marker`` for a human claim (``_HUMAN_LINTS``)."""
    human = row["claim_source"] == "human_claim"
    if row["pair_type"] == "contrast":
        return _HUMAN_LINTS if human else DRAFT_LINTS
    return _HUMAN_CONTROL_LINTS if human else _CONTROL_LINTS


def rejection_reasons(candidate: dict[str, Any], edit: Edit) -> list[str]:
    """The reasons ``candidate`` (drafted by ``edit``) is not a pair, in ``REJECTION_REASONS`` order."""
    reasons = [edit.rule.reject] if edit.rule.reject else []
    if edit.rule.name in ("past-state-to-present", "past-ranking-to-present") and _PERMANENT.search(
        candidate["calibrated_claim"]
    ):
        reasons.append("raise_licensed_by_claim")
    if edit.rule.axis == "scope" and _SUPERLATIVE_BEFORE.search(candidate["calibrated_claim"][: edit.start]):
        reasons.append("quantifier_in_superlative")
    if _unnatural(candidate["calibrated_claim"]) or _unnatural(candidate["raised_claim"]):
        reasons.append("unnatural_claim")
    if _exceeds_span(candidate):
        reasons.append("calibrated_exceeds_span")
    if copies_evidence(candidate):
        reasons.append("copies_evidence")
    reasons.extend(failed_lints(candidate, lints_of(candidate)))
    if (
        candidate["pair_type"] == "licensed"
        and candidate["claim_source"] != "human_claim"
        and not _stronger_in_span(candidate)
    ):
        reasons.append("stronger_not_in_span")
    if not reasons and grammar_flags(candidate, edit.rule.name):  # parsed only when nothing else failed
        reasons.append("ungrammatical_rewrite")
    return reasons


_NUMBER_SLOT = re.compile(
    r"(?<![\w.,$-])(?<!\bin )(?=\$?\d[\d,]*(?:\.\d+)?(?:%| (?!and\b|or\b|to\b|of\b)[a-z]{3,}))"
)
_FUTURE_TIME = re.compile(r"\b(?:20[2-9]\d|next|coming|upcoming|soon|later this|by the end of)\b", re.I)
_NO_QUANTITY_BEFORE = re.compile(
    r"(?:\b[A-Z][\w.]*|\b(?:over|under|than|least|most|to|from|between|about|nearly|almost|around|up|No"
    r"|type|phase|grade|stage|class|level|version|number|no|part|chapter|step|day|week|year|wave|round"
    r"|last|past|next|first|top|round of|aged?|ages)) $"
)
_PLURAL_BEFORE = re.compile(r"(?:[a-rt-z]s|people|children|men|women|they|we|you)\s*$", re.I)
_CAUSE_SLOT = re.compile(r"(?=\b(?:due to|because of|caused by|the result of)\b)")


def lowerings(sentence: str, vocabulary: Counter[tuple[str, str, str, str]]) -> Iterator[tuple[str, Edit]]:
    """Every local lowering of ``sentence``'s stronger marker that a contrast rule raises back into
    ``sentence`` exactly: (weaker claim, that rule's edit). The markers come from ``vocabulary``, the
    (axis, rule, limiter, raised form) of the contrast pairs, so controls and contrasts share them.
    A raised form that deletes its limiter is lowered by inserting the limiter before a quantity
    (numeric) or a cause (``partly due to``). A limiter asserting a consensus (``widely considered
    to``) is never inserted: the stronger claim (``known to``) does not state one."""
    target = norm(sentence)
    seen = set()
    for axis, rule, old, new in vocabulary:
        if re.search(r"\d", old):
            continue  # a limiter with a number of its own (a range) would invent that number
        if _CONSENSUS.search(old) and not _CONSENSUS.search(new):
            continue  # "known to" lowered to "widely considered to" asserts a consensus the span does not state
        if new:
            slots = [m.start() for m in re.finditer(rf"(?<!\w){re.escape(new)}(?!\w)", sentence)]
            cut = len(new)
        elif axis == "numeric":
            slots, cut = [m.start() for m in _NUMBER_SLOT.finditer(sentence)], 0
        elif rule == "partial-to-sole-cause":
            slots, cut = [m.start() for m in _CAUSE_SLOT.finditer(sentence)], 0
        else:
            continue
        if rule == "forecast-to-certainty" and not _FUTURE_TIME.search(sentence):
            continue  # "will" lowers to "is expected to" only for a dated or planned future
        for at in slots:
            if _NEGATION_BEFORE.search(sentence[max(0, at - 30) : at]):
                continue
            if axis == "relation" and _NO_CAUSE_SLOT.match(sentence, at + cut):
                continue  # "caused by" or "causes X to be" has no association in its place
            verb = old.split(" ", 1)[0]
            if verb in ("is", "are", "was", "were") and (verb in ("is", "was")) == bool(
                _PLURAL_BEFORE.search(sentence[:at])
            ):
                continue  # the limiter's verb agrees with the subject before it
            if axis == "numeric" and _NO_QUANTITY_BEFORE.search(sentence[:at]):
                continue  # a name (US 85, June 5) or a bound (over 15) comes before the number
            limiter = old if new or not old else old + " "
            if at == 0:
                limiter = limiter[:1].upper() + limiter[1:]
            weak = sentence[:at] + limiter + sentence[at + cut :]
            if weak in seen:
                continue
            for edit in find_edits(weak, axis):
                if edit.rule.name == rule and norm(edit.raised) == target:
                    seen.add(weak)
                    yield weak, edit
                    break


_NO_CAUSE_SLOT = re.compile(r"\s+by\b|\s+(?:[\w-]+\s+){1,4}to\s+\w+")
_CONSENSUS = re.compile(r"\b(?:widely|generally|commonly)\b", re.I)
_NEGATION_BEFORE = re.compile(r"\b(?:not|no|never|without|cannot|nor)\b|n't\b", re.I)


def _marker_key(edit: Edit) -> tuple[str, str, str, str]:
    return (edit.rule.axis, edit.rule.name, edit.old.strip(" ,").lower(), edit.new.strip().lower())


OVER_CLAIM_MARKERS: Counter[tuple[str, str, str, str]] = Counter(
    [
        *(
            ("relation", "associated-change-to-effect", f"{be} associated with {change}", verb)
            for be, ending in (("is", "s"), ("are", ""))
            for change, verb in (("increased", "increase" + ending), ("reduced", "reduce" + ending))
        ),
        *(
            ("relation", "association-to-causation", f"{be} associated with", verb)
            for be, verb in (("is", "causes"), ("are", "cause"), ("was", "caused"), ("were", "caused"))
        ),
    ]
)
"""The lowerings tried on a person's causal over-claim beside the contrast pairs' own markers: the
association that the raise rules turn back into ``increases``, ``reduces`` or ``causes``."""


def draft_rows(
    source_rows: list[dict[str, Any]], seed: int = 0, units: Sequence[Unit] = ()
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Draft ForceBench candidates from AttributionBench rows and the human sources' ``units``;
    returns the rows and drafting statistics.

    Contrast pairs: every cited or human claim with a rule's marker, raised by that rule
    (``raised_source: edit``), and every human over-claim lowered to its source's calibrated marker
    (``lowerings``; ``raised_source: human``); at most ``MAX_PER_AXIS`` per axis, drawn in turn from
    each source (``_interleave``). Controls: claims whose span says the stronger marker, lowered with
    the contrast pairs' markers (``lowerings``), drawn in proportion to how often the contrast pairs
    use each marker (``_select_matched``), at most ``CONTROLS_PER_AXIS`` per axis. No calibrated claim
    is on two axes or in two pairs, and no claim copies its evidence (``copies_evidence``). A human
    claim's span is ``human_span``. The statistics hold, per pool, the drafts and what removed them,
    and ``funnel``: per source dataset, every step from the claims read to the candidates (``_funnel``).
    """
    claim_units: list[tuple[Origin, str, Span, str, tuple[str, ...]]] = []
    read: Counter[tuple[str, str]] = Counter()  # (source dataset, step) → claims
    for row in source_rows:
        if row["attribution_label"] != "attributable":
            continue
        origin = _attribution_origin(row)
        for sentence in claim_sentences(row["claim"]):
            read["AttributionBench", "claims"] += 1
            if eligible_sentence(sentence, answer_pronoun=True):
                span = best_span(sentence, row["references"]) or _NO_SPAN
                claim_units.append((origin, sentence, span, "attribution_claim", AXES))
    for unit in units:
        name = source_name(unit.source)
        read[name, "units"] += 1
        read[name, "claims"] += bool(unit.claim)
        read[name, "over_claims"] += bool(unit.over_claim)
        if unit.claim and eligible_sentence(unit.claim):
            claim_units.append(
                (_human_origin(unit), unit.claim, human_span(unit, unit.claim), "human_claim", unit.axes)
            )
    for origin, sentence, _, _, axes in claim_units:
        read[source_name(origin.source), "eligible"] += 1
        read[source_name(origin.source), "with_marker"] += any(
            e.rule.axis in axes for e in find_edits(sentence)
        )
    pools = {name: _Pool(one_per_row=False) for name in (*CLAIM_SOURCES[:2], "human_raise")}
    for origin, sentence, span, claim_source, axes in claim_units:
        for edit in (edit for edit in find_edits(sentence) if edit.rule.axis in axes):
            pools[claim_source].add(
                _draft(origin, sentence, span, edit, claim_source, "contrast"), edit, seed
            )
    markers = Counter(_marker_key(edit) for pool in pools.values() for _, _, edit in pool.passing)
    for unit in units:
        if not unit.over_claim or not eligible_sentence(unit.over_claim):
            continue
        mine = Counter({key: n for key, n in (markers + OVER_CLAIM_MARKERS).items() if key[0] == unit.axis})
        for weak, edit in lowerings(unit.over_claim, mine):
            draft = _draft(
                _human_origin(unit),
                weak,
                human_span(unit, weak),
                edit,
                "human_claim",
                "contrast",
                "human",
            )
            pools["human_raise"].add(draft, edit, seed)
    used: set[str] = set()
    contrast = _select(list(pools.values()), MAX_PER_AXIS, used)
    vocabulary = Counter(_marker_key(edit) for _, _, edit in contrast)
    controls_pools = {name: _Pool(one_per_row=False, pair_type="licensed") for name in CLAIM_SOURCES[:2]}
    for origin, sentence, span, claim_source, axes in claim_units:
        if norm(sentence) in used:
            continue
        for weak, edit in lowerings(sentence, Counter({k: n for k, n in vocabulary.items() if k[0] in axes})):
            controls_pools[claim_source].add(
                _draft(origin, weak, span, edit, claim_source, "licensed"), edit, seed
            )
    controls = _select_matched(list(controls_pools.values()), vocabulary, used)
    drafted = contrast + controls
    kept, aside = match_shares([c for _, c, _ in drafted], [key for key, _, _ in drafted])
    pool_of = {
        id(item[1]): pool for pool in (*pools.values(), *controls_pools.values()) for item in pool.passing
    }
    for i in aside:
        candidate = drafted[i][1]
        pool_of[id(candidate)].drop("surface_unmatched", candidate)
    keep = {id(drafted[i][1]) for i in kept}
    contrast = [item for item in contrast if id(item[1]) in keep]
    controls = [item for item in controls if id(item[1]) in keep]
    rows = sorted((c for _, c, _ in contrast + controls), key=lambda c: (c["axis"], c["id"]))
    rows = [row for axis in AXES for row in rows if row["axis"] == axis]
    stats = {}
    for pool_type, named, chosen in (("contrast", pools, contrast), ("licensed", controls_pools, controls)):
        for name, pool in named.items():
            raised_source = "human" if name == "human_raise" else "edit"
            claim_source = "human_claim" if name == "human_raise" else name
            stats[f"{pool_type}/{name}"] = pool.stats(
                {
                    axis: sum(
                        c["axis"] == axis
                        and c["claim_source"] == claim_source
                        and c["raised_source"] == raised_source
                        for _, c, _ in chosen
                    )
                    for axis in AXES
                }
            )
    stats["funnel"] = _funnel(read, rows, {"contrast": pools, "licensed": controls_pools})
    return rows, stats


def _funnel(
    read: Counter[tuple[str, str]],
    rows: Sequence[dict[str, Any]],
    kinds: Mapping[str, Mapping[str, _Pool]],
) -> dict[str, Any]:
    """Per source dataset, where its claims are lost on the way to a candidate: the claims read
    (human sources: the units their reader yields, those with a claim and with an over-claim), the
    self-contained ones (``eligible``), those with a rule's marker on one of the source's axes, then
    per pair type the drafts and the drafts each reason removed first (``REJECTION_REASONS`` order)
    per axis, the drafts each rule's reason removes ``alone`` (no other rule fails them: what that rule
    costs; the selection's reasons are not counted here), and the candidates kept per axis."""
    names = sorted({name for name, _ in read} | {source_name(r["source"]) for r in rows})
    out: dict[str, Any] = {}
    for name in names:
        entry: dict[str, Any] = {
            step: read[name, step]
            for step in ("units", "claims", "over_claims", "eligible", "with_marker")
            if (name, step) in read
        }
        for kind, named in kinds.items():
            counts: Counter[tuple[str, str, str]] = sum((p.by_source for p in named.values()), Counter())
            entry[kind] = {
                "drafts": {axis: counts[name, axis, "drafts"] for axis in AXES},
                "removed": {
                    reason: {axis: counts[name, axis, reason] for axis in AXES}
                    for reason in REJECTION_REASONS
                    if any(counts[name, axis, reason] for axis in AXES)
                },
                "alone": {
                    reason: {axis: counts[name, axis, "alone:" + reason] for axis in AXES}
                    for reason in REJECTION_REASONS
                    if any(counts[name, axis, "alone:" + reason] for axis in AXES)
                },
                "kept": {
                    axis: sum(
                        r["axis"] == axis and r["pair_type"] == kind and source_name(r["source"]) == name
                        for r in rows
                    )
                    for axis in AXES
                },
            }
        out[name] = entry
    return out


def source_name(source: str) -> str:
    """The source dataset of a row's ``source`` (``AttributionBench/HAGRID:…`` gives
    ``AttributionBench``, ``InSciOut:25-191`` gives ``InSciOut``).

    >>> source_name("AttributionBench/HAGRID:HAGRID_5b49"), source_name("VitaminC:5ec2_1")
    ('AttributionBench', 'VitaminC')
    """
    return source.split(":", 1)[0].split("/", 1)[0]


def _interleave(items: list[tuple[str, dict[str, Any], Edit]]) -> list[tuple[str, dict[str, Any], Edit]]:
    """``items`` drawn in turn from each source (``source_name``, in name order), each source's own
    in hash order with its human over-claims first, so that a cap takes every source's share."""
    groups: dict[str, list[tuple[str, dict[str, Any], Edit]]] = {}
    for item in sorted(items, key=lambda item: (item[1]["raised_source"] != "human", item[0])):
        groups.setdefault(source_name(item[1]["source"]), []).append(item)
    ordered = [groups[name] for name in sorted(groups)]
    return [group[i] for i in range(max(map(len, ordered), default=0)) for group in ordered if i < len(group)]


def _limiter_from_evidence(row: dict[str, Any]) -> bool:
    """The weaker claim's limiter is a word of the evidence, so that the weaker claim holds more of
    the evidence's words than the stronger: controls draw their weaker wording from the evidence's
    words as contrast pairs do (``balance.match_shares`` then matches the shares)."""
    return token_overlap(row["evidence"], row["calibrated_claim"]) > token_overlap(
        row["evidence"], row["raised_claim"]
    )


def _select_matched(
    pools: list[_Pool], vocabulary: Counter[tuple[str, str, str, str]], used: set[str]
) -> list[tuple[str, dict[str, Any], Edit]]:
    """Per axis, at most ``CONTROLS_PER_AXIS`` controls whose markers follow the contrast pairs':
    each marker (axis, rule, limiter, raised form) gets slots in proportion to its contrast count, a
    marker short of drafts leaves its slots empty rather than give them to another (so a
    claim-only classifier cannot tell the pair type by the marker), drawn in turn from each source
    (``_interleave``); axes with fewest contrast pairs first, so a claim that fits two axes goes to
    the scarcer. A claim already used (a contrast pair, another control) is skipped and counted."""
    candidates = _interleave([item for pool in pools for item in pool.chosen()])
    candidates.sort(key=lambda item: not _limiter_from_evidence(item[1]))
    pool_of = {id(item[1]): pool for pool in pools for item in pool.passing}
    picked: list[tuple[str, dict[str, Any], Edit]] = []
    contrasts = Counter(key[0] for key in vocabulary.elements())
    for axis in sorted(AXES, key=lambda axis: (contrasts[axis], AXES.index(axis))):
        counts = {key: n for key, n in vocabulary.items() if key[0] == axis}
        total = sum(counts.values())
        if not total:
            continue
        most = min(CONTROLS_PER_AXIS, math.ceil(CONTROL_RATIO * total))
        quota = {key: math.ceil(n * most / total) for key, n in counts.items()}
        taken: Counter[tuple[str, str, str, str]] = Counter()
        mine = 0
        for item in candidates:
            candidate, key = item[1], _marker_key(item[2])
            if candidate["axis"] != axis:
                continue
            pool = pool_of[id(candidate)]
            if norm(candidate["calibrated_claim"]) in used or norm(candidate["raised_claim"]) in used:
                pool.drop("claim_on_other_axis", candidate)
            elif mine >= most or taken[key] >= quota.get(key, 0):
                pool.drop("over_marker_quota", candidate)
            else:
                used.update({norm(candidate["calibrated_claim"]), norm(candidate["raised_claim"])})
                taken[key] += 1
                mine += 1
                picked.append(item)
    return picked


def _select(pools: list[_Pool], most: int, used: set[str]) -> list[tuple[str, dict[str, Any], Edit]]:
    """Per axis, at most ``most`` drafts of all pools, drawn in turn from each source
    (``_interleave``); a calibrated claim already in ``used`` (on another axis or pair) is skipped
    and counted. Axes are filled scarcest first, so a claim that fits two axes goes to the one with
    fewer drafts."""
    chosen = [item for pool in pools for item in pool.chosen()]
    pool_of = {id(item[1]): pool for pool in pools for item in pool.passing}
    scarcity = {axis: sum(c["axis"] == axis for _, c, _ in chosen) for axis in AXES}
    picked: list[tuple[str, dict[str, Any], Edit]] = []
    for axis in sorted(AXES, key=lambda axis: (scarcity[axis], AXES.index(axis))):
        mine = 0
        for item in _interleave([item for item in chosen if item[1]["axis"] == axis]):
            candidate, pool = item[1], pool_of[id(item[1])]
            claim = norm(candidate["calibrated_claim"])
            if claim in used or norm(candidate["raised_claim"]) in used:
                pool.drop("claim_on_other_axis", candidate)
            elif mine >= most:
                pool.drop("over_axis_cap", candidate)
            else:
                used.update({claim, norm(candidate["raised_claim"])})
                mine += 1
                picked.append(item)
    return picked


_NO_SPAN = Span("", "")
"""The span of a claim that shares no content word with its cited passages (fails the span lints)."""


def build_forcebench(
    source: SourceRef,
    out_dir: Path,
    seed: int = 0,
    marks: Path | None = MARKS_FILE,
    human: Mapping[str, SourceRef | None] | None = None,
) -> dict[str, Any]:
    """Build ``out_dir/data/forcebench/test.parquet`` from AttributionBench and the human sources in
    ``human`` (name → its copy; a name missing or None: that source is left out and the report says
    so), settled by the ``marks`` file (None: every row ``drafted``); return the build report.

    Two builds from the same sources, seed and marks write byte-identical files.
    """
    source_rows, read = read_attributionbench(source)
    human = human or {}
    units: list[Unit] = []
    human_read: dict[str, Any] = {}
    for spec in HUMAN_SOURCES:
        ref = human.get(spec.name)
        if ref is None:
            human_read[spec.name] = None
            continue
        mine = read_units(spec, ref)
        units.extend(mine)
        human_read[spec.name] = {"location": ref.location, "via": ref.via, "units": len(mine)}
    drafts, stats = draft_rows(source_rows, seed, units)
    funnel = stats.pop("funnel")
    applied = apply_marks(drafts, {} if marks is None else read_marks_file(marks), seed)
    rows = applied.rows
    table = write_split(Path(out_dir), CONFIG, rows, FORCEBENCH_FEATURES)
    digest = update_card(Path(out_dir) / "README.md", CONFIG, FORCEBENCH_FEATURES, len(rows), table.nbytes)
    return {
        "config": CONFIG,
        "path": str(split_path(Path(out_dir), CONFIG)),
        "sha256": digest,
        "rows": len(rows),
        "candidates": len(drafts),
        "seed": seed,
        "axis": {axis: sum(r["axis"] == axis for r in rows) for axis in AXES},
        "severity": {str(s): n for s, n in sorted(Counter(r["severity"] for r in rows).items())},
        "annotation_status": dict(Counter(r["annotation_status"] for r in rows)),
        "annotation": {"marks": None if marks is None else Path(marks).name, **applied.report},
        "claim_source": {
            axis: {
                cs: sum(r["axis"] == axis and r["claim_source"] == cs for r in rows) for cs in CLAIM_SOURCES
            }
            for axis in AXES
        },
        "attribution_claim_share": round(
            sum(r["claim_source"] == "attribution_claim" for r in rows) / len(rows), 3
        )
        if rows
        else 0.0,
        "source_dataset": dict(sorted(Counter(r["source"].split(":", 1)[0] for r in rows).items())),
        "source_axis": {
            name: {
                axis: sum(r["axis"] == axis and source_name(r["source"]) == name for r in rows)
                for axis in AXES
            }
            for name in sorted({source_name(r["source"]) for r in rows})
        },
        "raised_source": dict(sorted(Counter(r["raised_source"] for r in rows).items())),
        "human_sources": human_read,
        "pair_type": {
            axis: {pt: sum(r["axis"] == axis and r["pair_type"] == pt for r in rows) for pt in PAIR_TYPES}
            for axis in AXES
        },
        "lints_passed": lint_counts([r for r in rows if r["pair_type"] == "contrast"], DRAFT_LINTS),
        "drafting": stats,
        "funnel": funnel,
        "source": {
            "name": "attributionbench",
            **read,
            "rows_read": len(source_rows),
            "attributable": sum(r["attribution_label"] == "attributable" for r in source_rows),
        },
    }
