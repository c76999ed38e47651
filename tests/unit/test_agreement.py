"""Agreement measures against scikit-learn, statsmodels and the krippendorff package."""

import math
import random

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats import inter_rater

from assessment.agreement import (
    FEWER_THAN_TWO,
    NO_VARIATION,
    Agreement,
    binarize,
    bootstrap_ci,
    cohen_kappa,
    cohen_kappa_binary,
    kappa_of_pairs,
    krippendorff_alpha,
    percentage_agreement,
)
from assessment.agreement_tables import (
    assessor_means,
    mean_over_topics,
    pairwise_agreements,
    pooled_pairs,
)

# The oracles warn (and answer NaN) exactly where ours answers "n/a" with a reason.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")

grades = st.integers(min_value=0, max_value=3)
paired_grades = st.lists(st.tuples(grades, grades), min_size=2, max_size=60)


def as_ratings(pairs: list[tuple[int, int]]) -> tuple[dict[int, int], dict[int, int]]:
    return {i: a for i, (a, _) in enumerate(pairs)}, {i: b for i, (_, b) in enumerate(pairs)}


def sklearn_kappa(pairs: list[tuple[int, int]], weights: str | None) -> float:
    a, b = zip(*pairs, strict=True)
    return float(cohen_kappa_score(a, b, labels=[0, 1, 2, 3], weights=weights))


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


# --- Krippendorff's alpha ---------------------------------------------------------------


def reliability_matrix(ratings: dict[str, dict[int, int]], units: list[int]) -> np.ndarray:
    return np.array(
        [[ratings[r].get(u, np.nan) for u in units] for r in sorted(ratings)], dtype=float
    )


ratings_strategy = st.dictionaries(
    keys=st.sampled_from(["ann", "bob", "cat", "dan"]),
    values=st.dictionaries(st.integers(min_value=0, max_value=15), grades, max_size=16),
    min_size=2,
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(ratings=ratings_strategy, level=st.sampled_from(["nominal", "ordinal"]))
def test_alpha_matches_krippendorff_package_when_defined(ratings, level) -> None:
    ours = krippendorff_alpha(ratings, level=level)
    units = sorted({u for r in ratings.values() for u in r})
    matrix = reliability_matrix(ratings, units)
    pairable = int(np.sum((~np.isnan(matrix)).sum(axis=0) >= 2))
    if ours.value is None:
        assert ours.reason in {FEWER_THAN_TWO, NO_VARIATION}
        return
    assert pairable >= 1
    theirs = krippendorff.alpha(
        reliability_data=matrix, level_of_measurement=level, value_domain=[0, 1, 2, 3]
    )
    assert ours.value == pytest.approx(theirs, abs=1e-9)


def test_alpha_is_textbook_value_when_krippendorff_2011_example() -> None:
    # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C:
    # 4 observers, 12 units, missing values; nominal alpha = 0.743. Values 1..5 -> shifted.
    table = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
        [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
    ]
    ratings = {
        f"observer{o}": {u: v for u, v in enumerate(row) if v is not None}
        for o, row in enumerate(table)
    }
    result = krippendorff_alpha(ratings, level="nominal", domain=(1, 2, 3, 4, 5))
    assert result.value == pytest.approx(0.743, abs=5e-4)
    assert result.n == 40


def test_alpha_is_undefined_when_nobody_disagrees_and_no_variation() -> None:
    result = krippendorff_alpha({"a": {1: 2, 2: 2}, "b": {1: 2, 2: 2}})
    assert result.reason == NO_VARIATION


def test_alpha_is_undefined_when_no_hit_has_two_values() -> None:
    result = krippendorff_alpha({"a": {1: 2}, "b": {2: 3}})
    assert result.reason == FEWER_THAN_TWO


# --- Bootstrap -----------------------------------------------------------------------------


def test_bootstrap_ci_is_reproducible_and_brackets_kappa_when_seeded() -> None:
    rng = random.Random(7)
    pairs = [(rng.randint(0, 3), rng.randint(0, 3)) for _ in range(80)]
    pairs += [(g, g) for g in [0, 1, 2, 3] * 20]
    point = kappa_of_pairs(pairs).value
    first = bootstrap_ci(pairs, kappa_of_pairs, rng=random.Random(42), resamples=400)
    second = bootstrap_ci(pairs, kappa_of_pairs, rng=random.Random(42), resamples=400)
    assert first == second
    assert first.low is not None
    assert first.high is not None
    assert point is not None
    assert first.low < point < first.high
    assert first.high - first.low < 0.4


def test_bootstrap_ci_narrows_when_more_hits_are_shared() -> None:
    rng = random.Random(1)
    base = [(g, g if rng.random() < 0.7 else rng.randint(0, 3)) for g in [0, 1, 2, 3] * 10]
    small = bootstrap_ci(base, kappa_of_pairs, rng=random.Random(3), resamples=300)
    large = bootstrap_ci(base * 10, kappa_of_pairs, rng=random.Random(3), resamples=300)
    assert small.low is not None
    assert small.high is not None
    assert large.low is not None
    assert large.high is not None
    assert large.high - large.low < small.high - small.low


def test_bootstrap_ci_is_undefined_with_reason_when_too_few_hits() -> None:
    result = bootstrap_ci([(1, 1), (2, 2)], kappa_of_pairs, rng=random.Random(0))
    assert not result.defined
    assert result.reason == "fewer than 10 shared hits"


# --- Tables ----------------------------------------------------------------------------------


def test_pairwise_table_lists_only_pairs_with_shared_hits_when_three_assessors() -> None:
    ratings = {
        "ann": {1: 0, 2: 1, 3: 2, 4: 3},
        "bob": {1: 0, 2: 1, 3: 3, 4: 3},
        "cat": {9: 1, 10: 2},
    }
    table = pairwise_agreements(ratings)
    assert [(p.first, p.second) for p in table] == [("ann", "bob")]
    assert table[0].shared == 4
    expected = sklearn_kappa([(0, 0), (1, 1), (2, 3), (3, 3)], None)
    assert table[0].kappa.value == pytest.approx(expected)


def test_assessor_mean_averages_defined_kappas_only_when_some_are_undefined() -> None:
    ratings = {
        "ann": {1: 0, 2: 3, 3: 0, 4: 3},
        "bob": {1: 0, 2: 3, 3: 0, 4: 3},  # kappa 1 with ann
        "cat": {1: 0, 2: 0, 3: 3, 4: 3},  # kappa 0 with ann and bob
        "dan": {1: 2},  # one shared hit: undefined
    }
    means = {m.assessor: m for m in assessor_means(pairwise_agreements(ratings))}
    assert means["ann"].mean_kappa.value == pytest.approx(0.5)
    assert means["cat"].mean_kappa.value == pytest.approx(0.0)
    assert means["dan"].mean_kappa.value is None
    assert means["dan"].partners == 3
    assert isinstance(means["dan"].mean_kappa, Agreement)


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


# --- A task's own scale (issue 12 §4) ---------------------------------------------------------

scale_tops = st.integers(min_value=1, max_value=4)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), top=scale_tops, weights=st.sampled_from([None, "linear", "quadratic"]))
def test_kappa_over_the_task_scale_matches_sklearn_when_scale_is_0_to_g(data, top, weights) -> None:
    grade = st.integers(min_value=0, max_value=top)
    pairs = data.draw(st.lists(st.tuples(grade, grade), min_size=2, max_size=40))
    a, b = as_ratings(pairs)
    categories = tuple(range(top + 1))
    ours = cohen_kappa(a, b, weights=weights, categories=categories)
    x, y = zip(*pairs, strict=True)
    with np.errstate(all="ignore"):
        theirs = float(cohen_kappa_score(x, y, labels=list(categories), weights=weights))
    if math.isnan(theirs):
        assert ours.value is None
    else:
        assert ours.value == pytest.approx(theirs, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(data=st.data(), top=scale_tops)
def test_pair_binary_kappa_binarizes_at_the_task_level_when_level_is_set(data, top) -> None:
    level = data.draw(st.integers(min_value=1, max_value=top))
    grade = st.integers(min_value=0, max_value=top)
    pairs = data.draw(st.lists(st.tuples(grade, grade), min_size=2, max_size=40))
    a, b = as_ratings(pairs)
    [pair] = pairwise_agreements(
        {"x": a, "y": b}, categories=tuple(range(top + 1)), relevant_from=level
    )
    x = [int(p >= level) for p, _ in pairs]
    y = [int(q >= level) for _, q in pairs]
    with np.errstate(all="ignore"):
        theirs = float(cohen_kappa_score(x, y, labels=[0, 1]))
    if math.isnan(theirs):
        assert pair.kappa_binary.value is None
    else:
        assert pair.kappa_binary.value == pytest.approx(theirs, abs=1e-9)


def test_binary_kappa_counts_grade_1_relevant_when_scale_is_binary() -> None:
    a = {1: 1, 2: 0, 3: 1, 4: 0}
    b = {1: 1, 2: 0, 3: 0, 4: 0}
    [pair] = pairwise_agreements({"x": a, "y": b}, categories=(0, 1), relevant_from=1)
    assert pair.kappa_binary.value == pytest.approx(pair.kappa.value)
    assert pair.kappa_binary.value == pytest.approx(0.5)
    # At ARQMath's level 2 nothing of a binary scale is relevant: no variation, not a crash.
    [arqmath] = pairwise_agreements({"x": a, "y": b})
    assert arqmath.kappa_binary.value is None


def test_alpha_over_a_0_to_4_scale_matches_krippendorff_package_when_grade_4_is_used() -> None:
    ratings = {"x": {1: 4, 2: 0, 3: 2, 4: 3}, "y": {1: 4, 2: 1, 3: 2, 4: 1}, "z": {1: 3, 3: 2}}
    ours = krippendorff_alpha(ratings, level="ordinal", domain=(0, 1, 2, 3, 4))
    matrix = [[ratings[r].get(h, np.nan) for h in (1, 2, 3, 4)] for r in ("x", "y", "z")]
    theirs = krippendorff.alpha(
        reliability_data=matrix, level_of_measurement="ordinal", value_domain=[0, 1, 2, 3, 4]
    )
    assert ours.value == pytest.approx(theirs, abs=1e-9)


def test_grades_outside_a_narrowed_scale_are_measured_without_crashing_when_left_over() -> None:
    # Judged 0-3, then the task's scale became binary: old grades 2 and 3 remain.
    ratings = {"x": {1: 3, 2: 0, 3: 1}, "y": {1: 2, 2: 0, 3: 1}}
    assert krippendorff_alpha(ratings, level="ordinal", domain=(0, 1)).value is not None
    pairs = [(3, 2), (0, 0), (1, 1)]
    assert kappa_of_pairs(pairs, weights="linear", categories=(0, 1)).value is not None


# --- Over a task's topics: pooled kappa and ARQMath-2's mean over topics --------------------

topic_pairs = st.lists(
    st.lists(st.tuples(grades, grades), min_size=0, max_size=12), min_size=1, max_size=8
)


def sklearn_mean_over_topics(topics: list[list[tuple[int, int]]], binary: bool) -> list[float]:
    """Each topic's kappa by scikit-learn where it is defined (2+ hits, not NaN)."""
    values = []
    for pairs in topics:
        if len(pairs) < 2:
            continue
        if binary:
            pairs = [(int(a >= 2), int(b >= 2)) for a, b in pairs]
        a, b = zip(*pairs, strict=True)
        with np.errstate(all="ignore"):
            value = float(cohen_kappa_score(a, b, labels=[0, 1] if binary else [0, 1, 2, 3]))
        if not math.isnan(value):
            values.append(value)
    return values


@settings(max_examples=200, deadline=None)
@given(topics=topic_pairs, binary=st.booleans())
def test_mean_over_topics_matches_sklearn_per_topic_when_undefined_topics_are_left_out(
    topics, binary
) -> None:
    per_topic = []
    for i, pairs in enumerate(topics):
        a, b = as_ratings(pairs)
        per_topic.append((f"A.{i}", cohen_kappa_binary(a, b) if binary else cohen_kappa(a, b)))
    ours = mean_over_topics(per_topic)
    theirs = sklearn_mean_over_topics(topics, binary)
    assert ours.mean.n == len(theirs)
    assert len(ours.left_out) == len(topics) - len(theirs)
    if theirs:
        assert ours.mean.value == pytest.approx(float(np.mean(theirs)), abs=1e-9)
    else:
        assert ours.mean.value is None


def test_mean_over_topics_lists_topics_left_out_with_reason_when_kappa_undefined() -> None:
    found = mean_over_topics(
        [
            ("A.1", kappa_of_pairs([(3, 3), (0, 0), (2, 1)])),
            ("A.2", kappa_of_pairs([(2, 2), (2, 2)])),  # both said M every time
            ("A.3", kappa_of_pairs([(1, 0)])),
            ("A.4", kappa_of_pairs([(3, 0), (0, 3)])),
        ]
    )
    one = kappa_of_pairs([(3, 3), (0, 0), (2, 1)]).value
    assert found.mean.value == pytest.approx((one + -1.0) / 2)  # type: ignore[operator]
    assert found.mean.n == 2
    assert found.left_out == [("A.2", NO_VARIATION), ("A.3", FEWER_THAN_TWO)]


def test_pooled_kappa_is_sklearn_kappa_of_every_pairs_shared_hits_together() -> None:
    ratings = {
        "ann": {1: 3, 2: 0, 3: 2, 4: 1},
        "bob": {1: 3, 2: 1, 3: 2},
        "cat": {3: 0, 4: 1, 5: 2},
    }
    pairs = pooled_pairs(ratings)
    assert sorted(pairs) == sorted([(3, 3), (0, 1), (2, 2), (2, 0), (1, 1), (2, 0)])
    a, b = zip(*pairs, strict=True)
    theirs = float(cohen_kappa_score(a, b, labels=[0, 1, 2, 3]))
    assert kappa_of_pairs(pairs).value == pytest.approx(theirs)
