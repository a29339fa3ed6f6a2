"""The three EviScope configs, their parameters, and the build that writes them with its report.

| config | quartets | per-article cap | conflict passage | layout |
| --- | --- | --- | --- | --- |
| ``eviscope-v1`` | 40 | 3 | legacy (unrepaired) | the paper's |
| ``eviscope-v1.1`` | 40 | 3 | repaired: passes all six lints | the paper's |
| ``eviscope-xl`` | 580 | 30 | repaired: passes all six lints | balanced |

``v1`` and ``v1.1`` draw the same 40 quartets with the same seed and differ only in their conflict
rows. They draw with ``first_release``: no date answers and no conflict passage that drops the
support's cue sentences, so they keep the quartets of their first release. ``eviscope-xl`` draws 580
quartets from the whole dev set under all of the builder's rules, with the cap raised to 30 per
article (the dev set has 48 articles), so that paired tests have power where 40 quartets have none.
580 is about what the eligible questions allow under that cap (584 can be drawn once no paragraph
and gold answer, and no question, is drawn twice), since a base question needs a believable
same-type alternative (see :mod:`eviscope.builders.eviscope.quartets`); it was 1,000 when any name of
the same string form passed. ``eviscope-xl`` shows its rows in the balanced layout
(:func:`~eviscope.builders.eviscope.quartets.quartet_rows`), so that no count tells its variants
apart; ``v1`` and ``v1.1`` keep the paper's. Every build audits each config for evidence-blind
shortcuts (:func:`eviscope.suites.eviscope.shortcuts.audit`) and reports it beside the lints.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from eviscope.builders.dataset_card import update_card
from eviscope.builders.eviscope import quartets as q
from eviscope.builders.eviscope.answer_types import (
    ENTITY_MODEL,
    ENTITY_MODEL_LICENSE,
    model_version,
    typer_accuracy,
)
from eviscope.builders.eviscope.conflict_lints import LINTS
from eviscope.builders.parquet_split import write_split
from eviscope.suites.eviscope.leaks import LEAK_REASONS
from eviscope.suites.eviscope.row_context import contextualize_rows, squad_articles
from eviscope.suites.eviscope.rows import EVISCOPE_FEATURES, VARIANTS
from eviscope.suites.eviscope.shortcuts import audit
from eviscope.suites.eviscope.squad_source import Squad

DEFAULT_SEED = 13


@dataclass(frozen=True)
class EviScopeConfig:
    name: str
    params: q.QuartetParams
    legacy_conflicts: bool


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
            "eviscope-xl", q.QuartetParams(n_quartets=580, per_article_cap=30, balanced=True), False
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
    candidates, rejected, entities, leaked = q.find_candidates(squad, seed, progress)
    report: dict = {
        "seed": seed,
        "source": {"origin": squad.origin, "checksum": squad.checksum},
        "questions_scanned": len(squad.questions),
        "eligible_questions": len(candidates),
        "rejected": dict(sorted(rejected.items())),
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
    drawn: dict[q.QuartetParams, tuple[list[q.Quartet], Counter[str], Counter[str]]] = {}
    articles = squad_articles(squad) if contextualize else {}
    for name in names:
        config = EVISCOPE_CONFIGS[name]
        if config.params not in drawn:
            skipped: Counter[str] = Counter()
            distractors_rejected: Counter[str] = Counter()
            chosen = q.select(candidates, config.params, seed, skipped)
            quartets = q.make_quartets(squad, chosen, seed, distractors_rejected)
            drawn[config.params] = quartets, skipped, distractors_rejected
        quartets, skipped, distractors_rejected = drawn[config.params]
        rows = [
            row
            for quartet in quartets
            for row in q.quartet_rows(squad, quartet, config.legacy_conflicts, seed, config.params.balanced)
        ]
        context = None
        if contextualize:
            rows, context = contextualize_rows(rows, articles)
        q.check_doc_ids(rows)
        table = write_split(out_dir, name, rows, EVISCOPE_FEATURES)
        update_card(out_dir / "README.md", name, EVISCOPE_FEATURES, len(rows), table.nbytes)
        lints = q.lint_report(squad, quartets, config.legacy_conflicts)
        report["configs"][name] = {
            "quartets": len(quartets),
            "rows": len(rows),
            "per_variant": {v: sum(row["variant"] == v for row in rows) for v in VARIANTS},
            "per_article_cap": config.params.per_article_cap,
            "conflict_passages": "legacy" if config.legacy_conflicts else "repaired",
            "answer_types": dict(Counter(quartet.candidate.type for quartet in quartets).most_common()),
            "articles_used": sorted({quartet.candidate.title for quartet in quartets}),
            "lint_pass": {lint: sum(r["lints"][lint]["ok"] for r in lints) for lint in LINTS},
            "same_type_pass": sum(r["same_type"]["ok"] for r in lints),
            "lint_rows": lints,
            "layout": "balanced" if config.params.balanced else "paper",
            "skipped": {
                reason: {"reason": prose, "questions": skipped[reason]} for reason, prose in q.SKIPPED.items()
            },
            "other_article_passages_rejected": {
                "alias_after_splitting": distractors_rejected["alias_after_splitting"]
            },
            "shortcut_audit": audit(rows),
        }
        if context is not None:
            report["configs"][name]["contextualization"] = context.to_dict()
    return report
