"""Krippendorff's alpha against the krippendorff package and a textbook example."""

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assessment.core.agreement import (
    FEWER_THAN_TWO,
    NO_VARIATION,
    krippendorff_alpha,
)
from tests.unit.agreement_oracles import grades


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
