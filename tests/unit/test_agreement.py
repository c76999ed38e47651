"""Cohen's kappa and percentage agreement against scikit-learn and statsmodels, and their
properties (symmetry, renamed hits)."""

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats import inter_rater

from assessment.core.agreement import (
    FEWER_THAN_TWO,
    NO_VARIATION,
    binarize,
    cohen_kappa,
    cohen_kappa_binary,
    kappa_of_pairs,
    krippendorff_alpha,
    percentage_agreement,
    shared_hits,
)
from tests.unit.agreement_oracles import as_ratings, grades, paired_grades, sklearn_kappa

# The oracles warn (and answer NaN) exactly where ours answers "n/a" with a reason.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")


@settings(max_examples=300, deadline=None)
@given(pairs=paired_grades, weights=st.sampled_from([None, "linear", "quadratic"]))
def test_kappa_matches_sklearn_when_defined(pairs, weights) -> None:
    a, b = as_ratings(pairs)
    ours = cohen_kappa(a, b, weights=weights)
    with np.errstate(all="ignore"):
        theirs = sklearn_kappa(pairs, weights)
    if math.isnan(theirs):
        assert ours.value is None
        assert ours.reason == NO_VARIATION
    else:
        assert ours.value == pytest.approx(theirs, abs=1e-9)
        assert ours.n == len(pairs)


@settings(max_examples=200, deadline=None)
@given(pairs=paired_grades, wt=st.sampled_from([None, "linear", "quadratic"]))
def test_kappa_matches_statsmodels_contingency_table_when_defined(pairs, wt) -> None:
    table = np.zeros((4, 4))
    for a, b in pairs:
        table[a, b] += 1
    a, b = as_ratings(pairs)
    ours = cohen_kappa(a, b, weights=wt)
    with np.errstate(all="ignore"):
        theirs = float(inter_rater.cohens_kappa(table, wt=wt, return_results=False))
    if ours.value is None:
        assert not math.isfinite(theirs) or ours.reason == NO_VARIATION
    else:
        assert ours.value == pytest.approx(theirs, abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(pairs=paired_grades)
def test_binary_kappa_matches_sklearn_on_h_plus_m_when_defined(pairs) -> None:
    a, b = as_ratings(pairs)
    ours = cohen_kappa_binary(a, b)
    x = [int(p >= 2) for p, _ in pairs]
    y = [int(q >= 2) for _, q in pairs]
    with np.errstate(all="ignore"):
        theirs = float(cohen_kappa_score(x, y, labels=[0, 1]))
    if math.isnan(theirs):
        assert ours.value is None
    else:
        assert ours.value == pytest.approx(theirs, abs=1e-9)


# Textbook: Cohen (1960)-style 2x2 example from Fleiss, Levin & Paik (2003), Table 18.1:
# 100 subjects, a = 75 agree-yes... we use the classic table [[20, 5], [10, 15]] whose kappa
# is (0.7 - 0.5) / (1 - 0.5) = 0.4.
def test_kappa_is_textbook_value_when_classic_two_by_two_table() -> None:
    pairs = [(1, 1)] * 20 + [(1, 0)] * 5 + [(0, 1)] * 10 + [(0, 0)] * 15
    assert kappa_of_pairs(pairs, categories=(0, 1)).value == pytest.approx(0.4)


@pytest.mark.parametrize(
    ("a", "b", "reason"),
    [
        ({}, {}, FEWER_THAN_TWO),
        ({1: 3}, {1: 3}, FEWER_THAN_TWO),
        ({1: 3, 2: 1}, {3: 3, 4: 1}, FEWER_THAN_TWO),  # no hit in common
        ({1: 2, 2: 2, 3: 2}, {1: 2, 2: 2, 3: 2}, NO_VARIATION),
    ],
)
def test_kappa_is_undefined_with_reason_when_too_little_data(a, b, reason) -> None:
    for weights in (None, "linear", "quadratic"):
        result = cohen_kappa(a, b, weights=weights)
        assert result.value is None
        assert result.reason == reason
        assert str(result) == f"n/a ({reason})"


def test_binary_kappa_is_undefined_when_everything_is_relevant() -> None:
    # 4-way has variation (2 vs 3) but binarized every hit is relevant for both.
    a = {1: 2, 2: 3, 3: 3}
    b = {1: 3, 2: 2, 3: 3}
    assert cohen_kappa(a, b).value is not None
    assert cohen_kappa_binary(a, b).reason == NO_VARIATION


def test_kappa_uses_only_shared_hits_when_assessors_judged_different_sets() -> None:
    a = {1: 0, 2: 3, 3: 1, 9: 2}
    b = {1: 0, 2: 3, 3: 1, 7: 0}
    result = cohen_kappa(a, b)
    assert result.n == 3
    assert result.value == pytest.approx(1.0)


def test_binarize_counts_medium_and_high_as_relevant() -> None:
    assert binarize({1: 0, 2: 1, 3: 2, 4: 3}) == {1: 0, 2: 0, 3: 1, 4: 1}


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ({1: 0, 2: 1}, {1: 0, 2: 1}, 1.0),
        ({1: 0, 2: 1, 3: 2, 4: 3}, {1: 0, 2: 2, 3: 2, 4: 0}, 0.5),
        ({1: 0}, {1: 3}, 0.0),
    ],
)
def test_percentage_agreement_is_share_of_equal_grades_when_hits_shared(a, b, expected) -> None:
    assert percentage_agreement(a, b).value == pytest.approx(expected)


def test_percentage_agreement_is_undefined_when_nothing_shared() -> None:
    assert percentage_agreement({1: 1}, {2: 1}).value is None


# --- Properties ------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(pairs=paired_grades, weights=st.sampled_from([None, "linear", "quadratic"]))
def test_kappa_is_symmetric_and_at_most_one_when_assessors_swap(pairs, weights) -> None:
    a, b = as_ratings(pairs)
    forward = cohen_kappa(a, b, weights=weights)
    backward = cohen_kappa(b, a, weights=weights)
    assert forward.reason == backward.reason
    if forward.value is not None:
        assert backward.value == pytest.approx(forward.value, abs=1e-12)
        assert forward.value <= 1.0 + 1e-12


@settings(max_examples=200, deadline=None)
@given(grades_of_a=st.lists(grades, min_size=2, max_size=40))
def test_kappa_is_one_when_both_assessors_agree_and_grades_vary(grades_of_a) -> None:
    a = dict(enumerate(grades_of_a))
    result = cohen_kappa(a, dict(a))
    if len(set(grades_of_a)) > 1:
        assert result.value == pytest.approx(1.0)
    else:
        assert result.reason == NO_VARIATION


@settings(max_examples=100, deadline=None)
@given(pairs=paired_grades, seed=st.integers(min_value=0, max_value=10_000))
def test_kappa_ignores_hit_ids_when_hits_are_renamed(pairs, seed) -> None:
    a, b = as_ratings(pairs)
    names = list(range(len(pairs)))
    random.Random(seed).shuffle(names)
    renamed_a = {f"hit{names[k]}": v for k, v in a.items()}
    renamed_b = {f"hit{names[k]}": v for k, v in b.items()}
    assert cohen_kappa(renamed_a, renamed_b) == cohen_kappa(a, b)


@settings(max_examples=100, deadline=None)
@given(pairs=paired_grades)
def test_alpha_is_the_same_when_assessors_are_listed_in_another_order(pairs) -> None:
    a, b = as_ratings(pairs)
    first = krippendorff_alpha({"x": a, "y": b})
    second = krippendorff_alpha({"y": b, "x": a})
    assert (first.n, first.reason) == (second.n, second.reason)
    if first.value is not None:
        assert second.value == pytest.approx(first.value, abs=1e-12)


@pytest.mark.parametrize(
    ("ratings", "expected"),
    [
        ({}, set()),
        ({"a": {1: 3}}, set()),
        ({"a": {1: 3, 2: 0}, "b": {2: 1, 3: 2}}, {2}),
        # a flagged hit is not in a rating: graded by one assessor only, not shared
        ({"a": {1: 3, 2: 0}, "b": {1: 3}}, {1}),
        ({"a": {1: 0}, "b": {2: 0}, "c": {1: 1, 2: 2, 3: 3}}, {1, 2}),
    ],
)
def test_shared_hits_are_those_two_or_more_assessors_graded_when_counted(
    ratings: dict[str, dict[int, int]], expected: set[int]
) -> None:
    assert shared_hits(ratings) == expected
