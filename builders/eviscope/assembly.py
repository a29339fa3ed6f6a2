"""The four rows of a quartet (:func:`quartet_rows`), with role-blind document ids (:func:`doc_id`),
and the per-row lint report of a config's conflict passages (:func:`lint_report`)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping

from eviscope.builders.eviscope.conflict_lints import FURTHER_LINTS, ConflictCase, LintResult, run_lints
from eviscope.builders.eviscope.quartets import Quartet
from eviscope.builders.eviscope.surface_types import same_type
from eviscope.core.normalize import tokens
from eviscope.core.sentences import sentence_spans
from eviscope.suites.eviscope.rows import EXPECTED_ACTION, VARIANTS, row_id
from eviscope.suites.eviscope.squad_source import Squad


def doc_id(text: str) -> str:
    """The opaque, role-blind id of a document text.

    >>> doc_id("Some passage.") == doc_id("Some passage.") != doc_id("Another passage.")
    True
    """
    return "doc-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def conflict_case(squad: Squad, quartet: Quartet, legacy: bool) -> ConflictCase:
    """The lint input for the quartet's legacy (``v1``) or repaired (``v1.1``) conflict passage."""
    candidate = quartet.candidate
    support = squad.paragraphs[candidate.question.paragraph].context
    window, original = quartet.window or (candidate.conflict_text, support)
    return ConflictCase(
        candidate.question.question,
        candidate.aliases,
        support if legacy else original,
        support[slice(*candidate.support_span)],
        quartet.legacy_text if legacy else window,
        quartet.legacy_answer if legacy else candidate.conflict_answer,
    )


def quartet_rows(
    squad: Squad, quartet: Quartet, legacy: bool, seed: int, balanced: bool = False
) -> list[dict]:
    """The four rows of a quartet, with the legacy or the repaired conflict passage.

    The paper's layout: *sufficient* the support; *noisy* the support and two other-article passages;
    *insufficient* the same two and the related passage; *conflicting* the support and the conflict
    passage. ``balanced`` (``eviscope-xl``): *noisy* the support, a copy of it with a question-irrelevant
    edit and the first other-article passage; *insufficient* a related passage, a copy of it with such an
    edit and the same other-article passage; *conflicting* the support, the conflict passage and the same
    other-article passage (:mod:`~eviscope.builders.eviscope.near_duplicates`). Every row but
    *sufficient* then shows three documents, two of them of the question's article, one a near-duplicate
    of the other that differs in one value; the copy of the support states the answer too, so the noisy
    row cites either. ``near_duplicate`` says which pair a row shows.
    """
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
    related_doc = document(related.title, related.context)
    near_duplicate = {variant: "none" for variant in VARIANTS} | {"conflicting": "conflict"}
    copied: list[tuple[str, str]] = []  # the noisy row's copy of the support and its answer's sentence
    if balanced:
        copies = candidate.near_duplicates
        if copies is None:
            raise ValueError(f"{quartet.quartet_id}: a balanced config needs its near-duplicates")
        index, end = copies.related
        related_doc = document(squad.paragraphs[index].title, squad.paragraphs[index].context[:end])
        related_copy = document(squad.paragraphs[index].title, copies.related_copy)
        support_copy = document(support.title, copies.support_copy)
        other_doc = noise_docs[0]
        documents = {
            "sufficient": [support_doc],
            "noisy": [support_doc, support_copy, other_doc],
            "insufficient": [related_doc, related_copy, other_doc],
            "conflicting": [support_doc, conflict_doc, other_doc],
        }
        near_duplicate |= {"noisy": "irrelevant_edit", "insufficient": "irrelevant_edit"}
        text = copies.support_copy
        core = min(candidate.aliases, key=lambda a: (len(tokens(a)), len(a)))
        stating = next(text[s:e] for s, e in sentence_spans(text) if core in text[s:e])
        copied = [(support_copy["doc_id"], stating)]
    else:
        documents = {
            "sufficient": [support_doc],
            "noisy": [support_doc, *noise_docs],
            "insufficient": [*noise_docs, related_doc],
            "conflicting": [support_doc, conflict_doc],
        }
    span = [{"doc_id": support_doc["doc_id"], "text": case.support_span}]
    rows = []
    for variant in VARIANTS:
        rid = row_id(quartet.quartet_id, variant)
        shown = list(documents[variant])
        random.Random(f"{seed}:{rid}").shuffle(shown)
        has_support = variant != "insufficient"
        noisy = copied if variant == "noisy" else []
        rows.append(
            {
                "id": rid,
                "quartet_id": quartet.quartet_id,
                "variant": variant,
                "question": question.question,
                "source_id": question.id,
                "source": squad.name,
                "source_license": squad.license,
                "title": support.title,
                "documents": shown,
                "answers": list(candidate.aliases),
                "expected_action": EXPECTED_ACTION[variant],
                "answerable": EXPECTED_ACTION[variant] == "answer",
                "supporting_doc_ids": [support_doc["doc_id"], *(d for d, _ in noisy)] if has_support else [],
                "conflicting_doc_ids": [conflict_doc["doc_id"]] if variant == "conflicting" else [],
                "support_spans": span + [{"doc_id": d, "text": t} for d, t in noisy] if has_support else [],
                "conflict_answer": case.conflict_answer if variant == "conflicting" else "",
                "near_duplicate": near_duplicate[variant],
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


def lint_report(squads: Mapping[str, Squad], quartets: list[Quartet], legacy: bool) -> list[dict]:
    """Per-row lint results of one config's conflict passages, each read in its question source of
    ``squads`` (by name)."""
    results: list[dict] = []
    for quartet in quartets:
        case = conflict_case(squads[quartet.candidate.question.source], quartet, legacy)
        lints: dict[str, LintResult] = run_lints(case)
        core = min(case.answers, key=lambda a: (len(tokens(a)), len(a)))
        mismatch = same_type(case.question, core, case.conflict_answer)
        results.append(
            {
                "id": row_id(quartet.quartet_id, "conflicting"),
                "lints": {name: {"ok": r.ok, "reason": r.reason} for name, r in lints.items()},
                "further_lints": {
                    name: {"ok": r.ok, "reason": r.reason}
                    for name, r in ((name, lint(case)) for name, lint in FURTHER_LINTS.items())
                },
                "same_type": {"ok": mismatch is None, "reason": mismatch or ""},
            }
        )
    return results
