"""The annotation round trip on a fixture of sheets: export, two sheets in, kappa, adjudication, split."""

from __future__ import annotations

import random

import pytest
from forcebench_fixtures import sample_rows

from eviscope.suites.forcebench.annotation import (
    Annotation,
    cap_axes,
    cohen_kappa,
    flow_table,
    locality_filter,
    stratified_split,
)

ACC, REJ, ND = "accept_force_gap", "reject_not_force_gap", "needs_discussion"
# Row decisions of the two annotators on the ten sample rows (the Space's annotation tab).
DECISIONS_A = [ACC, ACC, ACC, REJ, REJ, ND, ACC, ACC, ACC, ACC]
DECISIONS_B = [ACC, ACC, REJ, REJ, ACC, ND, ACC, ACC, ACC, ACC]


def test_kappa_matches_the_hand_computed_value() -> None:
    ids = [row["id"] for row in sample_rows()]
    a = {i: Annotation(id=i, decision=d) for i, d in zip(ids, DECISIONS_A, strict=True)}
    b = {i: Annotation(id=i, decision=d) for i, d in zip(ids, DECISIONS_B, strict=True)}
    # observed agreement 8/10; marginals A: 7 acc, 2 rej, 1 nd; B: 7 acc, 2 rej, 1 nd
    # expected agreement (49 + 4 + 1) / 100; kappa = (0.8 - 0.54) / (1 - 0.54) = 0.26 / 0.46
    assert cohen_kappa(a, b) == pytest.approx(0.26 / 0.46)


def _pool(n: int = 60) -> list[dict]:
    rows = []
    for i in range(n):
        row = sample_rows()[i % 10]
        group = "AttributionBench/" + ("HAGRID" if i % 3 else "ExpertQA")
        rows.append({**row, "id": f"fb-{i:04d}", "source": f"{group}:{i}"})
    return rows


def test_split_is_stable_under_reruns_and_shuffled_input() -> None:
    pool = _pool()
    first, rest = stratified_split(pool, per_axis=5, seed=0)
    shuffled = pool[:]
    random.Random(7).shuffle(shuffled)
    assert stratified_split(shuffled, per_axis=5, seed=0) == (first, rest)
    assert stratified_split(pool, per_axis=5, seed=0) == (first, rest)
    assert len(first) == 25 and len(rest) == 35
    for axis in {r["axis"] for r in pool}:
        mine = [r for r in first if r["axis"] == axis]
        # 12 rows per axis: 4 ExpertQA, 8 HAGRID -> quotas 2 (1.67 rounds up) and 3 (3.33)
        assert sorted(r["source"].split(":")[0] for r in mine).count("AttributionBench/ExpertQA") == 2
    assert stratified_split(pool, per_axis=5, seed=1)[0] != first


def test_cap_keeps_the_same_rows_whatever_the_order() -> None:
    pool = _pool()
    capped = cap_axes(pool, 4, seed=0)
    assert len(capped) == 20
    assert cap_axes(list(reversed(pool)), 4, seed=0) == capped


def test_locality_filter_and_flow_table() -> None:
    rows = sample_rows()
    broken = {**rows[0], "id": "fb-bad", "raised_claim": "Smoking causes lung cancer in German adults."}
    kept, removed = locality_filter([*rows, broken])
    assert [r["id"] for r in kept] == [r["id"] for r in rows]
    assert removed == {"fb-bad": ["single_edit", "same_entities_numbers"]}
    table = flow_table([("Candidate rows entering double annotation", 433), ("Final eval set", 198)])
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()]
    assert cells[0] == ["Counted set", "Rows"]
    assert cells[2:] == [["Candidate rows entering double annotation", "433"], ["Final eval set", "198"]]
