"""Depth-k pooling to a budget: the existing answer-pool rule, with k chosen by the budget.

The pool of depth k is ``pooling.core.algorithms.answer.answer_pool`` over every run's first
k documents (the same rule ``build_pools`` applies). With a per-topic budget each topic gets
the largest k whose pool fits its budget; with a task budget every topic gets the same k, the
largest whose pools together fit: depth-k spends evenly, which is what it is compared for.
``max_depth`` caps k (``depth:10`` is depth 10, or less when 10 does not fit). Judging order:
by the best rank at which any run retrieved the document, then docno.
"""

from __future__ import annotations

from pooling.core.algorithms.answer import answer_pool
from pooling.core.algorithms.strategies.common import Budget, Pool, Ranked, TopicRuns, longest


def depth_topic_pool(runs: TopicRuns, depth: int) -> list[str]:
    """One topic's depth-``depth`` pool in judging order (best rank first)."""
    tags = sorted(runs)
    rows = (
        (number, [(rank, 0.0, doc) for rank, doc in enumerate(runs[tag][:depth], 1)], depth)
        for number, tag in enumerate(tags)
    )
    pooled = answer_pool(rows)
    return sorted(pooled, key=lambda doc: (min(pooled[doc].values()), doc))


def _fitting_depth(topics: list[TopicRuns], limit: int, cap: int) -> int:
    """The largest k <= cap whose pools over ``topics`` hold at most ``limit`` documents.

    Grows k one rank at a time, so the cost follows the depth reached, not the runs' length."""
    seen: list[set[str]] = [set() for _ in topics]
    lists = [list(runs.values()) for runs in topics]
    total = 0
    for k in range(cap):
        for found, runs in zip(seen, lists, strict=True):
            before = len(found)
            found.update(docs[k] for docs in runs if k < len(docs))
            total += len(found) - before
        if total > limit:
            return k
    return cap


def depth_pool(ranked: Ranked, budget: Budget, max_depth: int | None = None) -> Pool:
    """Depth-k pools of every topic, k as large as the budget allows (see the module doc)."""
    cap = {t: min(longest(runs), max_depth or longest(runs)) for t, runs in ranked.items()}
    if budget.per_topic is not None:
        depths = {t: _fitting_depth([runs], budget.per_topic, cap[t]) for t, runs in ranked.items()}
    else:
        top = max(cap.values(), default=0)
        k = _fitting_depth(list(ranked.values()), budget.total or 0, top)
        depths = dict.fromkeys(ranked, k)
    return {t: depth_topic_pool(runs, depths[t]) for t, runs in ranked.items()}
