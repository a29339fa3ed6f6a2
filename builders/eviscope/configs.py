"""The three EviScope configs, their parameters, and the build that writes them with its report.

| config | quartets | per-article cap | conflict passage | layout |
| --- | --- | --- | --- | --- |
| ``eviscope-v1`` | 40 | 3 | legacy (unrepaired) | the paper's |
| ``eviscope-v1.1`` | 40 | 3 | repaired: passes all six lints and the rules of believability | the paper's |
| ``eviscope-xl`` | all it can | 30 | repaired: passes all six lints and the rules of believability | balanced, with near-duplicates |

``v1`` and ``v1.1`` draw with the same seed and ``first_release``: no date answers and no conflict
passage that drops the support's cue sentences. ``v1`` is the legacy construction: it draws from
every question whose first alternative passes the six lints, as its first release did, so its 40
quartets stay as they were (but for a leaked related passage, which the leak check replaces).
``v1.1`` draws only questions whose alternative is also believable against the whole article
(:mod:`eviscope.builders.eviscope.believability`), so it keeps the quartets of ``v1`` that have one
and redraws the others (the report's ``believability`` counts both). ``eviscope-xl`` draws
every quartet it can (``n_quartets=None``) from its source under all of the builder's rules, with the
cap raised to 30 per article, so that paired tests have power where 40 quartets have none: once no
paragraph and gold answer, and no question, is drawn twice, every conflict passage has a window that
stands alone (or is whole), and the support and a related passage each have a copy with a
question-irrelevant edit (:mod:`~eviscope.builders.eviscope.near_duplicates`, issue 32), SQuAD dev
gives 109 (280 before issue 32's copies and rules, 1,000 when any name of the same string form passed).
``eviscope-xl``'s alternatives also move less far from the answer
(:data:`~eviscope.builders.eviscope.alternatives.NEAR_MOVES`; ``v1`` and ``v1.1`` keep the paper's
moves, so their rows stay as they were), since the strict reads did not believe most alternatives
that had moved far. ``eviscope-xl`` also reads the rules that the sixth read asked for
(:data:`~eviscope.builders.eviscope.believability.STRICTER_RULES`), which ``v1.1`` leaves out so that its
rows stay as its read settled them. ``eviscope-xl`` shows its rows in the balanced layout
(:func:`~eviscope.builders.eviscope.assembly.quartet_rows`), so that no count tells its variants
apart; ``v1`` and ``v1.1`` keep the paper's. Every build audits each config for evidence-blind
shortcuts (:func:`eviscope.suites.eviscope.shortcuts.audit`) and for string-matching ones
(:func:`eviscope.suites.eviscope.surface.surface_audit`) and reports both beside the lints.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from eviscope.builders.dataset_card import update_card
from eviscope.builders.eviscope import quartets as q
from eviscope.builders.eviscope.alternatives import NEAR_MOVES, PAPER_MOVES, Moves
from eviscope.builders.eviscope.answer_types import (
    ENTITY_MODEL,
    ENTITY_MODEL_LICENSE,
    model_version,
    typer_accuracy,
)
from eviscope.builders.eviscope.assembly import check_doc_ids, lint_report, quartet_rows
from eviscope.builders.eviscope.believability import ALL_RULES, PAPER_RULES, RULES, shared_believability
from eviscope.builders.eviscope.candidates import Candidate, answer_of, find_candidates
from eviscope.builders.eviscope.conflict_lints import FURTHER_LINTS, LINTS
from eviscope.builders.eviscope.near_duplicates import near_duplicates
from eviscope.builders.parquet_split import write_split
from eviscope.suites.eviscope.leaks import LEAK_REASONS
from eviscope.suites.eviscope.row_context import contextualize_rows, squad_articles
from eviscope.suites.eviscope.rows import EVISCOPE_FEATURES, VARIANTS
from eviscope.suites.eviscope.shortcuts import audit
from eviscope.suites.eviscope.squad_source import Squad
from eviscope.suites.eviscope.surface import surface_audit

DEFAULT_SEED = 13


@dataclass(frozen=True)
class EviScopeConfig:
    name: str
    params: q.QuartetParams
    legacy_conflicts: bool
    moves: Moves = PAPER_MOVES
    """How far its alternatives move from the answer (:class:`~eviscope.builders.eviscope.alternatives.Moves`):
    the paper's for ``v1`` and ``v1.1``, :data:`~eviscope.builders.eviscope.alternatives.NEAR_MOVES` for ``xl``."""
    rules: frozenset[str] = PAPER_RULES
    """The rules of believability its alternatives pass (of :data:`~eviscope.builders.eviscope.believability.RULES`):
    all for ``xl``; ``v1.1`` leaves out :data:`~eviscope.builders.eviscope.believability.STRICTER_RULES`,
    so its rows stay as its read settled them."""


EVISCOPE_CONFIGS: dict[str, EviScopeConfig] = {
    c.name: c
    for c in (
        EviScopeConfig(
            "eviscope-v1",
            q.QuartetParams(n_quartets=40, per_article_cap=3, first_release=True),
            True,
        ),
        EviScopeConfig(
            "eviscope-v1.1",
            q.QuartetParams(n_quartets=40, per_article_cap=3, first_release=True),
            False,
        ),
        EviScopeConfig(
            "eviscope-xl",
            q.QuartetParams(n_quartets=None, per_article_cap=30, balanced=True),
            False,
            NEAR_MOVES,
            ALL_RULES,
        ),
    )
}


def build_eviscope(
    squad: Squad,
    names: Iterable[str],
    out_dir: Path,
    seed: int = DEFAULT_SEED,
    progress: Callable[[Iterable], Iterable] = iter,
    *,
    contextualize: bool = False,
) -> dict:
    """Build the named EviScope configs into ``out_dir`` and return the build report.

    With ``contextualize`` every document's text carries its article title and neighbouring
    paragraphs (:mod:`eviscope.suites.eviscope.row_context`, with its answer-leak guard); ids, gold and
    schema are unchanged, and the report says which documents the guard left without neighbours.
    """
    names = list(names)
    wanted = [(EVISCOPE_CONFIGS[name].moves, EVISCOPE_CONFIGS[name].rules) for name in names]
    moves = tuple(dict.fromkeys([(PAPER_MOVES, PAPER_RULES), *wanted]))
    pools, rejected, entities, leaked = find_candidates(squad, seed, progress, moves)
    candidates = pools[(PAPER_MOVES, PAPER_RULES)]
    believable = [c for c in candidates if c.believable]
    checker = shared_believability(squad, entities)
    report: dict = {
        "seed": seed,
        "source": {"origin": squad.origin, "checksum": squad.checksum},
        "questions_scanned": len(squad.questions),
        "eligible_questions": len(believable),
        "eligible_questions_legacy": len(candidates),
        "rejected": dict(sorted((str(reason), n) for reason, n in rejected.items())),
        "believability": believability_counts(candidates),
        "leak_check": {
            "reasons": LEAK_REASONS,
            "same_article_passages_rejected": {reason: leaked[reason] for reason in LEAK_REASONS},
        },
        "answer_typer": {
            "model": f"spaCy {ENTITY_MODEL} {model_version()}",
            "licence": ENTITY_MODEL_LICENSE,
            "hand_labelled": typer_accuracy(squad, entities),
        },
        "configs": {},
    }
    drawn: dict[
        tuple[q.QuartetParams, bool, Moves, frozenset[str]],
        tuple[list[q.Quartet], Counter[str], Counter[str]],
    ] = {}
    articles = squad_articles(squad) if contextualize else {}
    for name in names:
        config = EVISCOPE_CONFIGS[name]
        key = (config.params, config.legacy_conflicts, config.moves, config.rules)
        own = pools[(config.moves, config.rules)]
        if config.params.balanced:
            own = [
                replace(c, near_duplicates=near_duplicates(squad, checker, c, config.rules, seed))
                for c in own
            ]
        if key not in drawn:
            # The legacy construction (v1) draws as before the rules of believability existed.
            pool = own if config.legacy_conflicts else [c for c in own if c.believable]
            skipped: Counter[str] = Counter()
            distractors_rejected: Counter[str] = Counter()
            chosen = q.select(pool, config.params, seed, skipped)
            quartets = q.make_quartets(squad, chosen, seed, distractors_rejected, config.params.balanced)
            drawn[key] = quartets, skipped, distractors_rejected
        quartets, skipped, distractors_rejected = drawn[key]
        rows = [
            row
            for quartet in quartets
            for row in quartet_rows(squad, quartet, config.legacy_conflicts, seed, config.params.balanced)
        ]
        for row in rows:  # today's rows show no copy of the support but the conflict passage
            row.setdefault("near_duplicate", "conflict" if row["variant"] == "conflicting" else "none")
        context = None
        if contextualize:
            rows, context = contextualize_rows(rows, articles)
        check_doc_ids(rows)
        table = write_split(out_dir, name, rows, EVISCOPE_FEATURES)
        digest = update_card(out_dir / "README.md", name, EVISCOPE_FEATURES, len(rows), table.nbytes)
        lints = lint_report(squad, quartets, config.legacy_conflicts)
        report["configs"][name] = {
            "quartets": len(quartets),
            "rows": len(rows),
            "sha256": digest,
            "per_variant": {v: sum(row["variant"] == v for row in rows) for v in VARIANTS},
            "per_article_cap": config.params.per_article_cap,
            "eligible_questions": sum(c.believable for c in own),
            "conflict_passages": "legacy" if config.legacy_conflicts else "repaired",
            "answer_types": dict(Counter(quartet.candidate.type for quartet in quartets).most_common()),
            "articles_used": sorted({quartet.candidate.title for quartet in quartets}),
            "lint_pass": {lint: sum(r["lints"][lint]["ok"] for r in lints) for lint in LINTS},
            "same_type_pass": sum(r["same_type"]["ok"] for r in lints),
            "further_lint_fail": {
                lint: [r["id"] for r in lints if not r["further_lints"][lint]["ok"]] for lint in FURTHER_LINTS
            },
            "lint_rows": lints,
            "layout": "balanced" if config.params.balanced else "paper",
            "skipped": {
                reason: {"reason": prose, "questions": skipped[reason]} for reason, prose in q.SKIPPED.items()
            },
            "other_article_passages_rejected": {
                "alias_after_splitting": distractors_rejected["alias_after_splitting"]
            },
            "shortcut_audit": audit(rows),
            "surface_audit": surface_audit(rows),
        }
        if not config.legacy_conflicts:
            previous = q.select(own, config.params, seed)
            report["configs"][name]["believability"] = believability_counts(previous, len(quartets))
            report["configs"][name]["believable_pass"] = sum(
                checker.problem(answer_of(squad, c), c.conflict_answer, config.rules) is None
                for c in (quartet.candidate for quartet in quartets)
            )
        if context is not None:
            report["configs"][name]["contextualization"] = context.to_dict()
    return report


def believability_counts(candidates: list[Candidate], drawn: int | None = None) -> dict:
    """Per rule of :data:`~eviscope.builders.eviscope.believability.RULES`: how many of ``candidates``
    it leaves without a believable alternative (``removed``) and how many it gives another one
    (``replaced``: the first alternative that passes the six lints was not believable).

    With ``drawn`` (a config's draw, where ``candidates`` is what the config drew without the rules),
    also how many of those quartets the config keeps.
    """
    counts = {
        rule: {
            "removed": sum(c.unbelievable == rule and not c.believable for c in candidates),
            "replaced": sum(c.unbelievable == rule and c.believable for c in candidates),
        }
        for rule in RULES
    }
    if drawn is None:
        return {"rules": RULES, "questions": counts}
    kept = sum(c.believable for c in candidates)
    return {"without_the_rules": len(candidates), "kept": kept, "redrawn": drawn - kept, "rules": counts}
