"""Significance tests, Holm, bootstrap and Kendall's tau (evaluation/core/significance.py).

scipy and statsmodels (dev extra) are the oracles; the module itself does not use them.
"""

import random
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests

from evaluation.core.significance import (
    bootstrap_ci,
    holm,
    kendall_tau,
    paired_t_test,
    pairwise_randomization_p,
    pairwise_tests,
    randomization_test,
    student_t_two_sided_p,
)

values = st.lists(st.floats(0, 1, allow_nan=False), min_size=3, max_size=40)


@pytest.mark.parametrize("df", [1, 2, 5, 30, 76, 200])
@pytest.mark.parametrize("t", [0.0, 0.3, 1.0, 2.0, 3.5, 10.0])
def test_t_p_value_matches_scipy_when_any_df(t: float, df: int) -> None:
    assert student_t_two_sided_p(t, df) == pytest.approx(2 * stats.t.sf(t, df), abs=1e-12)


@settings(max_examples=50, deadline=None)
@given(values, st.integers(0, 10_000))
def test_paired_t_test_matches_scipy_when_differences_vary(a: list[float], seed: int) -> None:
    rng = random.Random(seed)
    b = [min(1.0, max(0.0, x + rng.uniform(-0.3, 0.3))) for x in a]
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    if max(diffs) - min(diffs) < 1e-9:
        return
    t, p = paired_t_test(a, b)
    expected = stats.ttest_rel(a, b)
    assert t == pytest.approx(expected.statistic, rel=1e-9, abs=1e-9)
    assert p == pytest.approx(expected.pvalue, rel=1e-7, abs=1e-12)


def test_paired_t_test_gives_p_1_when_runs_identical() -> None:
    assert paired_t_test([0.1, 0.5, 0.2], [0.1, 0.5, 0.2]) == (0.0, 1.0)


def test_randomization_test_is_reproducible_with_seed_and_agrees_with_exact_test() -> None:
    rng = random.Random(7)
    a = [rng.random() for _ in range(12)]
    b = [x - 0.1 + rng.gauss(0, 0.15) for x in a]
    first = randomization_test(a, b, rng=random.Random(3), trials=20_000)
    assert first == randomization_test(a, b, rng=random.Random(3), trials=20_000)
    # Exact sign-flip distribution over all 2^12 assignments.
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    observed = abs(sum(diffs))
    exact = sum(
        abs(sum(d if not (mask >> i) & 1 else -d for i, d in enumerate(diffs))) >= observed - 1e-12
        for mask in range(1 << 12)
    ) / (1 << 12)
    assert first == pytest.approx(exact, abs=0.01)


def test_randomization_test_gives_1_when_runs_identical() -> None:
    assert randomization_test([0.3] * 20, [0.3] * 20, rng=random.Random(0), trials=100) == 1.0


@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=20))
def test_holm_matches_statsmodels_when_any_p_values(p_values: list[float]) -> None:
    expected = multipletests(p_values, method="holm")[1]
    assert holm(p_values) == pytest.approx(list(expected))


def test_pairwise_tests_cover_every_pair_with_holm_not_below_raw_when_three_runs() -> None:
    rng = random.Random(1)
    per_topic = {name: [rng.random() for _ in range(30)] for name in ("x", "y", "z")}
    tests = pairwise_tests(per_topic, seed=5, trials=500)
    assert [(t.a, t.b) for t in tests] == [("x", "y"), ("x", "z"), ("y", "z")]
    assert all(t.t_p_holm >= t.t_p and t.randomization_p_holm >= t.randomization_p for t in tests)


def test_bootstrap_ci_brackets_mean_and_matches_scipy_percentile_when_seeded() -> None:
    rng = random.Random(2)
    data = [rng.random() for _ in range(80)]
    low, high = bootstrap_ci(data, rng=random.Random(9), resamples=5000)
    mean = sum(data) / len(data)
    assert low < mean < high
    oracle = stats.bootstrap(
        (data,), lambda x: sum(x) / len(x), method="percentile", n_resamples=5000, random_state=1
    ).confidence_interval
    assert low == pytest.approx(oracle.low, abs=0.01)
    assert high == pytest.approx(oracle.high, abs=0.01)


@settings(max_examples=50)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=3, max_size=15))
def test_kendall_tau_matches_scipy_tau_b_when_ties(pairs: list[tuple[int, int]]) -> None:
    a = [float(x) for x, _ in pairs]
    b = [float(y) for _, y in pairs]
    expected = stats.kendalltau(a, b).statistic
    ours = kendall_tau(a, b)
    if expected != expected:  # scipy's NaN: no variation in one ranking
        assert ours != ours
    else:
        assert ours == pytest.approx(expected)


def exact_sign_flip_p(a: list[float], b: list[float]) -> float:
    """The exact two-sided sign-flip p over all 2^n assignments (no Monte Carlo)."""
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    observed = abs(sum(diffs))
    flips = range(1 << len(diffs))
    return sum(
        abs(sum(-d if (mask >> i) & 1 else d for i, d in enumerate(diffs))) >= observed - 1e-12
        for mask in flips
    ) / (1 << len(diffs))


def test_all_pairs_randomization_agrees_with_the_exact_test_for_each_pair() -> None:
    rng = random.Random(11)
    base = [rng.random() for _ in range(11)]
    per_topic = {
        name: [x + shift + rng.gauss(0, 0.2) for x in base]
        for name, shift in (("a", 0.0), ("b", -0.05), ("c", 0.2), ("d", 0.0))
    }
    found = pairwise_randomization_p(per_topic, seed=4, trials=40_000)
    assert found == pairwise_randomization_p(per_topic, seed=4, trials=40_000)
    pairs = list(combinations(per_topic, 2))
    assert len(found) == len(pairs) == 6
    for (x, y), p in zip(pairs, found, strict=True):
        assert p == pytest.approx(exact_sign_flip_p(per_topic[x], per_topic[y]), abs=0.008)


def test_all_pairs_randomization_gives_1_for_identical_runs_and_nothing_for_one_run() -> None:
    assert pairwise_randomization_p({"a": [0.2, 0.4], "b": [0.2, 0.4]}, trials=50) == [1.0]
    assert pairwise_randomization_p({"a": [0.2, 0.4]}, trials=50) == []
    with pytest.raises(ValueError, match="same topics"):
        pairwise_tests({"a": [0.2, 0.4], "b": [0.1]}, trials=10)
