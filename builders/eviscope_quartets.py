"""The EviScope builder: SQuAD v1.1 questions to quartets of evidence variants (SPEC §2).

One pass over SQuAD finds every *eligible* base question; each config then draws its quartets from
them with the same seed:

1. **Eligible.** The shortest gold alias (the *core*) is a year, a number or a name
   (:mod:`~eviscope.builders.answer_forms`); every alias contains the core; the core occurs exactly
   once in the paragraph, on word boundaries; the paragraph holds no conflict cue; the repaired
   conflict passage passes all six lints; and a *related* passage exists: the paragraph of the same
   article that BM25 ranks highest for the question among those that hold no gold alias.
2. **Selected.** The eligible questions are shuffled with ``random.Random(seed)`` and taken in that
   order while their article has fewer than ``per_article_cap`` quartets, until ``n_quartets``.
3. **Variants.** *sufficient*: the support paragraph. *noisy*: the support and two paragraphs of
   other articles drawn with a per-question seed, each holding no gold alias. *insufficient*: the
   same two paragraphs and the related passage. *conflicting*: the support and the conflict passage.

Documents get ``doc-<first 8 hex of sha256(text)>`` ids, so the same text has the same id wherever
it appears and an id says nothing of a document's role; each row's documents are shuffled with a
seed derived from the row id. A repaired conflict replaces the core with a different year within
twenty years, a different number of the same form, or, for a name, the core of another question
with the same question phrase ("who", "what team", ...) from another article.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import bm25s

from eviscope.builders.answer_forms import answer_form, substitute_number, substitute_year
from eviscope.builders.conflict_edits import legacy_conflict, repaired_conflict
from eviscope.builders.conflict_lints import ConflictCase, LintResult, conflict_cues_in, run_lints
from eviscope.normalize import contains, tokens
from eviscope.rows import EXPECTED_ACTION, VARIANTS, row_id
from eviscope.sentences import sentence_at
from eviscope.squad_source import Question, Squad


@dataclass(frozen=True)
class QuartetParams:
    """How many quartets a config draws, and how many at most from one article."""

    n_quartets: int
    per_article_cap: int


@dataclass(frozen=True)
class Candidate:
    """An eligible base question with everything its quartet needs from its own article."""

    question: Question
    title: str
    aliases: tuple[str, ...]
    form: str
    support_span: tuple[int, int]
    related: int
    """Paragraph index of the related (insufficient) passage."""
    conflict_text: str
    conflict_answer: str


@dataclass(frozen=True)
class Quartet:
    """A selected base question, its id, and both of its conflict passages."""

    quartet_id: str
    candidate: Candidate
    distractors: tuple[int, int]
    legacy_text: str
    legacy_answer: str


def doc_id(text: str) -> str:
    """The opaque, role-blind id of a document text.

    >>> doc_id("Some passage.") == doc_id("Some passage.") != doc_id("Another passage.")
    True
    """
    return "doc-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def question_phrase(question: str) -> str:
    """The question phrase that types a name answer: ``who``, or ``what``/``which`` and the next word.

    >>> question_phrase("Which NFL team won Super Bowl 50?"), question_phrase("In 1066, who won?")
    ('which nfl', 'who')
    """
    words = tokens(question)
    for i, word in enumerate(words):
        if word in {"what", "which"} and i + 1 < len(words):
            return f"{word} {words[i + 1]}"
        if word in {"who", "whom", "whose", "where"}:
            return word
    return ""


def _aliases(question: Question) -> tuple[str, ...]:
    """The distinct SQuAD answers, in source order."""
    return tuple(dict.fromkeys(text.strip() for text, _ in question.answers))


def _occurrences(text: str, phrase: str) -> list[int]:
    return [m.start() for m in re.finditer(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)", text)]


@dataclass(frozen=True)
class _Eligible:
    """A question past the cheap checks, before its conflict passage is made."""

    question: Question
    aliases: tuple[str, ...]
    core: str
    core_start: int
    form: str
    support_span: tuple[int, int]


def _cheap_checks(squad: Squad, question: Question, cued: set[int]) -> _Eligible | str:
    """The question's core and answer span, or why it cannot be a base question."""
    context = squad.paragraphs[question.paragraph].context
    aliases = _aliases(question)
    core = min(aliases, key=lambda a: (len(tokens(a)), len(a)))
    form = answer_form(core)
    if form == "other" or not tokens(core):
        return "answer is not a year, number or name"
    if not all(contains(alias, core) for alias in aliases):
        return "aliases do not share one core answer"
    starts = _occurrences(context, core)
    if len(starts) != 1:
        return "core answer is not stated exactly once"
    if question.paragraph in cued:
        return "support passage holds a conflict cue"
    first = min(start for _, start in question.answers)
    last = max(start + len(text) for text, start in question.answers)
    span = (sentence_at(context, first)[0], sentence_at(context, last - 1)[1])
    return _Eligible(question, aliases, core, starts[0], form, span)


def find_candidates(
    squad: Squad, seed: int, progress: Callable[[Iterable[Question]], Iterable[Question]] = iter
) -> tuple[list[Candidate], Counter[str]]:
    """Every eligible base question of ``squad``, in source order, and why the others were not."""
    rejected: Counter[str] = Counter()
    eligible: list[_Eligible] = []
    cued = {i for i, p in enumerate(squad.paragraphs) if conflict_cues_in(p.context)}
    for question in progress(squad.questions):
        checked = _cheap_checks(squad, question, cued)
        if isinstance(checked, str):
            rejected[checked] += 1
        else:
            eligible.append(checked)

    names: dict[str, list[_Donor]] = {}
    for item in eligible:
        if item.form == "name":
            title = squad.paragraphs[item.question.paragraph].title
            donor = _Donor(item.core, title, frozenset(tokens(item.question.question)))
            names.setdefault(question_phrase(item.question.question), []).append(donor)

    retriever = _RelatedPassages(squad)

    candidates: list[Candidate] = []
    for item in eligible:
        made = _make_candidate(squad, item, seed, names, retriever)
        if isinstance(made, str):
            rejected[made] += 1
        else:
            candidates.append(made)
    return candidates, rejected


@dataclass(frozen=True)
class _Donor:
    """A name answer that may stand in for the answer of a question of the same phrase."""

    core: str
    title: str
    question_words: frozenset[str]


def _alternative(
    item: _Eligible, support: str, title: str, rng: random.Random, names: dict[str, list[_Donor]]
) -> str | None:
    """A same-form alternative to the core that the support passage does not already state.

    A name comes from another article's question of the same phrase and word count, the one whose
    question shares the most words with this one (so "Which university ..." gets a university).
    """

    def usable(option: str) -> bool:
        return not contains(support, option) and not any(
            contains(option, a) or contains(a, option) for a in item.aliases
        )

    if item.form != "name":
        make = substitute_year if item.form == "year" else substitute_number
        options = [option for option in sorted({make(item.core, rng) for _ in range(8)}) if usable(option)]
        return rng.choice(options) if options else None
    phrase = question_phrase(item.question.question)
    words = set(tokens(item.question.question))
    tiers: dict[int, set[str]] = {}
    for donor in names.get(phrase, []) if phrase else []:
        if donor.title != title and len(donor.core.split()) == len(item.core.split()):
            tiers.setdefault(len(words & donor.question_words), set()).add(donor.core)
    for shared in sorted(tiers, reverse=True):
        options = sorted(core for core in tiers[shared] if usable(core))
        if options:
            return rng.choice(options)
    return None


def _make_candidate(
    squad: Squad, item: _Eligible, seed: int, names: dict[str, list[_Donor]], retriever: _RelatedPassages
) -> Candidate | str:
    paragraph = squad.paragraphs[item.question.paragraph]
    rng = random.Random(f"{seed}:{item.question.id}:conflict")
    alternative = _alternative(item, paragraph.context, paragraph.title, rng, names)
    if alternative is None:
        return f"no same-form alternative for a {item.form}"
    conflict_text = repaired_conflict(paragraph.context, item.core, item.core_start, alternative)
    case = ConflictCase(
        item.question.question,
        item.aliases,
        paragraph.context,
        paragraph.context[slice(*item.support_span)],
        conflict_text,
        alternative,
    )
    failed = [name for name, result in run_lints(case).items() if not result.ok]
    if failed:
        return f"repaired conflict fails lint {failed[0]}"

    related = retriever.related(squad, item.question, item.aliases)
    if related is None:
        return "no same-article passage without a gold alias"
    return Candidate(
        item.question,
        paragraph.title,
        item.aliases,
        item.form,
        item.support_span,
        related,
        conflict_text,
        alternative,
    )


class _RelatedPassages:
    """BM25 (bm25s) over every paragraph, to find a question's most related same-article passage."""

    def __init__(self, squad: Squad) -> None:
        corpus = bm25s.tokenize([p.context for p in squad.paragraphs], stopwords="en", show_progress=False)
        self.retriever = bm25s.BM25()
        self.retriever.index(corpus, show_progress=False)
        self.by_article: dict[str, list[int]] = {}
        for index, paragraph in enumerate(squad.paragraphs):
            self.by_article.setdefault(paragraph.title, []).append(index)

    def related(self, squad: Squad, question: Question, aliases: tuple[str, ...]) -> int | None:
        """The highest-ranked other paragraph of the question's article that holds no gold alias."""
        query = bm25s.tokenize(question.question, stopwords="en", return_ids=False, show_progress=False)
        scores = self.retriever.get_scores(query[0])
        title = squad.paragraphs[question.paragraph].title
        others = [i for i in self.by_article[title] if i != question.paragraph]
        for index in sorted(others, key=lambda i: (-scores[i], i)):
            if not any(contains(squad.paragraphs[index].context, a) for a in aliases):
                return index
        return None


def select(candidates: list[Candidate], params: QuartetParams, seed: int) -> list[Candidate]:
    """``params.n_quartets`` candidates drawn with ``seed`` under the per-article cap, in source order."""
    order = list(range(len(candidates)))
    random.Random(seed).shuffle(order)
    per_article: Counter[str] = Counter()
    chosen: list[int] = []
    for index in order:
        title = candidates[index].title
        if per_article[title] < params.per_article_cap:
            per_article[title] += 1
            chosen.append(index)
            if len(chosen) == params.n_quartets:
                return [candidates[i] for i in sorted(chosen)]
    raise ValueError(
        f"only {len(chosen)} of {params.n_quartets} quartets can be drawn with at most "
        f"{params.per_article_cap} per article from {len(candidates)} eligible questions"
    )


def make_quartets(squad: Squad, chosen: list[Candidate], seed: int) -> list[Quartet]:
    """Ids, distractors and the legacy conflict passage of each chosen candidate."""
    width = max(2, len(str(len(chosen))))
    quartets = []
    for index, candidate in enumerate(chosen):
        donor = chosen[(index + 1) % len(chosen)].aliases[0]
        support = squad.paragraphs[candidate.question.paragraph].context
        quartets.append(
            Quartet(
                f"q{index + 1:0{width}d}",
                candidate,
                _distractors(squad, candidate, seed),
                legacy_conflict(support, candidate.aliases, donor, index),
                donor,
            )
        )
    return quartets


def _distractors(squad: Squad, candidate: Candidate, seed: int) -> tuple[int, int]:
    """Two paragraphs of other articles, drawn with a per-question seed, that hold no gold alias."""
    rng = random.Random(f"{seed}:{candidate.question.id}:distractors")
    picked: list[int] = []
    while len(picked) < 2:
        index = rng.randrange(len(squad.paragraphs))
        paragraph = squad.paragraphs[index]
        if (
            paragraph.title != candidate.title
            and index not in picked
            and not any(contains(paragraph.context, a) for a in candidate.aliases)
        ):
            picked.append(index)
    return picked[0], picked[1]


def conflict_case(squad: Squad, quartet: Quartet, legacy: bool) -> ConflictCase:
    """The lint input for the quartet's legacy (``v1``) or repaired (``v1.1``) conflict passage."""
    candidate = quartet.candidate
    support = squad.paragraphs[candidate.question.paragraph].context
    return ConflictCase(
        candidate.question.question,
        candidate.aliases,
        support,
        support[slice(*candidate.support_span)],
        quartet.legacy_text if legacy else candidate.conflict_text,
        quartet.legacy_answer if legacy else candidate.conflict_answer,
    )


def quartet_rows(squad: Squad, quartet: Quartet, legacy: bool, seed: int) -> list[dict]:
    """The four rows of a quartet, with the legacy or the repaired conflict passage."""
    candidate = quartet.candidate
    question = candidate.question
    support = squad.paragraphs[question.paragraph]
    related = squad.paragraphs[candidate.related]
    noise = [squad.paragraphs[i] for i in quartet.distractors]
    case = conflict_case(squad, quartet, legacy)

    def document(title: str, text: str) -> dict[str, str]:
        return {"doc_id": doc_id(text), "title": title, "text": text}

    support_doc = document(support.title, support.context)
    conflict_doc = document(support.title, case.conflict_text)
    noise_docs = [document(p.title, p.context) for p in noise]
    documents = {
        "sufficient": [support_doc],
        "noisy": [support_doc, *noise_docs],
        "insufficient": [*noise_docs, document(related.title, related.context)],
        "conflicting": [support_doc, conflict_doc],
    }
    span = [{"doc_id": support_doc["doc_id"], "text": case.support_span}]
    rows = []
    for variant in VARIANTS:
        rid = row_id(quartet.quartet_id, variant)
        shown = list(documents[variant])
        random.Random(f"{seed}:{rid}").shuffle(shown)
        has_support = variant != "insufficient"
        rows.append(
            {
                "id": rid,
                "quartet_id": quartet.quartet_id,
                "variant": variant,
                "question": question.question,
                "source_id": question.id,
                "title": support.title,
                "documents": shown,
                "answers": list(candidate.aliases),
                "expected_action": EXPECTED_ACTION[variant],
                "answerable": EXPECTED_ACTION[variant] == "answer",
                "supporting_doc_ids": [support_doc["doc_id"]] if has_support else [],
                "conflicting_doc_ids": [conflict_doc["doc_id"]] if variant == "conflicting" else [],
                "support_spans": span if has_support else [],
                "conflict_answer": case.conflict_answer if variant == "conflicting" else "",
            }
        )
    return rows


def check_doc_ids(rows: list[dict]) -> None:
    """Fail when two different texts of one config share a ``doc_id``."""
    seen: dict[str, str] = {}
    for row in rows:
        for document in row["documents"]:
            if seen.setdefault(document["doc_id"], document["text"]) != document["text"]:
                raise ValueError(f"doc_id collision on {document['doc_id']} in row {row['id']}")


def lint_report(squad: Squad, quartets: list[Quartet], legacy: bool) -> list[dict]:
    """Per-row lint results of one config's conflict passages."""
    results: list[dict] = []
    for quartet in quartets:
        lints: dict[str, LintResult] = run_lints(conflict_case(squad, quartet, legacy))
        results.append(
            {
                "id": row_id(quartet.quartet_id, "conflicting"),
                "lints": {name: {"ok": r.ok, "reason": r.reason} for name, r in lints.items()},
            }
        )
    return results
