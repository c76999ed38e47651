"""Kendall's tau-b against scipy, tau-AP against hand-worked examples from its definition."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau

from evaluation.core.rank_correlation import kendall_tau_b, tau_ap

TRUTH = {"A": 4.0, "B": 3.0, "C": 2.0, "D": 1.0}


@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=2, max_size=25, unique=False)
)
@settings(max_examples=200, deadline=None)
def test_tau_b_equals_scipy_when_ties_anywhere(pairs: list[tuple[int, int]]) -> None:
    reference = {f"s{i}": float(x) for i, (x, _y) in enumerate(pairs)}
    estimate = {f"s{i}": float(y) for i, (_x, y) in enumerate(pairs)}
    expected = kendalltau([x for x, _ in pairs], [y for _, y in pairs]).statistic
    got = kendall_tau_b(reference, estimate)
    if math.isnan(expected):  # scipy: all ties on one side
        assert got == 0.0
    else:
        assert got == pytest.approx(expected, abs=1e-12)


def test_tau_ap_is_one_when_same_order_and_minus_one_when_reversed() -> None:
    assert tau_ap(TRUTH, {"A": 9, "B": 8, "C": 7, "D": 6}) == pytest.approx(1.0)
    assert tau_ap(TRUTH, {"A": 1, "B": 2, "C": 3, "D": 4}) == pytest.approx(-1.0)


def test_tau_ap_weighs_a_swap_at_the_top_more_than_at_the_bottom() -> None:
    # Estimated B A C D: C(2)=0 (B is not above A), C(3)=2, C(4)=3
    # tau_AP = 2/3 * (0/1 + 2/2 + 3/3) - 1 = 1/3, while Kendall's tau is 2/3.
    top_swap = {"B": 4.0, "A": 3.0, "C": 2.0, "D": 1.0}
    assert tau_ap(TRUTH, top_swap) == pytest.approx(1 / 3)
    assert kendall_tau_b(TRUTH, top_swap) == pytest.approx(2 / 3)
    # Estimated A B D C: C(2)=1, C(3)=2, C(4)=2 -> 2/3 * (1 + 1 + 2/3) - 1 = 7/9.
    bottom_swap = {"A": 4.0, "B": 3.0, "D": 2.0, "C": 1.0}
    assert tau_ap(TRUTH, bottom_swap) == pytest.approx(7 / 9)
    assert kendall_tau_b(TRUTH, bottom_swap) == pytest.approx(2 / 3)


def test_tau_ap_is_not_symmetric_when_rankings_differ() -> None:
    # Yilmaz et al. §3: the estimate is walked, the reference judges.
    other = {"C": 4.0, "A": 3.0, "B": 2.0, "D": 1.0}
    # Estimated C A B D against A B C D: C(2)=0, C(3)=1 (A), C(4)=3 -> 2/3*(0+1/2+1)-1 = 0.
    assert tau_ap(TRUTH, other) == pytest.approx(0.0)
    # Estimated A B C D against C A B D: C(2)=1, C(3)=0, C(4)=3 -> 2/3*(1+0+1)-1 = 1/3.
    assert tau_ap(other, TRUTH) == pytest.approx(1 / 3)


def test_rank_correlations_refuse_different_systems() -> None:
    with pytest.raises(ValueError, match="same systems"):
        kendall_tau_b(TRUTH, {"A": 1.0})
    with pytest.raises(ValueError, match="same systems"):
        tau_ap(TRUTH, {"A": 1.0})


def test_an_estimate_tying_every_system_orders_nothing() -> None:
    tied = dict.fromkeys(TRUTH, 0.0)
    assert tau_ap(TRUTH, tied) == 0.0
    assert kendall_tau_b(TRUTH, tied) == 0.0
