"""The pool planner on a hand-worked task: judgments, relevant, tau and leave-one-group-out."""

from dataclasses import replace

import pytest

from evaluation.core.pool_planner import PlannerInput, condensed, plan_pools
from evaluation.core.trec_measures import evaluate_measures, parse_measures
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


def test_group_drop_scored_on_changed_topics_equals_scoring_every_topic() -> None:
    """Leaving G2 out changes topic 2's pool only; the drop must be what trec_eval gives on
    the whole reduced qrels, unchanged topic 1 included."""
    grades = {"1": {"a": 1, "b": 0}, "2": {"x": 1, "y": 1, "z": 0}}
    runs = {
        "R1": {"1": {"a": 2.0, "b": 1.0}, "2": {"z": 2.0, "x": 1.0}},
        "R2": {"1": {"a": 2.0, "b": 1.0}, "2": {"y": 2.0, "x": 1.0}},
    }
    data = PlannerInput(
        grades=grades,
        runs=runs,
        pool_tags=["R1", "R2"],
        groups={"R1": "G1", "R2": "G2"},
        measures=parse_measures(["map"]),
    )
    [row] = plan_pools(data, [parse_strategy("depth:1")], [10])
    # Full pool (depth 1): {a} and {z, y}. Without G2: {a} and {z}: topic 1 is unchanged.
    with_all = evaluate_measures(runs["R2"], {"1": {"a": 1}, "2": {"z": 0, "y": 1}}, ["map"])
    without = evaluate_measures(runs["R2"], {"1": {"a": 1}, "2": {"z": 0}}, ["map"])
    # R2: topic 1 AP 1; topic 2: y at rank 1 of one relevant -> 1, then 0 without G2.
    assert with_all.measures["map"] == pytest.approx(1.0)
    assert without.measures["map"] == pytest.approx(0.5)
    drop = row.max_group_drop["map"]
    assert drop["group"] == "G2"
    assert drop["drop"] == pytest.approx(with_all.measures["map"] - without.measures["map"])


def test_tau_is_undefined_when_every_run_ties_on_what_was_judged() -> None:
    """Both runs put the non-relevant b first: a one-judgment budget judges only b, so every
    run scores 0 on the reduced qrels. The runs are judged but nothing orders them: tau is
    undefined (null, a dash), not 0.000 ("no agreement")."""
    import json

    from evaluation.core.planner_report import render_csv, render_json, render_table

    runs = {"R1": {"1": {"b": 3.0, "a": 2.0}}, "R2": {"1": {"b": 3.0, "c": 2.0, "a": 1.0}}}
    data = PlannerInput(
        grades=GRADES,
        runs=runs,
        pool_tags=["R1", "R2"],
        groups={"R1": "G1", "R2": "G2"},
        measures=parse_measures(["map"]),
    )
    tied, ordered = plan_pools(data, [parse_strategy("rrf")], [1, 3])
    assert (tied.judgments, tied.relevant) == (1, 0)
    assert tied.tau == {"map": None}
    assert tied.tau_ap == {"map": None}
    # Three judgments buy b, a, c (rrf weights 2/61, 1/62 + 1/63, 1/62): R1's AP (a at rank
    # 2 of 2 relevant) 1/4 is below R2's (c at 2, a at 3) (1/2 + 2/3) / 2 on both qrels: tau 1.
    assert ordered.tau["map"] == 1.0
    assert json.loads(render_json([tied]))[0]["tau"] == {"map": None}
    line = render_table([tied]).splitlines()[1].split()
    assert line[5:8] == ["map", "—", "—"]
    assert render_csv([tied]).splitlines()[1].split(",")[6:8] == ["", ""]


def test_condensed_runs_keep_only_judged_documents_in_their_own_order() -> None:
    data = condensed(planner_input())
    # R2 retrieved c, d, a: d was never judged, so R2 is c, a, ranks 1 and 2.
    assert list(data.runs["R2"]["1"]) == ["c", "a"]
    assert list(data.runs["R1"]["1"]) == ["a", "b", "c"]
    assert list(data.runs["R3"]["1"]) == ["b", "a"]
    # A topic whose documents no run had judged leaves that run, as if it had not answered.
    lone = replace(planner_input(), runs={"R1": {"1": {"z": 1.0}}, "R2": {}, "R3": {}})
    assert condensed(lone).runs["R1"] == {}
    # The input itself is untouched: the plain replay still sees d.
    assert "d" in planner_input().runs["R2"]["1"]


def test_condensed_depth_row_matches_hand_computation_when_judged_only() -> None:
    """Condensed, R1 is a, b, c and R2 is c, a: depth 2 pools {a, b, c}, which fits a
    budget of 3, where the runs as submitted afford depth 1 only ({a, c}; depth 2 adds the
    unjudged d). Every pooled document is judged, so all of the budget buys judgments."""
    [plain] = plan_pools(planner_input(), [parse_strategy("depth")], [3])
    [row] = plan_pools(condensed(planner_input()), [parse_strategy("depth")], [3])
    assert (plain.judgments, plain.relevant) == (2, 2)
    assert (row.judgments, row.relevant, row.relevant_share) == (3, 2, 1.0)
    # map on the full qrels, condensed: R2 has c and a at 1 and 2, AP 1; R1 a at 1 and c at
    # 3, (1 + 2/3) / 2 = 5/6; R3 a at 2 of 2 relevant, (1/2) / 2 = 1/4. The pool judges all
    # of a, b, c, so the reduced qrels rank them alike: tau 1. P_1: R1 and R2 1, R3 0.
    full = {"R1": 5 / 6, "R2": 1.0, "R3": 0.25}
    assert row.tau == {"P_1": pytest.approx(1.0), "map": pytest.approx(1.0)}
    for tag, expected in full.items():
        scores = evaluate_measures(condensed(planner_input()).runs[tag], GRADES, ["map"]).measures
        assert scores["map"] == pytest.approx(expected), tag
    # Leave-one-group-out: without G1 the pool is R2's {c, a} (depth 2 of 2), without G2
    # R1's {a, b, c} (depth 3): each group's run keeps every relevant document it ranked,
    # and b, judged only without G2, is not relevant: no run loses anything.
    assert row.max_group_drop["map"] == {"drop": 0.0, "group": None}


def test_rows_are_the_same_whatever_the_number_of_workers() -> None:
    data = replace(planner_input(), pool_tags=["R1", "R2", "R3"])
    strategies = [parse_strategy(s) for s in ("depth", "rrf", "mm-ns", "hybrid:1", "mtf")]
    alone = [r.as_dict() for r in plan_pools(data, strategies, [1, 2, 4])]
    assert [r.as_dict() for r in plan_pools(data, strategies, [1, 2, 4], workers=3)] == alone
    assert [r["strategy"] for r in alone[::3]] == [
        "depth",
        "rrf:60",
        "mm-ns:0.5",
        "hybrid:1",
        "mtf",
    ]
