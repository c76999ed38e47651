"""Agreement over a task's own grade scale: 0..G grades, its relevance level."""

import math

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from assessment.core.agreement import (
    cohen_kappa,
    kappa_of_pairs,
    krippendorff_alpha,
)
from assessment.core.agreement_tables import (
    pairwise_agreements,
)
from tests.unit.agreement_oracles import as_ratings

# The oracles warn (and answer NaN) exactly where ours answers "n/a" with a reason.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")


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
