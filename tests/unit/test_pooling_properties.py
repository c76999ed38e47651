"""Pooling invariants over generated runs (hypothesis)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from pooling.core.algorithms import (
    FormulaRow,
    answer_pool,
    display_orders,
    formula_pool,
    item_rng,
    select_instances,
    topic_rng,
)
from pooling.core.algorithms.settings import FormulaPolicy

# A run's rows: distinct ranks in file order shuffled, posts drawn from a small range so that
# runs overlap and repeat posts.
answer_rows = st.lists(
    st.tuples(st.integers(1, 60), st.floats(0, 10, allow_nan=False), st.integers(1, 40)),
    max_size=60,
)
answer_runs = st.lists(st.tuples(answer_rows, st.integers(0, 30)), min_size=1, max_size=6)


def first_distinct_posts(rows: list[tuple[int, float, int]], depth: int) -> set[int]:
    """The oracle: sort by (rank, -score, -post) and read distinct posts until depth."""
    seen: list[int] = []
    for _rank, _score, post in sorted(rows, key=lambda r: (r[0], -r[1], -r[2])):
        if post not in seen and len(seen) < depth:
            seen.append(post)
    return set(seen)


@given(answer_runs)
def test_answer_pool_is_exactly_every_runs_first_depth_posts_when_runs_are_arbitrary(
    runs: list[tuple[list[tuple[int, float, int]], int]],
) -> None:
    pool = answer_pool((run_id, rows, depth) for run_id, (rows, depth) in enumerate(runs))
    expected: set[int] = set()
    for run_id, (rows, depth) in enumerate(runs):
        mine = first_distinct_posts(rows, depth)
        expected |= mine
        assert {post for post, by_run in pool.items() if run_id in by_run} == mine
    assert set(pool) == expected


formula_rows = st.lists(
    st.tuples(st.integers(1, 2000), st.sampled_from("abcdefghij")),
    max_size=40,
    unique_by=lambda r: r[0],
).map(
    lambda pairs: [
        FormulaRow(rank, 1.0 / rank, fid, fid // 3, fid // 9, vid)
        for rank, (fid, vid) in enumerate(pairs, start=1)
    ]
)
formula_runs = st.lists(st.tuples(formula_rows, st.integers(1, 8)), min_size=1, max_size=6)


def first_k_visual_ids(rows: list[FormulaRow], k: int) -> set[str]:
    seen: list[str] = []
    for row in rows:
        if row.visual_id not in seen and len(seen) < k:
            seen.append(row.visual_id)
    return set(seen)


@given(formula_runs, st.integers(0, 6), st.integers(0, 2**32), st.sampled_from(["vote", "thread"]))
def test_formula_pool_holds_only_first_k_visual_ids_and_at_most_n_hits_when_runs_vary(
    runs: list[tuple[list[FormulaRow], int]], n: int, seed: int, policy: FormulaPolicy
) -> None:
    pool = formula_pool((run_id, rows, k) for run_id, (rows, k) in enumerate(runs))
    allowed: set[str] = set()
    for rows, k in runs:
        allowed |= first_k_visual_ids(rows, k)
    assert set(pool.items) == allowed
    for visual_id, candidates in pool.candidates.items():
        assert all(c.visual_id == visual_id for c in candidates.values())
        chosen = select_instances(
            list(candidates.values()),
            n,
            policy,
            item_rng(seed, "B.1", visual_id),
        )
        assert len(chosen) <= n
        assert len({c.formula_id for c in chosen}) == len(chosen)
        again = select_instances(
            list(reversed(candidates.values())),
            n,
            policy,
            item_rng(seed, "B.1", visual_id),
        )
        assert [c.formula_id for c in again] == [c.formula_id for c in chosen]


@given(answer_runs, answer_rows, st.integers(0, 30), st.integers(0, 2**32))
@settings(max_examples=200)
def test_rebuild_is_superset_with_same_display_orders_when_a_run_is_added(
    runs: list[tuple[list[tuple[int, float, int]], int]],
    late_rows: list[tuple[int, float, int]],
    late_depth: int,
    seed: int,
) -> None:
    def build(
        all_runs: list[tuple[list[tuple[int, float, int]], int]], existing: dict[str, int]
    ) -> dict[str, int]:
        pool = answer_pool((i, rows, depth) for i, (rows, depth) in enumerate(all_runs))
        keys = [str(post) for post in pool]
        return existing | display_orders(existing, keys, topic_rng(seed, "A.1"))

    before = build(runs, {})
    assert before == build(runs, {})  # same seed, same inputs -> same pool
    assert build(runs, before) == before  # a rebuild with nothing new changes nothing
    after = build([*runs, (late_rows, late_depth)], before)
    assert set(before) <= set(after)
    assert all(after[key] == order for key, order in before.items())
    assert sorted(after.values()) == list(range(1, len(after) + 1))
