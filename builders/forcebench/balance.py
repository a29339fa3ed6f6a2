"""Matched shares of surface cues between contrast pairs and controls (issue 33).

A scorer that reads the evidence only as a string (the copy detector, word or entity overlap) or
not at all (the shorter claim, fewer force words, the edit's direction) orders a pair by where its
changed words come from: a claim whose limiter stands in the evidence wins on overlap, a claim with
fewer boosters wins on force words. Such a scorer passes a contrast pair when it prefers the weaker
claim and lapses on a control when it does the same. When contrasts and controls hold each ordering
in the same share, its CPA is ½; when the warranted claim draws its wording from the evidence more
often in one kind than in the other, the share differs and the scorer looks calibrated.

:func:`match_shares` takes the drafted contrast pairs and controls and sets aside, one at a time,
the draft whose removal brings the worst of these scorers' CPA closest to its limit, until every
one is within it (``SURFACE_LIMIT``, ``BLIND_LIMIT``): the drafts set aside are those whose weaker
claim a surface cue alone picks out, in whichever kind has too many. The scorers are the
baselines of :mod:`eviscope.suites.forcebench.baselines`, as ``eviscope forcebench baselines`` runs
them; the claim-only classifier and the ForceCheck scorers (which read force words against the
evidence) are not matched here, so their figures on the result are a check this step does not set.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from eviscope.suites.forcebench.baselines import BASELINES, PAIR_BASELINES

__all__ = ["AXIS_GAP", "BLIND_LIMIT", "MATCHED", "SURFACE_LIMIT", "cpa_of", "match_shares"]

SURFACE_LIMIT = 0.60
"""The most CPA kept for a scorer that reads the evidence as a string (issue 33 asks ≤ 0.65 on the
eval split; the candidates keep a margin for what the annotation removes)."""
BLIND_LIMIT = 0.55
"""The most CPA kept for an evidence-blind scorer (issue 33 asks ≤ 0.60 on the eval split)."""
MATCHED: dict[str, float] = {
    "copy_detector": SURFACE_LIMIT,
    "token_overlap": SURFACE_LIMIT,
    "entity_overlap": SURFACE_LIMIT,
    "shorter_claim": BLIND_LIMIT,
    "fewer_force_words": BLIND_LIMIT,
    "edit_direction": BLIND_LIMIT,
}
"""Each matched scorer and its CPA limit."""
AXIS_GAP = 0.10
"""The most total-variation distance kept between the axis shares of contrasts and of controls (a
claim-only classifier tells the pair type by the axis's words when the shares differ)."""


def _scores(name: str, row: Mapping[str, Any]) -> tuple[float, float]:
    evidence, weak, strong = row["evidence"], row["calibrated_claim"], row["raised_claim"]
    if name in PAIR_BASELINES:
        return PAIR_BASELINES[name](evidence, weak, strong)
    return BASELINES[name](evidence, weak), BASELINES[name](evidence, strong)


def _weaker_first(name: str, row: Mapping[str, Any]) -> bool:
    """The scorer gives the weaker claim strictly more support (a contrast passed, a control lapsed)."""
    weak, strong = _scores(name, row)
    return weak > strong


def cpa_of(prefers_weak: Sequence[bool], contrast: Sequence[bool]) -> float:
    """CPA of a scorer from whether it prefers each pair's weaker claim: ½ (1 − MVR) + ½ (1 − LPR).

    >>> cpa_of([True, True, False, True], [True, True, False, False])  # both contrasts passed, a control lapsed
    0.75
    """
    passed = sum(p for p, c in zip(prefers_weak, contrast, strict=True) if c)
    lapsed = sum(p for p, c in zip(prefers_weak, contrast, strict=True) if not c)
    n_contrast, n_control = sum(contrast), len(contrast) - sum(contrast)
    mvr = 1 - passed / n_contrast if n_contrast else 0.0
    lpr = lapsed / n_control if n_control else 0.0
    return 0.5 * (1 - mvr) + 0.5 * (1 - lpr)


def match_shares(rows: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> tuple[list[int], list[int]]:
    """The indices of ``rows`` kept and set aside so that every scorer of ``MATCHED`` has CPA within
    its limit and the axis shares of the two kinds within ``AXIS_GAP``; ties between drafts to set aside are broken by ``keys`` (a seeded hash), smallest
    first. Rows need ``evidence``, ``calibrated_claim``, ``raised_claim``, ``axis`` and ``pair_type``."""
    names = list(MATCHED)
    prefers = {name: [_weaker_first(name, row) for row in rows] for name in names}
    contrast = [row["pair_type"] == "contrast" for row in rows]
    kept = set(range(len(rows)))
    passed = {name: sum(prefers[name][i] for i in kept if contrast[i]) for name in names}
    lapsed = {name: sum(prefers[name][i] for i in kept if not contrast[i]) for name in names}
    counts = [sum(contrast), len(rows) - sum(contrast)]

    def excess(p: dict[str, int], lp: dict[str, int], n: list[int]) -> float:
        total = 0.0
        for name in names:
            if not n[0] or not n[1]:
                return float("inf")
            cpa = 0.5 * (p[name] / n[0]) + 0.5 * (1 - lp[name] / n[1])
            total += max(0.0, cpa - MATCHED[name])
        gap = sum(abs(by_axis[0].get(a, 0) / n[0] - by_axis[1].get(a, 0) / n[1]) for a in axes) / 2
        return total + max(0.0, gap - AXIS_GAP)

    axes = sorted({row["axis"] for row in rows})
    by_axis: list[dict[str, int]] = [{}, {}]
    for i in kept:
        side = by_axis[0 if contrast[i] else 1]
        side[rows[i]["axis"]] = side.get(rows[i]["axis"], 0) + 1
    current = excess(passed, lapsed, counts)
    removed: list[int] = []
    while current > 0 and kept:
        best: tuple[float, str, int] | None = None
        for i in kept:
            p, lp, n = dict(passed), dict(lapsed), list(counts)
            for name in names:
                if contrast[i]:
                    p[name] -= prefers[name][i]
                else:
                    lp[name] -= prefers[name][i]
            n[0 if contrast[i] else 1] -= 1
            side = by_axis[0 if contrast[i] else 1]
            side[rows[i]["axis"]] -= 1
            score = excess(p, lp, n)
            side[rows[i]["axis"]] += 1
            if best is None or (score, keys[i]) < best[:2]:
                best = (score, keys[i], i)
        if best is None or best[0] >= current:
            break
        i = best[2]
        kept.discard(i)
        removed.append(i)
        for name in names:
            if contrast[i]:
                passed[name] -= prefers[name][i]
            else:
                lapsed[name] -= prefers[name][i]
        counts[0 if contrast[i] else 1] -= 1
        by_axis[0 if contrast[i] else 1][rows[i]["axis"]] -= 1
        current = best[0]
    return sorted(kept), removed
