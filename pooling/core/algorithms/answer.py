"""Answer pools (Task 1) and document pools: each run's first ``depth`` distinct documents,
and their union.

docs/pooling.md: for each topic take each run's rows in rank order (ties: score
descending, then document id descending — trec_eval's order), keep its first ``depth`` distinct
posts; the pool is the union; every (run, rank) contribution is remembered. Document tasks
follow the same rules with docnos (strings) for post ids; trec_eval compares
docnos as byte strings, which for UTF-8 text is Python's order of ``str``.
"""

from collections.abc import Iterable, Sequence
from itertools import pairwise
from operator import itemgetter
from typing import TypeVar

# A document id: an answer post id (int) or a docno (str).
Doc = TypeVar("Doc", int, str)
# (rank, score, post id) — plain tuples: pooling a whole task touches millions of them.
AnswerRow = tuple[int, float, int]
# (rank, score, docno) — a document task's row.
DocumentRow = tuple[int, float, str]
# pooled key -> {run id: the rank at which that run first retrieved it}
Contributions = dict[Doc, dict[int, int]]

_DOC = itemgetter(2)


def _rank_then_score(row: tuple[int, float, object]) -> tuple[int, float]:
    return (row[0], -row[1])


def in_rank_order(rows: Sequence[tuple[int, float, Doc]]) -> Sequence[tuple[int, float, Doc]]:
    """``rows`` by rank; equal ranks by score descending, then document id descending."""
    for previous, current in pairwise(rows):
        if previous[0] >= current[0]:
            # Two stable sorts: by id descending, then by (rank, -score). Ids may be strings,
            # which cannot be negated into one key.
            return sorted(sorted(rows, key=_DOC, reverse=True), key=_rank_then_score)
    return rows  # already strictly increasing ranks: the usual case, no sort needed


def pooled_posts(rows: Sequence[tuple[int, float, Doc]], depth: int) -> list[tuple[Doc, int]]:
    """The run's first ``depth`` distinct posts (or docnos) as (id, rank of its first row).

    A post repeated in the run counts once, at its first (best) position; a run with fewer
    than ``depth`` distinct posts contributes all of them.
    """
    seen: set[Doc] = set()
    pooled: list[tuple[Doc, int]] = []
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


def answer_pool(
    runs: Iterable[tuple[int, Sequence[tuple[int, float, Doc]], int]],
) -> Contributions[Doc]:
    """The union of every run's pooled posts (or docnos) for one topic, annotated with
    (run, rank).

    ``runs`` gives (run id, the run's rows for the topic, the run's depth).
    """
    pool: Contributions[Doc] = {}
    for run_id, rows, depth in runs:
        for post_id, rank in pooled_posts(rows, depth):
            contributions = pool.get(post_id)
            if contributions is None:
                pool[post_id] = {run_id: rank}
            else:
                contributions[run_id] = rank
    return pool
