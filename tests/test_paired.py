"""Paired comparison (contract §4): exact McNemar and the quartet bootstrap."""

from __future__ import annotations

import numpy as np
import pytest
from eviscope_fixtures import hand_predictions, hand_rows

from eviscope.core.errors import EviScopeError
from eviscope.core.stats import bootstrap_ci, mcnemar_p
from eviscope.suites.eviscope.paired import compare
from eviscope.suites.eviscope.reference_systems import oracle
from eviscope.suites.eviscope.scoring import QUARTET_METRICS, score


@pytest.mark.parametrize(("b", "c", "p"), [(1, 15, 0.00052), (2, 13, 0.0074), (1, 0, 1.0), (0, 0, 1.0)])
def test_mcnemar_reproduces_the_spec_checks(b, c, p):
    assert mcnemar_p(b, c) == pytest.approx(p, rel=0.01)
    assert mcnemar_p(c, b) == mcnemar_p(b, c)


def test_mcnemar_is_the_exact_binomial_tail():
    assert mcnemar_p(1, 15) == 2 * 17 / 2**16


def test_bootstrap_is_identical_under_one_seed_and_covers_the_difference():
    rng = np.random.default_rng(7)
    a, b = rng.integers(0, 2, 40), rng.integers(0, 2, 40)
    first = bootstrap_ci(a, b, seed=5)
    assert bootstrap_ci(a, b, seed=5) == first
    assert bootstrap_ci(a, b, seed=6) != first
    assert first[0] < a.mean() - b.mean() < first[1]


def test_bootstrap_of_identical_systems_is_zero():
    a = np.array([1, 0, 1, 1])
    assert bootstrap_ci(a, a) == (0.0, 0.0)


def test_compare_counts_discordant_quartets():
    rows = hand_rows()
    results = {r.metric: r for r in compare(score(rows, hand_predictions()), score(rows, oracle(rows)))}
    assert list(results) == list(QUARTET_METRICS)
    ers, qcs = results["evidence_removal_sensitivity"], results["quartet_consistency"]
    assert (ers.a, ers.b_value, ers.b, ers.c) == (0.5, 1.0, 0, 2)
    assert (qcs.a, qcs.b_value, qcs.b, qcs.c, qcs.p_value) == (0.25, 1.0, 0, 3, 0.25)
    assert qcs.difference == -0.75 and qcs.ci_low <= -0.75 <= qcs.ci_high <= 0
    assert set(qcs.to_dict()) == {"metric", "A", "B", "difference", "b", "c", "p_value", "ci_low", "ci_high"}


def test_compare_refuses_different_quartets():
    rows = hand_rows()
    with pytest.raises(EviScopeError, match="different quartets"):
        compare(score(rows, oracle(rows)), score(rows[:8], oracle(rows[:8])))
