"""Static pools to a budget: the top documents by a fusion of the pooled runs' rankings.

Every run votes for each of its documents with a weight that falls with the rank; a
document's fused weight is the sum of its votes; the pool is the documents of highest fused
weight, judged in that order (ties: docno ascending). Two weightings:

- reciprocal rank fusion, weight 1 / (k + rank) with k = 60 by default (Cormack, Clarke and
  Buettcher, SIGIR 2009, §2: "k = 60 was fixed during a pilot investigation");
- rank-biased precision, weight (1 - p) * p^(rank - 1) (Moffat and Zobel, TOIS 2008, §4), so
  a run's weights over all ranks sum to at most 1; persistence p = 0.9 by default. With 0.8
  Moffat and Zobel's searcher looks at five documents on average; a pool is not a searcher: at
  0.9 a run's weight reaches twice as deep (1 / (1 - p) = 10 ranks), so two runs ranking a
  document fifth outweigh one ranking another first (at 0.8 it takes three), the consensus
  RRF's k = 60 also rewards. On
  TREC-COVID round 1, as submitted and condensed (docs/pooling.md), 0.9 found more relevant
  documents than 0.8 at 10%, 20% and 40% of the judgments, ranked the runs better (Kendall's
  tau) and left a group out of the pool with smaller drops at each; 0.95 was about as good
  (better at 40%, worse at 10%), 0.7 worse.

A per-topic budget takes each topic's top N. A task budget takes the top N (topic, document)
pairs by fused weight over all topics at once: a topic on whose documents the runs agree
(high fused weights, so likely relevant) gets more judgments than one where they scatter.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import islice

import numpy as np

from pooling.core.algorithms.strategies.common import (
    Budget,
    Order,
    Pool,
    Ranked,
    TopicRuns,
    pool_of,
)

RRF_K = 60.0
RBP_P = 0.9
# Ranks weighted: enough for any budget a planner tries (a run of 1,000 rows is whole).
Weight = Callable[[int], float]


def rrf_weight(k: float = RRF_K) -> Weight:
    if k < 0:
        raise ValueError(f"the RRF constant k must be >= 0, not {k}")
    return lambda rank: 1.0 / (k + rank)


def rbp_weight(p: float = RBP_P) -> Weight:
    if not 0 < p < 1:
        raise ValueError(f"the RBP persistence p must be between 0 and 1, not {p}")
    return lambda rank: (1 - p) * p ** (rank - 1)


def fused_weights(runs: TopicRuns, weight: Weight) -> dict[str, float]:
    """docno -> the sum of its weights over the runs (one topic)."""
    depth = max((len(docs) for docs in runs.values()), default=0)
    table = [weight(rank) for rank in range(1, depth + 1)]
    fused: dict[str, float] = {}
    get = fused.get
    for docs in runs.values():
        for w, doc in zip(table, docs, strict=False):
            fused[doc] = get(doc, 0.0) + w
    return fused


def _top(weights: Iterable[tuple[float, str, str]], n: int) -> list[tuple[float, str, str]]:
    # Highest weight first; equal weights by topic, then docno, ascending.
    return heapq.nsmallest(n, ((-w, t, d) for w, t, d in weights))


def fused_pool(ranked: Ranked, budget: Budget, weight: Weight) -> Pool:
    """The pool of the highest fused weights within the budget (see the module doc)."""
    fused = {t: fused_weights(runs, weight) for t, runs in ranked.items()}
    return pool_of(fused_order(fused, budget), ranked)


def fused_order(fused: Mapping[str, Mapping[str, float]], budget: Budget) -> Order:
    """(topic, docno) by fused weight within the budget (topic -> docno -> weight)."""
    if budget.per_topic is not None:
        order: Order = []
        for t in sorted(fused):
            top = _top(((w, t, d) for d, w in fused[t].items()), budget.per_topic)
            order.extend((t, d) for _w, t, d in top)
        return order
    every = ((w, t, d) for t, weights in fused.items() for d, w in weights.items())
    return [(t, d) for _w, t, d in _top(every, budget.total or 0)]


def retrieved_by(runs: TopicRuns) -> dict[str, int]:
    """docno -> how many of the runs retrieved it (one topic)."""
    counts: dict[str, int] = {}
    for docs in runs.values():
        for doc in docs:
            counts[doc] = counts.get(doc, 0) + 1
    return counts


def fused_order_without(
    full: Order,
    fused: Mapping[str, Mapping[str, float]],
    counts: Mapping[str, Mapping[str, int]],
    removed: Mapping[str, Iterable[Sequence[str]]],
    weight: Weight,
    total: int,
) -> Order:
    """``fused_order(..., Budget(total=total))`` once the ``removed`` runs are left out.

    ``full`` is the fused order of every (topic, docno) with all runs, ``fused`` their
    weights, ``counts`` how many runs retrieved each (``retrieved_by``), ``removed`` topic ->
    the left-out runs' ranked docnos. Only the removed runs' documents lose weight and the
    others keep their order, so the answer merges the full order (minus those documents)
    with the few of them still heavy enough: the cost follows the removed runs and the
    budget, not every document of every run (leave-one-group-out asks once per group).
    Equal to fusing the remaining runs afresh up to float rounding of the subtracted weights."""
    lowered: dict[str, dict[str, float]] = {}  # topic -> docno -> weight left
    left: dict[str, dict[str, int]] = {}  # topic -> docno -> runs left that retrieved it
    depth = max((len(docs) for lists in removed.values() for docs in lists), default=0)
    table = [weight(rank) for rank in range(1, depth + 1)]
    for topic, lists in removed.items():
        weights, count = fused[topic], counts[topic]
        low = lowered.setdefault(topic, {})
        runs_left = left.setdefault(topic, {})
        for docs in lists:
            for w, doc in zip(table, docs, strict=False):
                low[doc] = low.get(doc, weights[doc]) - w
                runs_left[doc] = runs_left.get(doc, count[doc]) - 1
    none: dict[str, float] = {}
    kept = list(islice(((t, d) for t, d in full if d not in lowered.get(t, none)), total))
    floor = fused[kept[total - 1][0]][kept[total - 1][1]] if len(kept) >= total else -1.0
    # A document no remaining run retrieved is never pooled (its weight is a rounding error).
    rising = [
        (-w, t, d)
        for t, low in lowered.items()
        for d, w in low.items()
        if w >= floor and left[t][d]
    ]
    merged = heapq.merge(((-fused[t][d], t, d) for t, d in kept[:total]), sorted(rising))
    return [(t, d) for _w, t, d in list(merged)[:total]]


class TopicFusion:
    """One topic's runs, fused again and again with some of them left out (a planner leaving
    one group out at a time): each run's documents are held as places in the topic's sorted
    docnos, so a fusion is one array sum per run rather than a dict update per document.

    A document's weight is its votes added one run at a time, the runs in sorted tag order,
    from 0: the same additions, so the same floats, as ``fused_weights`` over the runs in
    that order (how ``adaptive_order`` hands a topic's runs to its strategy)."""

    def __init__(self, runs: TopicRuns, weight: Weight) -> None:
        self.docs = sorted({doc for docs in runs.values() for doc in docs})
        place = {doc: at for at, doc in enumerate(self.docs)}
        self.places = {
            tag: np.fromiter((place[doc] for doc in docs), dtype=np.int64, count=len(docs))
            for tag, docs in runs.items()
        }
        depth = max((len(docs) for docs in runs.values()), default=0)
        self.table = np.array([weight(rank) for rank in range(1, depth + 1)], dtype=np.float64)

    def head(self, tags: Iterable[str], n: int) -> list[str]:
        """The first ``n`` documents by the fused weight of the runs ``tags`` (ties: docno
        ascending), and any tied with the n-th: a prefix of their whole fused order."""
        weights = np.zeros(len(self.docs), dtype=np.float64)
        retrieved = np.zeros(len(self.docs), dtype=bool)
        for tag in sorted(tags):
            places = self.places[tag]
            weights[places] += self.table[: len(places)]  # a run names a document once
            retrieved[places] = True
        found = np.flatnonzero(retrieved)
        if n <= 0 or not len(found):
            return []
        if n < len(found):
            values = weights[found]
            lowest = np.partition(values, len(values) - n)[len(values) - n]  # the n-th largest
            found = found[values >= lowest]
        # Places follow the docnos, so a tie in weight is broken by docno.
        return [self.docs[at] for at in sorted(found.tolist(), key=lambda at: (-weights[at], at))]
