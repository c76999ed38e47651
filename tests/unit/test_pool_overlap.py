"""Pooled, unique and shared items of runs and teams, counted on bit sets."""

from itertools import combinations

from hypothesis import given
from hypothesis import strategies as st

from pooling.core.algorithms.overlap import pool_overlap


def test_counts_match_the_hand_worked_pool_when_two_teams_share_items() -> None:
    # Team 1: run 10 {a b c}, run 11 {c d}; team 2: run 20 {d e}. Items as ids 1..5 (a..e).
    items = {10: [1, 2, 3], 11: [3, 4], 20: [4, 5]}
    found = pool_overlap(items, {10: 1, 11: 1, 20: 2})

    assert found.pooled == {10: 3, 11: 2, 20: 2}
    assert found.unique == {10: 2, 11: 0, 20: 1}  # c is shared by 10 and 11, d by 11 and 20
    assert found.team_unique == {1: 3, 2: 1}  # a b c for team 1; e for team 2 (d is shared)
    assert found.shared == {(10, 11): 1, (11, 20): 1}  # 10 and 20 share nothing: left out


def test_nothing_is_counted_when_no_run_pooled_an_item() -> None:
    found = pool_overlap({7: []}, {7: 1})

    assert (found.pooled, found.unique, found.team_unique, found.shared) == (
        {7: 0},
        {7: 0},
        {1: 0},
        {},
    )


runs = st.dictionaries(
    st.integers(1, 12), st.sets(st.integers(0, 300), max_size=40), min_size=1, max_size=8
)


@given(runs, st.integers(1, 4))
def test_counts_equal_item_by_item_counting_when_runs_are_random(
    items: dict[int, set[int]], teams: int
) -> None:
    team_of = {run: run % teams for run in items}
    found = pool_overlap(items, team_of)

    holders = {
        item: {r for r in items if item in items[r]} for item in set().union(*items.values())
    }
    for run, mine in items.items():
        assert found.pooled[run] == len(mine)
        assert found.unique[run] == sum(holders[i] == {run} for i in mine)
    for a, b in combinations(sorted(items), 2):
        assert found.shared.get((a, b), 0) == len(items[a] & items[b])
    for team in set(team_of.values()):
        alone = [i for i, held in holders.items() if {team_of[r] for r in held} == {team}]
        assert found.team_unique[team] == len(alone)
