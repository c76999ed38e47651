"""Answer pools (Task 1): each run's first ``depth`` distinct posts, and their union.

DESIGN.md "Answer pools": for each topic take each run's rows in rank order (ties: score
descending, then document id descending — trec_eval's order), keep its first ``depth`` distinct
posts; the pool is the union; every (run, rank) contribution is remembered.
"""

from collections.abc import Iterable, Sequence
from itertools import pairwise

# (rank, score, post id) — plain tuples: pooling a whole task touches millions of them.
AnswerRow = tuple[int, float, int]
# pooled key -> {run id: the rank at which that run first retrieved it}
Contributions = dict[int, dict[int, int]]


def _ranking_key(row: tuple[int, float, int]) -> tuple[int, float, int]:
    return (row[0], -row[1], -row[2])


def in_rank_order(rows: Sequence[AnswerRow]) -> Sequence[AnswerRow]:
    """``rows`` by rank; equal ranks by score descending, then document id descending."""
    for previous, current in pairwise(rows):
        if previous[0] >= current[0]:
            return sorted(rows, key=_ranking_key)
    return rows  # already strictly increasing ranks: the usual case, no sort needed


def pooled_posts(rows: Sequence[AnswerRow], depth: int) -> list[tuple[int, int]]:
    """The run's first ``depth`` distinct posts as (post id, rank of its first row).

    A post repeated in the run counts once, at its first (best) position; a run with fewer
    than ``depth`` distinct posts contributes all of them.
    """
    seen: set[int] = set()
    pooled: list[tuple[int, int]] = []
    if depth <= 0:
        return pooled
    for rank, _score, post_id in in_rank_order(rows):
        if post_id in seen:
            continue
        seen.add(post_id)
        pooled.append((post_id, rank))
        if len(pooled) == depth:
            break
    return pooled


def answer_pool(runs: Iterable[tuple[int, Sequence[AnswerRow], int]]) -> Contributions:
    """The union of every run's pooled posts for one topic, annotated with (run, rank).

    ``runs`` gives (run id, the run's rows for the topic, the run's depth).
    """
    pool: Contributions = {}
    for run_id, rows, depth in runs:
        for post_id, rank in pooled_posts(rows, depth):
            contributions = pool.get(post_id)
            if contributions is None:
                pool[post_id] = {run_id: rank}
            else:
                contributions[run_id] = rank
    return pool
