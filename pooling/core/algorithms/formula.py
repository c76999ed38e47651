"""Formula pools (Task 2): visually distinct formulae, walked to ``k`` per run.

docs/pooling.md: map each row's formula id to its visual id. For each run and topic walk
the ranked list, counting distinct visual ids, until ``k`` have been seen; the rows walked so far
are that run's pooled rows (pool depth = rank of the first instance of the k-th visual id). The
pool is the union of visual ids. For each pooled visual id, its candidate instances are the
pooled rows with that visual id, from every run.
"""

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import pairwise
from typing import NamedTuple


class FormulaRow(NamedTuple):
    """One ranked formula instance of a run, its visual id already looked up."""

    rank: int
    score: float
    formula_id: int
    post_id: int
    thread_id: int
    visual_id: str


@dataclass(slots=True)
class Candidate:
    """A formula instance (in its post) that some run pooled, with each run's rank of it."""

    formula_id: int
    post_id: int
    thread_id: int
    visual_id: str
    ranks: dict[int, int] = field(default_factory=dict)  # run id -> rank

    @property
    def vote(self) -> Fraction:
        """ARQMath-2/3: the sum over runs of 1/rank (exact, so equal votes compare equal)."""
        ranks = self.ranks.values()
        common = math.lcm(*ranks)  # one normalization instead of one per run
        return Fraction(sum(common // rank for rank in ranks), common)


@dataclass(slots=True)
class RunFormulaPool:
    """A run's pooled rows for one topic and the depth it was pooled to."""

    rows: list[FormulaRow]
    depth: int  # rank of the first instance of the k-th visual id (or of the last row)


@dataclass(slots=True)
class FormulaPool:
    """One topic's formula pool."""

    # visual id -> {run id: rank of that run's first instance of the visual id}
    items: dict[str, dict[int, int]] = field(default_factory=dict)
    # visual id -> formula id -> candidate instance
    candidates: dict[str, dict[int, Candidate]] = field(default_factory=dict)
    depths: dict[int, int] = field(default_factory=dict)  # run id -> pool depth


def _ranking_key(row: FormulaRow) -> tuple[int, float, int]:
    return (row.rank, -row.score, -row.formula_id)


def _in_rank_order(rows: Sequence[FormulaRow]) -> Sequence[FormulaRow]:
    for previous, current in pairwise(rows):
        if previous.rank >= current.rank:
            return sorted(rows, key=_ranking_key)
    return rows  # already strictly increasing ranks: the usual case, no sort needed


def pooled_formula_rows(rows: Sequence[FormulaRow], k: int) -> RunFormulaPool:
    """Walk ``rows`` in rank order (ties: score desc, formula id desc) until ``k`` visual ids.

    The walk stops at the first instance of the k-th distinct visual id, which is included;
    instances of earlier visual ids met on the way are all pooled. A repeated formula id counts
    once, at its first row. A run with fewer than ``k`` visual ids is pooled whole.
    """
    pooled: list[FormulaRow] = []
    if k <= 0:
        return RunFormulaPool(pooled, 0)
    seen_visual: set[str] = set()
    seen_formula: set[int] = set()
    for row in _in_rank_order(rows):
        if row.formula_id in seen_formula:
            continue
        seen_formula.add(row.formula_id)
        pooled.append(row)
        if row.visual_id not in seen_visual:
            seen_visual.add(row.visual_id)
            if len(seen_visual) == k:
                break
    return RunFormulaPool(pooled, pooled[-1].rank if pooled else 0)


def formula_pool(runs: Iterable[tuple[int, Sequence[FormulaRow], int]]) -> FormulaPool:
    """The union of every run's pooled visual ids for one topic, with candidate instances.

    ``runs`` gives (run id, the run's rows for the topic, the run's k).
    """
    pool = FormulaPool()
    for run_id, rows, k in runs:
        run_pool = pooled_formula_rows(rows, k)
        pool.depths[run_id] = run_pool.depth
        for row in run_pool.rows:
            contributions = pool.items.setdefault(row.visual_id, {})
            contributions.setdefault(run_id, row.rank)  # rows are walked best rank first
            instances = pool.candidates.setdefault(row.visual_id, {})
            candidate = instances.get(row.formula_id)
            if candidate is None:
                candidate = Candidate(row.formula_id, row.post_id, row.thread_id, row.visual_id)
                instances[row.formula_id] = candidate
            candidate.ranks[run_id] = row.rank
    return pool
