"""Formula pools (Task 2) and the choice of instances: hand-worked examples."""

import random
from fractions import Fraction

import pytest

from pooling.core.algorithms import (
    Candidate,
    FormulaRow,
    formula_pool,
    pooled_formula_rows,
    select_by_thread,
    select_by_vote,
    select_instances,
)
from pooling.core.algorithms.settings import FormulaPolicy


def rows_of(visual_ids: str, first_formula: int = 1) -> list[FormulaRow]:
    """Rows ranked 1.. with one formula each; post = formula id, thread = formula id // 10."""
    return [
        FormulaRow(rank, 1.0 / rank, fid, fid, fid // 10, vid)
        for rank, (fid, vid) in enumerate(
            zip(range(first_formula, first_formula + len(visual_ids)), visual_ids, strict=True),
            start=1,
        )
    ]


@pytest.mark.parametrize(
    ("visual_ids", "k", "pooled_ranks", "depth"),
    [
        # several instances of "a" and one of "b" come before the 3rd visual id "c"
        ("aabacbd", 3, [1, 2, 3, 4, 5], 5),
        ("aabacbd", 1, [1], 1),
        ("aabacbd", 2, [1, 2, 3], 3),
        ("aabacbd", 4, [1, 2, 3, 4, 5, 6, 7], 7),
        # a run with fewer than k visual ids is pooled whole
        ("aab", 25, [1, 2, 3], 3),
        ("", 25, [], 0),
    ],
)
def test_walk_stops_at_first_instance_of_kth_visual_id_when_visual_ids_repeat(
    visual_ids: str, k: int, pooled_ranks: list[int], depth: int
) -> None:
    run_pool = pooled_formula_rows(rows_of(visual_ids), k)
    assert [row.rank for row in run_pool.rows] == pooled_ranks
    assert run_pool.depth == depth


def test_walk_counts_a_repeated_formula_id_once_when_run_lists_it_twice() -> None:
    rows = [
        FormulaRow(1, 0.9, 5, 50, 1, "a"),
        FormulaRow(2, 0.8, 5, 50, 1, "a"),
        FormulaRow(3, 0.7, 6, 60, 1, "b"),
    ]
    assert [row.rank for row in pooled_formula_rows(rows, 2).rows] == [1, 3]


def test_walk_orders_equal_ranks_by_score_then_formula_id_when_ranks_tie() -> None:
    rows = [
        FormulaRow(1, 0.5, 5, 50, 1, "a"),
        FormulaRow(1, 0.5, 9, 90, 1, "b"),
        FormulaRow(1, 0.7, 3, 30, 1, "c"),
    ]
    assert [row.formula_id for row in pooled_formula_rows(rows, 2).rows] == [3, 9]


def test_formula_pool_unions_visual_ids_and_gathers_candidates_from_every_run() -> None:
    run_1 = [FormulaRow(1, 1.0, 11, 110, 1, "x"), FormulaRow(2, 0.9, 12, 120, 1, "y")]
    run_2 = [FormulaRow(1, 1.0, 12, 120, 1, "y"), FormulaRow(2, 0.9, 13, 130, 2, "x")]
    run_2 += [FormulaRow(3, 0.8, 14, 140, 2, "z")]
    pool = formula_pool([(1, run_1, 2), (2, run_2, 2)])
    assert pool.items == {"x": {1: 1, 2: 2}, "y": {1: 2, 2: 1}}
    assert sorted(pool.candidates["x"]) == [11, 13]  # z was past run 2's k
    assert pool.candidates["y"][12].ranks == {1: 2, 2: 1}
    assert pool.candidates["y"][12].vote == Fraction(3, 2)
    assert pool.depths == {1: 2, 2: 2}


def candidate(formula_id: int, ranks: dict[int, int], thread: int = 0, post: int = 0) -> Candidate:
    return Candidate(formula_id, post or formula_id, thread, "v", ranks)


def test_vote_sums_reciprocal_ranks_exactly_when_sums_are_equal() -> None:
    # 1/2 + 1/6 == 1/3 + 1/3 exactly; in floating point they differ in the last bit.
    assert candidate(1, {1: 2, 2: 6}).vote == candidate(2, {1: 3, 2: 3}).vote


def test_vote_chooses_highest_votes_and_breaks_ties_by_seed_when_votes_tie() -> None:
    top = candidate(1, {1: 1, 2: 1})  # 2
    tied_a = candidate(2, {1: 2, 2: 6})  # 2/3
    tied_b = candidate(3, {1: 3, 2: 3})  # 2/3
    low = candidate(4, {1: 9})  # 1/9
    cands = [low, tied_b, top, tied_a]
    seconds = set()
    for seed in range(40):
        chosen = select_by_vote(cands, 2, random.Random(seed))
        assert chosen[0] is top
        seconds.add(chosen[1].formula_id)
        again = select_by_vote(list(reversed(cands)), 2, random.Random(seed))
        assert [c.formula_id for c in again] == [c.formula_id for c in chosen]
    assert seconds == {2, 3}  # the seed decides, and both outcomes occur


@pytest.mark.parametrize(("n", "expected"), [(10, [1, 2, 3]), (3, [1, 2, 3]), (2, [1, 2]), (0, [])])
def test_vote_keeps_at_most_n_best_first_when_n_differs_from_candidates(
    n: int, expected: list[int]
) -> None:
    cands = [candidate(3, {1: 5}), candidate(1, {1: 1, 2: 2}), candidate(2, {1: 2})]
    chosen = select_by_vote(cands, n, random.Random(0))
    assert [c.formula_id for c in chosen] == expected


def test_thread_policy_takes_every_answer_when_at_most_n() -> None:
    cands = [candidate(i, {1: i}, thread=1) for i in range(1, 4)]
    chosen = select_by_thread(cands, 5, random.Random(0))
    assert sorted(c.formula_id for c in chosen) == [1, 2, 3]


def test_thread_policy_judges_an_answer_once_when_it_holds_several_instances() -> None:
    cands = [candidate(1, {1: 4}, thread=1, post=77), candidate(2, {1: 1}, thread=1, post=77)]
    assert [c.formula_id for c in select_by_thread(cands, 5, random.Random(0))] == [2]


def test_thread_policy_covers_every_thread_first_when_threads_at_most_n() -> None:
    # 3 threads, 8 answers, N = 5: one answer of each thread, then 2 random others.
    cands = [candidate(i, {1: i}, thread=i % 3) for i in range(1, 9)]
    outcomes = set()
    for seed in range(30):
        chosen = select_by_thread(cands, 5, random.Random(seed))
        assert len(chosen) == 5
        assert len({c.formula_id for c in chosen}) == 5
        assert {c.thread_id for c in chosen[:3]} == {0, 1, 2}
        outcomes.add(frozenset(c.formula_id for c in chosen))
    assert len(outcomes) > 1  # random, not fixed


def test_thread_policy_takes_n_threads_one_answer_each_when_threads_exceed_n() -> None:
    # 7 threads with 2 answers each, N = 5
    cands = [candidate(i, {1: i}, thread=i // 2) for i in range(14)]
    for seed in range(30):
        chosen = select_by_thread(cands, 5, random.Random(seed))
        assert len(chosen) == 5
        assert len({c.thread_id for c in chosen}) == 5
    first = select_by_thread(cands, 5, random.Random(3))
    assert first == select_by_thread(list(reversed(cands)), 5, random.Random(3))


@pytest.mark.parametrize("policy", ["vote", "thread"])
def test_kept_instances_stay_and_count_towards_n_when_pool_is_rebuilt(
    policy: FormulaPolicy,
) -> None:
    cands = [candidate(i, {1: i}, thread=i) for i in range(1, 9)]
    chosen = select_instances(cands, 3, policy, random.Random(0), keep={7, 8})
    assert [c.formula_id for c in chosen[:2]] == [7, 8]
    assert len(chosen) == 3
    if policy == "vote":
        assert chosen[2].formula_id == 1
