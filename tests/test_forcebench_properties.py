"""Property-based tests of the ForceBench metrics (contract §6) on random units and prediction sets.

- MVR lies in [0, 1], and FS in [-1, 1] for scores in [0, 1]; both match a literal reading of §6;
- an evaluator that gives both claims of every pair the same score (or label) has MVR 1 and FS 0;
- the order of units changes nothing;
- overall figures are the unit-weighted combination of the per-axis, per-severity and per-evaluator
  figures (which partition the units), and each of those is the figure of its own units alone.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eviscope.suites.forcebench.rows import AXES, SEVERITIES
from eviscope.suites.forcebench.scoring import (
    FORCE_LABELS,
    GENERIC_LABELS,
    Unit,
    score_units,
    summarize,
    units_from_predictions,
)

SETTINGS = settings(deadline=None, max_examples=60)

SCORES = st.none() | st.sampled_from([0.0, 0.5, 1.0]) | st.floats(0, 1, allow_nan=False)
"""A support score: missing, a label's mapped score, or a direct (baseline) score."""

units = st.builds(
    Unit,
    id=st.sampled_from([f"fb-{i}" for i in range(8)]),
    evaluator=st.sampled_from(["judge-a/generic", "judge-b/force_aware", "token_overlap"]),
    axis=st.sampled_from(AXES),
    severity=st.sampled_from(SEVERITIES),
    s_safe=SCORES,
    s_raised=SCORES,
)
unit_lists = st.lists(units, min_size=1, max_size=40)


def literal(units: Sequence[Unit]) -> tuple[float, float]:
    """contract §6: MVR = mean(s_raised >= s_safe), FS = mean(s_safe - s_raised); missing = violation, 0."""
    present = [(u.s_safe, u.s_raised) for u in units if u.s_safe is not None and u.s_raised is not None]
    violations = sum(raised >= safe for safe, raised in present) + (len(units) - len(present))
    return violations / len(units), sum(safe - raised for safe, raised in present) / len(units)


SUMMARY = ("mvr", "fs", "n", "violations", "missing")


def _same(a: dict[str, Any], b: dict[str, Any]) -> None:
    """Equal summaries, bit for bit (FS is an exact sum, so the order of units cannot change it)."""
    assert {k: a[k] for k in SUMMARY} == {k: b[k] for k in SUMMARY}


@SETTINGS
@given(unit_lists)
def test_rates_are_bounded_and_match_the_spec(units):
    result = score_units(units)
    mvr, fs = literal(units)
    assert 0.0 <= result["mvr"] <= 1.0 and -1.0 <= result["fs"] <= 1.0
    assert result["mvr"] == pytest.approx(mvr) and result["fs"] == pytest.approx(fs, abs=1e-12)
    assert result["n"] == len(units)
    assert result["missing"] <= result["violations"] <= result["n"]
    assert result["missing"] == sum(u.s_safe is None or u.s_raised is None for u in units)
    for group in ("per_axis", "per_severity"):
        for figures in result[group].values():
            if figures["n"]:
                assert 0.0 <= figures["mvr"] <= 1.0 and -1.0 <= figures["fs"] <= 1.0
            else:
                assert figures["mvr"] is None and figures["fs"] is None


@SETTINGS
@given(unit_lists, st.data())
def test_an_evaluator_that_scores_both_claims_alike_violates_on_every_pair(units, data):
    flat = [Unit(u.id, u.evaluator, u.axis, u.severity, u.s_safe, u.s_safe) for u in units]
    result = score_units(flat)
    assert result["mvr"] == 1.0 and result["fs"] == 0.0 and result["violations"] == len(flat)
    # The same through the prediction join: direct equal scores, or equal labels of one prompt.
    rows = [{"id": f"fb-{i}", "axis": u.axis, "severity": u.severity} for i, u in enumerate(units)]
    prompt, labels = data.draw(
        st.sampled_from([(None, None), ("generic", GENERIC_LABELS), ("force_aware", FORCE_LABELS)])
    )
    preds = []
    for row in rows:
        if prompt is None:
            score = data.draw(st.floats(0, 1, allow_nan=False))
            preds.append({"id": row["id"], "evaluator": "flat", "score_safe": score, "score_raised": score})
        else:
            label = data.draw(st.sampled_from(sorted(labels)))
            preds.append(
                {
                    "id": row["id"],
                    "evaluator": "flat",
                    "prompt": prompt,
                    "label_safe": label,
                    "label_raised": label,
                }
            )
    joined = score_units(units_from_predictions(rows, preds))
    assert joined["mvr"] == 1.0 and joined["fs"] == 0.0 and joined["missing"] == 0
    assert joined["per_evaluator"]["flat"]["mvr"] == 1.0


@SETTINGS
@given(unit_lists, st.randoms(use_true_random=False))
def test_unit_order_changes_nothing(units, rng: random.Random):
    result = score_units(units)
    shuffled = units[:]
    rng.shuffle(shuffled)
    again = score_units(shuffled)
    _same(again, result)
    assert again["evaluators"] == result["evaluators"]
    for group in ("per_axis", "per_severity"):
        assert again[group].keys() == result[group].keys()
        for key in result[group]:
            _same(again[group][key], result[group][key])
    for name, figures in result["per_evaluator"].items():
        _same(again["per_evaluator"][name], figures)
        for group in ("per_axis", "per_severity"):
            for key in figures[group]:
                _same(again["per_evaluator"][name][group][key], figures[group][key])


def _combine(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    n = sum(p["n"] for p in parts)
    return {
        "mvr": sum(p["mvr"] * p["n"] for p in parts if p["n"]) / n,
        "fs": sum(p["fs"] * p["n"] for p in parts if p["n"]) / n,
        "n": n,
        "violations": sum(p["violations"] for p in parts),
        "missing": sum(p["missing"] for p in parts),
    }


@SETTINGS
@given(unit_lists)
def test_groups_partition_the_units_and_combine_to_the_overall_figures(units):
    result = score_units(units)
    overall = {k: result[k] for k in SUMMARY}
    groups = {
        "per_axis": (AXES, lambda u, key: u.axis == key),
        "per_severity": ([str(s) for s in SEVERITIES], lambda u, key: str(u.severity) == key),
    }
    for group, (keys, member) in groups.items():
        assert list(result[group]) == list(keys)
        for key in keys:
            _same(result[group][key], summarize([u for u in units if member(u, key)]))
            mine = [u for u in units if member(u, key)]
            if mine:
                assert result[group][key]["mvr"] == pytest.approx(literal(mine)[0])
        combined = _combine(list(result[group].values()))
        assert combined == pytest.approx(overall, abs=1e-12), group
    evaluators = result["per_evaluator"]
    assert list(evaluators) == result["evaluators"] == sorted({u.evaluator for u in units})
    combined = _combine([{k: e[k] for k in overall} for e in evaluators.values()])
    assert combined == pytest.approx(overall, abs=1e-12)
    for name, figures in evaluators.items():
        mine = [u for u in units if u.evaluator == name]
        assert figures["n"] == len(mine) and figures["mvr"] == pytest.approx(literal(mine)[0])
        assert _combine([figures["per_axis"][a] for a in AXES]) == pytest.approx(
            {k: figures[k] for k in overall}, abs=1e-12
        )
