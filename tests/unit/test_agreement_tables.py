"""Bootstrap intervals, the pairwise and per-assessor tables, and agreement over a task's
topics (pooled kappa, ARQMath-2's mean over topics)."""

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from assessment.core.agreement import (
    NO_VARIATION,
    Agreement,
    bootstrap_ci,
    cohen_kappa,
    cohen_kappa_binary,
    kappa_of_pairs,
)
from assessment.core.agreement_tables import (
    NO_RELEVANT_FROM_BOTH,
    assessor_means,
    mean_over_topics,
    pairwise_agreements,
    pooled_pairs,
)
from tests.unit.agreement_oracles import as_ratings, grades, sklearn_kappa

# The oracles warn (and answer NaN) exactly where ours answers "n/a" with a reason.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")


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


# --- Over a task's topics: pooled kappa and ARQMath-2's mean over topics --------------------

topic_pairs = st.lists(
    st.lists(st.tuples(grades, grades), min_size=0, max_size=12), min_size=1, max_size=8
)


def sklearn_mean_over_topics(topics: list[list[tuple[int, int]]], binary: bool) -> list[float]:
    """ARQMath-2's rule by scikit-learn: each topic's kappa where both assessors gave some
    shared hit H or M (grade >= 2) and kappa is defined (2+ hits, not NaN)."""
    values = []
    for pairs in topics:
        if not (any(a >= 2 for a, _ in pairs) and any(b >= 2 for _, b in pairs)):
            continue
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


def both_relevant(pairs: list[tuple[int, int]]) -> bool:
    return any(a >= 2 for a, _ in pairs) and any(b >= 2 for _, b in pairs)


@settings(max_examples=200, deadline=None)
@given(topics=topic_pairs, binary=st.booleans())
def test_mean_over_topics_matches_sklearn_when_topics_without_relevant_from_both_are_left_out(
    topics, binary
) -> None:
    per_topic = []
    for i, pairs in enumerate(topics):
        a, b = as_ratings(pairs)
        kappa = cohen_kappa_binary(a, b) if binary else cohen_kappa(a, b)
        per_topic.append((f"A.{i}", kappa, both_relevant(pairs)))
    ours = mean_over_topics(per_topic)
    theirs = sklearn_mean_over_topics(topics, binary)
    assert ours.mean.n == len(theirs)
    assert len(ours.left_out) == len(topics) - len(theirs)
    if theirs:
        assert ours.mean.value == pytest.approx(float(np.mean(theirs)), abs=1e-9)
    else:
        assert ours.mean.value is None


def test_mean_over_topics_lists_topics_left_out_with_reason_when_not_meaningful() -> None:
    topics = {
        "A.1": [(3, 3), (0, 0), (2, 1)],
        "A.2": [(2, 2), (2, 2)],  # both said M every time
        "A.4": [(3, 0), (0, 3)],
        "A.5": [(3, 1), (0, 0), (1, 0)],  # only the first found a relevant hit
    }
    found = mean_over_topics(
        [(label, kappa_of_pairs(pairs), both_relevant(pairs)) for label, pairs in topics.items()]
    )
    one = kappa_of_pairs(topics["A.1"]).value
    assert found.mean.value == pytest.approx((one + -1.0) / 2)  # type: ignore[operator]
    assert found.mean.n == 2
    assert found.left_out == [("A.2", NO_VARIATION), ("A.5", NO_RELEVANT_FROM_BOTH)]


def test_a_topic_where_one_assessor_found_nothing_relevant_adds_no_binary_zero() -> None:
    # Counting such a topic (binary kappa 0: one assessor said N to everything) would pull
    # the mean down; ARQMath-2 calls its kappa not meaningful and leaves it out.
    pairs = [(2, 0), (0, 0), (3, 1)]
    assert kappa_of_pairs([(int(a >= 2), int(b >= 2)) for a, b in pairs]).value == 0.0
    found = mean_over_topics([("A.9", kappa_of_pairs(pairs), both_relevant(pairs))])
    assert found.mean.value is None
    assert found.left_out == [("A.9", NO_RELEVANT_FROM_BOTH)]


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
