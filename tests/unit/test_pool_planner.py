"""The pool planner on a hand-worked task: judgments, relevant, tau and leave-one-group-out."""

import pytest

from evaluation.core.pool_planner import PlannerInput, plan_pools
from evaluation.core.trec_measures import parse_measures
from pooling.core.algorithms.strategies import parse_strategy

# Prior qrels: a and c relevant, b not; d was never judged (counts as not relevant).
GRADES = {"1": {"a": 1, "b": 0, "c": 1}}
RUNS = {
    "R1": {"1": {"a": 3.0, "b": 2.0, "c": 1.0}},
    "R2": {"1": {"c": 3.0, "d": 2.0, "a": 1.0}},
    "R3": {"1": {"b": 3.0, "a": 2.0}},  # scored, never pooled
}


def planner_input() -> PlannerInput:
    return PlannerInput(
        grades=GRADES,
        runs=RUNS,
        pool_tags=["R1", "R2"],
        groups={"R1": "G1", "R2": "G2", "R3": "G3"},
        measures=parse_measures(["P_1", "map"]),
    )


def test_depth_row_matches_hand_computation() -> None:
    [row] = plan_pools(planner_input(), [parse_strategy("depth")], [2])
    # Depth 1 pools {a, c} (2 judgments); depth 2 would pool {a, b, c, d}.
    assert (row.judgments, row.relevant, row.relevant_share) == (2, 2, 1.0)
    # P_1 is 1, 1, 0 under both qrels: tau-b = (2 - 0) / sqrt(2 * 2) with the R1-R2 tie.
    assert row.tau["P_1"] == pytest.approx(1.0)
    # map: R1 and R2 (1 + 2/3) / 2, R3 1/2 / 2 under both: the same ranking.
    assert row.tau["map"] == pytest.approx(1.0)
    # Without G1 the pool is R2's depth 2, {c, d}: R1's a is unjudged, so P_1 falls from 1
    # to 0 and map from 5/6 to 1/3 (c at rank 3). Without G2 (pool {a, b}) the same for R2;
    # G1 comes first among equal drops.
    assert row.max_group_drop["P_1"] == {"drop": pytest.approx(1.0), "group": "G1", "run": "R1"}
    assert row.max_group_drop["map"] == {"drop": pytest.approx(0.5), "group": "G1", "run": "R1"}


def test_a_group_without_pool_runs_never_drops() -> None:
    data = planner_input()
    data.pool_tags = ["R1"]
    [row] = plan_pools(data, [parse_strategy("rrf")], [3])
    # Only G1 pools; leaving it out leaves nothing to judge: R1's P_1 falls from 1 to 0.
    assert row.max_group_drop["P_1"]["group"] == "G1"
    assert row.judgments == 3
    assert row.relevant == 2
