"""The estimate of a topic's relevant documents still unjudged, worked by hand."""

from __future__ import annotations

import math

from pooling.core.algorithms.strategies.estimate import fused_bands, unjudged_relevant_estimate


def test_bands_double_after_two_of_ten() -> None:
    runs = {"a": [f"d{n:03d}" for n in range(100)]}
    widths = [len(band) for band in fused_bands(runs)]
    assert widths == [10, 10, 20, 40, 20]  # 100 documents: the last band is cut short
    assert fused_bands(runs)[0] == [f"d{n:03d}" for n in range(10)]


def test_estimate_by_hand_on_one_run_of_thirty() -> None:
    runs = {"a": [f"d{n:02d}" for n in range(30)]}
    # Band 1 (d00-d09): 4 judged, 3 relevant. Band 2 (d10-d19): 2 judged, none relevant.
    # Band 3 (d20-d29, 10 of a band of 20): nothing judged.
    judged = {"d00": True, "d01": True, "d02": False, "d05": True, "d12": False, "d15": False}
    rate1 = (3 + 2 * 0.5) / (4 + 2)  # 2/3
    rate2 = (0 + 2 * rate1 / 2) / (2 + 2)  # 1/6
    rate3 = (0 + 2 * rate2 / 2) / (0 + 2)  # 1/12: an unexplored band halves the rate
    expected = rate1 * 6 + rate2 * 8 + rate3 * 10
    assert math.isclose(unjudged_relevant_estimate(runs, judged), expected)
    assert math.isclose(expected, 4 + 4 / 3 + 5 / 6)


def test_everything_judged_leaves_nothing_and_fusion_orders_the_bands() -> None:
    runs = {"a": ["x", "y", "z"], "b": ["z", "y", "x"]}
    assert unjudged_relevant_estimate(runs, {"x": True, "y": False, "z": True}) == 0.0
    # y is second in both runs, x and z first in one and third in the other: equal weights,
    # ties by docno.
    assert fused_bands({"a": ["x", "y", "z"], "b": ["z", "y", "x"], "c": ["y"]}) == [
        ["y", "x", "z"]
    ]
