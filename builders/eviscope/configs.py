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
and redraws the others (the report's ``believability`` counts both); both read SQuAD v1.1 dev only.
``eviscope-xl`` draws every quartet it can (``n_quartets=None``) under all of the builder's rules from every question source
(:data:`~eviscope.suites.eviscope.squad_source.QUESTION_SOURCES`: SQuAD dev and train part, TyDi QA
GoldP English, SQuAD-shifts New Wikipedia, MLQA English dev), each source read on its own (its
articles, its related and other-article passages), the draw shared: one hash order over all of them,
at most 30 quartets per article of a source, and no support paragraph and gold answer, and no
question, drawn twice across sources, and no quartet of a source that gives fewer than
:data:`MIN_SOURCE_QUARTETS` (its rows could not be audited alone); so that paired tests have power
where 40 quartets have none.
Every conflict passage has a window that stands alone (or is whole), and the support and a related
passage each have a copy with a question-irrelevant edit
(:mod:`~eviscope.builders.eviscope.near_duplicates`, issue 32); from SQuAD dev alone that gives 107
(before the copies, 931 could be drawn from all sources at seed 13; from SQuAD dev alone 282 could, once every quartet has a second
same-article passage and its conflict passage a window
(:func:`~eviscope.builders.eviscope.windows.conflict_window`), since a base question needs a
same-type alternative that a reader of the article believes; from dev, it was 1,000 when any name of
the same string form passed, 580 before the rules of believability, 430 before the rules that the
second strict whole-article read asked for, 300 before those of the fourth (issue 23).
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
from collections.abc import Callable, Iterable, Mapping
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
from eviscope.builders.eviscope.near_duplicates import with_near_duplicates
from eviscope.builders.parquet_split import write_split
from eviscope.suites.eviscope.leaks import LEAK_REASONS
from eviscope.suites.eviscope.row_context import contextualize_rows, squad_articles
from eviscope.suites.eviscope.rows import EVISCOPE_FEATURES, VARIANTS
from eviscope.suites.eviscope.shortcuts import audit
from eviscope.suites.eviscope.squad_source import DEV, QUESTION_SOURCES, Squad
from eviscope.suites.eviscope.surface import surface_audit

DEFAULT_SEED = 13
MIN_SOURCE_QUARTETS = 90
"""Least quartets a question source must give a config of several sources, else it gives none (the
report's ``sources_left_out`` says which and how many it would have given). Every source's rows are
audited alone (:func:`eviscope.suites.eviscope.shortcuts.audit`, held-out half), so that no source is
a tell: at 90 quartets the held-out half is 45 quartets, 135 rows of more than one document, whose
majority rate (1/3) a tree matches within about 4 points by chance (binomial standard error 4.1; at 100
quartets 3.8, no real difference, and SQuAD dev fell to 99 under issue 32's tenth read's rules).
With fewer, a per-source margin says nothing (seed 13: MLQA's 7 held-out quartets, 21 rows, gave
+19.1 points, four rows), and a source that cannot be audited cannot be shown not to be a tell, so it
is left out rather than reported with a margin that means nothing. TyDi QA GoldP (14 quartets at
seed 13) and MLQA (12) fall short: TyDi gives each question only its gold passage, MLQA only the paragraphs with a
question, so few of their articles have the related passage a quartet needs."""


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
    sources: tuple[str, ...] = (DEV.name,)
    """The question sources it draws from (of :data:`~eviscope.suites.eviscope.squad_source.QUESTION_SOURCES`)."""


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
            tuple(QUESTION_SOURCES),
        ),
    )
}


@dataclass
class _SourcePools:
    """One question source's candidates under each construction its configs use, and what they report."""

    squad: Squad
    pools: dict[tuple[Moves, frozenset[str]], list[Candidate]]
    rejected: Counter
    entities: list
    leaked: Counter[str]

    def checker(self):
        return shared_believability(self.squad, self.entities)


def _candidates(
    squads: Mapping[str, Squad],
    configs: list[EviScopeConfig],
    seed: int,
    progress: Callable[[Iterable], Iterable],
) -> dict[str, _SourcePools]:
    """Each question source's candidates, under the constructions of the configs that read it (SQuAD
    dev always under the paper's first, whose counts the report gives)."""
    found: dict[str, _SourcePools] = {}
    for name in QUESTION_SOURCES:
        users = [c for c in configs if name in c.sources]
        if not users:
            continue
        if name not in squads:
            raise ValueError(f"{', '.join(c.name for c in users)} needs question source {name!r}")
        first = [(PAPER_MOVES, PAPER_RULES)] if name == DEV.name else []
        wanted = [(c.moves, c.rules) for c in users]
        moves = tuple(dict.fromkeys([*first, *wanted]))
        balanced = frozenset((c.moves, c.rules) for c in users if c.params.balanced)
        pools, rejected, entities, leaked = find_candidates(squads[name], seed, progress, moves, balanced)
        found[name] = _SourcePools(squads[name], pools, rejected, entities, leaked)
    return found


def build_eviscope(
    squads: Mapping[str, Squad] | Squad,
    names: Iterable[str],
    out_dir: Path,
    seed: int = DEFAULT_SEED,
    progress: Callable[[Iterable], Iterable] = iter,
    *,
    contextualize: bool = False,
) -> dict:
    """Build the named EviScope configs into ``out_dir`` and return the build report.

    ``squads`` holds each question source a config reads, by name (a single :class:`Squad` is SQuAD dev
    alone). With ``contextualize`` every document's text carries its article title and neighbouring
    paragraphs (:mod:`eviscope.suites.eviscope.row_context`, with its answer-leak guard); ids, gold and
    schema are unchanged, and the report says which documents the guard left without neighbours.
    """
    if isinstance(squads, Squad):
        squads = {squads.name: squads}
    names = list(names)
    found = _candidates(squads, [EVISCOPE_CONFIGS[name] for name in names], seed, progress)
    dev = found[DEV.name]
    squad = dev.squad
    candidates = dev.pools[(PAPER_MOVES, PAPER_RULES)]
    believable = [c for c in candidates if c.believable]
    checkers = {name: pools.checker() for name, pools in found.items()}
    report: dict = {
        "seed": seed,
        "source": {"origin": squad.origin, "checksum": squad.checksum},
        "questions_scanned": len(squad.questions),
        "eligible_questions": len(believable),
        "eligible_questions_legacy": len(candidates),
        "rejected": dict(sorted((str(reason), n) for reason, n in dev.rejected.items())),
        "believability": believability_counts(candidates),
        "leak_check": {
            "reasons": LEAK_REASONS,
            "same_article_passages_rejected": {reason: dev.leaked[reason] for reason in LEAK_REASONS},
        },
        "answer_typer": {
            "model": f"spaCy {ENTITY_MODEL} {model_version()}",
            "licence": ENTITY_MODEL_LICENSE,
            "hand_labelled": typer_accuracy(squad, dev.entities),
        },
        "sources": {name: _source_report(pools) for name, pools in found.items()},
        "configs": {},
    }
    drawn: dict[tuple, tuple[list[q.Quartet], Counter[str], Counter[str]]] = {}
    for name in names:
        config = EVISCOPE_CONFIGS[name]
        key = (config.params, config.legacy_conflicts, config.moves, config.rules, config.sources)
        own = [c for source in config.sources for c in found[source].pools[(config.moves, config.rules)]]
        if config.params.balanced:
            # Each with its copies and the conflict window as they cut it (to their common length gap),
            # of its first believable alternative that has both.
            own = [
                with_near_duplicates(
                    squads[c.question.source], checkers[c.question.source], c, config.rules, seed
                )
                for c in own
            ]
        if key not in drawn:
            # The legacy construction (v1) draws as before the rules of believability existed.
            pool = own if config.legacy_conflicts else [c for c in own if c.believable]
            skipped: Counter[str] = Counter()
            if not config.legacy_conflicts and not config.params.balanced:
                # The paper's layout shows the repaired passage whole: it must stand alone in its article.
                pool = q.standing_alone(pool, config.params, skipped)
            distractors_rejected: Counter[str] = Counter()
            chosen = q.select(pool, config.params, seed, skipped)
            given = Counter(c.question.source for c in chosen)
            left_out = {
                s: given[s]
                for s in config.sources
                if len(config.sources) > 1 and given[s] < MIN_SOURCE_QUARTETS
            }
            if left_out:  # drawn again without them: one of theirs may have stood in another's way
                skipped = Counter()
                pool = [c for c in pool if c.question.source not in left_out]
                chosen = q.select(pool, config.params, seed, skipped)
            quartets = q.make_quartets(squads, chosen, seed, distractors_rejected, config.params.balanced)
            drawn[key] = quartets, skipped, distractors_rejected, left_out
        quartets, skipped, distractors_rejected, left_out = drawn[key]
        drawn_sources = [source for source in config.sources if source not in left_out]
        rows = [
            row
            for quartet in quartets
            for row in quartet_rows(
                squads[quartet.candidate.question.source],
                quartet,
                config.legacy_conflicts,
                seed,
                config.params.balanced,
            )
        ]
        for row in rows:  # today's rows show no copy of the support but the conflict passage
            row.setdefault("near_duplicate", "conflict" if row["variant"] == "conflicting" else "none")
        context = None
        if contextualize:
            rows, context = _contextualized(rows, squads, config.sources)
        check_doc_ids(rows)
        table = write_split(out_dir, name, rows, EVISCOPE_FEATURES)
        digest = update_card(out_dir / "README.md", name, EVISCOPE_FEATURES, len(rows), table.nbytes)
        lints = lint_report(squads, quartets, config.legacy_conflicts)
        report["configs"][name] = {
            "quartets": len(quartets),
            "rows": len(rows),
            "sha256": digest,
            "per_variant": {v: sum(row["variant"] == v for row in rows) for v in VARIANTS},
            "per_source": {
                source: sum(quartet.candidate.question.source == source for quartet in quartets)
                for source in config.sources
            },
            "sources_left_out": {
                source: {
                    "quartets": n,
                    "reason": f"gives {n} quartets, under the {MIN_SOURCE_QUARTETS} a per-source audit needs",
                }
                for source, n in left_out.items()
            },
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
            "shortcut_audit_per_source": {
                source: audit([row for row in rows if row["source"] == source])
                for source in drawn_sources
                if len(config.sources) > 1
            },
        }
        if not config.legacy_conflicts and not config.params.balanced:
            report["configs"][name]["standing_alone"] = _standing_alone(own, quartets, config.params, seed)
        if not config.legacy_conflicts:
            previous = q.select(own, config.params, seed)
            report["configs"][name]["believability"] = believability_counts(previous, len(quartets))
            report["configs"][name]["believable_pass"] = sum(
                checkers[c.question.source].problem(
                    answer_of(squads[c.question.source], c), c.conflict_answer, config.rules
                )
                is None
                for c in (quartet.candidate for quartet in quartets)
            )
        if context is not None:
            report["configs"][name]["contextualization"] = context.to_dict()
    return report


def _standing_alone(
    own: list[Candidate], quartets: list[q.Quartet], params: q.QuartetParams, seed: int
) -> dict:
    """Which quartets the rule that a passage shown whole stands alone (``passage_not_standalone``)
    replaced in a config of the paper's layout (``eviscope-v1.1``), and by which: the draw without it
    against the draw with it."""
    without = q.select([c for c in own if c.believable], params, seed)
    drawn = {quartet.candidate.question.id for quartet in quartets}
    return {
        "reason": q.SKIPPED["passage_not_standalone"],
        "replaced": [
            {"source_id": c.question.id, "question": c.question.question, "problem": c.stands_alone}
            for c in without
            if c.question.id not in drawn
        ],
        "drawn_instead": [
            {"source_id": quartet.candidate.question.id, "question": quartet.candidate.question.question}
            for quartet in quartets
            if quartet.candidate.question.id not in {c.question.id for c in without}
        ],
    }


def _source_report(pools: _SourcePools) -> dict:
    """A question source's origin, licence, how many of its questions are eligible and why the others
    are not (under the first construction it was read with)."""
    first = next(iter(pools.pools.values()))
    return {
        "origin": pools.squad.origin,
        "checksum": pools.squad.checksum,
        "license": pools.squad.license,
        "questions_scanned": len(pools.squad.questions),
        "eligible_questions": sum(c.believable for c in first),
        "rejected": dict(sorted((str(reason), n) for reason, n in pools.rejected.items())),
    }


def _contextualized(rows: list[dict], squads: Mapping[str, Squad], needs: tuple[str, ...]):
    """``rows`` contextualized within their own source's articles (titles may repeat across sources)."""
    done: dict[str, dict] = {}
    reports = []
    for source in needs:
        part = [row for row in rows if row["source"] == source]
        if part:
            contextualized, context = contextualize_rows(part, squad_articles(squads[source]))
            done.update((row["id"], row) for row in contextualized)
            reports.append(context)
    return [done[row["id"]] for row in rows], replace(
        reports[0],
        documents=sum(r.documents for r in reports),
        with_neighbours=sum(r.with_neighbours for r in reports),
        without_neighbours=tuple(d for r in reports for d in r.without_neighbours),
    )


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
