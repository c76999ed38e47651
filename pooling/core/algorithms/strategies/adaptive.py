"""Adaptive strategies: the next document to judge depends on the judgments so far.

Each run of a topic is an arm: pulling it judges the run's first document not yet judged.
``RunPointers`` keeps, per run, the position of that document; when a document is judged,
every run whose next document it was moves past it (and past any others already judged),
and the strategy hears each such step (``TopicStrategy.step``), so a run's statistics cover
exactly its judged prefix. A strategy keeps its arms in a heap keyed by (priority, a random
tie-break drawn once per arm from the injected ``random.Random``), so ties are broken at
random yet the same seed gives the same pool.

Budgets: per topic, each topic is judged on its own until its budget or its runs run out.
For a task budget, topics compete: every next judgment goes to the topic whose best arm has
the highest priority (MTF's priority, the bandit's expected reward), with ties broken by the
arm's random key. A topic whose runs keep finding relevant documents thus keeps getting
judgments; one whose runs stop finding them gives way. (Equal shares per topic, the weak
baseline, are a per-topic budget of total / topics.)
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Sequence

from pooling.core.algorithms.strategies.common import Budget, Judge, Order, Ranked


class RunPointers:
    """Each run's position at its first unjudged document (one topic).

    Only the documents runs point at are indexed (docno -> arms whose next document it is),
    so the cost follows the judgments made, not the length of the runs."""

    def __init__(self, lists: Sequence[Sequence[str]]) -> None:
        self.lists = lists
        self.position = [0] * len(lists)
        self.judged: dict[str, bool] = {}
        self.waiting: dict[str, list[int]] = {}  # docno -> arms whose next document it is
        for arm, docs in enumerate(lists):
            if docs:
                self.waiting.setdefault(docs[0], []).append(arm)

    def next_doc(self, arm: int) -> str | None:
        docs, at = self.lists[arm], self.position[arm]
        return docs[at] if at < len(docs) else None

    def judge(self, doc: str, relevant: bool) -> list[tuple[int, list[bool]]]:
        """Record a judgment; (arm, the judgments it stepped over in rank order) per moved arm."""
        self.judged[doc] = relevant
        moved = []
        for arm in self.waiting.pop(doc, ()):
            docs, at, seen = self.lists[arm], self.position[arm], []
            while at < len(docs) and docs[at] in self.judged:
                seen.append(self.judged[docs[at]])
                at += 1
            self.position[arm] = at
            if at < len(docs):
                self.waiting.setdefault(docs[at], []).append(arm)
            moved.append((arm, seen))
        return moved


class TopicStrategy:
    """An adaptive strategy for one topic: a heap of arms by priority, highest first.

    Subclasses say how an arm's priority starts (``initial``) and changes (``update``)."""

    def __init__(self, lists: Sequence[Sequence[str]], rng: random.Random) -> None:
        self.runs = RunPointers(lists)
        self.tie = [rng.random() for _ in lists]
        self.priority = [self.initial(arm) for arm in range(len(lists))]
        self.heap = [(-self.priority[a], self.tie[a], a) for a in range(len(lists)) if lists[a]]
        heapq.heapify(self.heap)

    def initial(self, arm: int) -> float:
        raise NotImplementedError

    def update(self, arm: int, judged: list[bool], pulled: bool) -> None:
        raise NotImplementedError

    def peek(self) -> tuple[float, float, int] | None:
        """(-priority, tie-break, arm) of the arm to pull next, or None when all are spent."""
        while self.heap:
            negative, tie, arm = self.heap[0]
            if self.runs.next_doc(arm) is None or -negative != self.priority[arm]:
                heapq.heappop(self.heap)  # spent, or a stale entry of a changed priority
                continue
            return negative, tie, arm
        return None

    def step(self, judge: Judge, topic: str) -> str | None:
        """Judge the next document; it, or None when every run is exhausted."""
        best = self.peek()
        if best is None:
            return None
        pulled = best[2]
        doc = self.runs.next_doc(pulled)
        if doc is None:  # cannot happen: peek() drops spent arms
            return None
        for arm, judged in self.runs.judge(doc, judge(topic, doc)):
            self.update(arm, judged, arm == pulled)
            heapq.heappush(self.heap, (-self.priority[arm], self.tie[arm], arm))
        return doc


def adaptive_order(
    ranked: Ranked,
    budget: Budget,
    judge: Judge,
    make: Callable[..., TopicStrategy],
    rng: random.Random,
) -> Order:
    """Replay an adaptive strategy to the budget (see the module doc for task budgets)."""
    topics = sorted(ranked)
    # One RNG draw order for a seed, whatever the budget: same seed, same pool.
    strategies = {t: make([ranked[t][tag] for tag in sorted(ranked[t])], rng) for t in topics}
    order: Order = []
    if budget.per_topic is not None:
        for t in topics:
            for _ in range(budget.per_topic):
                doc = strategies[t].step(judge, t)
                if doc is None:
                    break
                order.append((t, doc))
        return order
    heap = []
    for t in topics:
        best = strategies[t].peek()
        if best is not None:
            heap.append((best[0], best[1], t))
    heapq.heapify(heap)
    while heap and len(order) < (budget.total or 0):
        _, _, t = heapq.heappop(heap)
        doc = strategies[t].step(judge, t)
        if doc is not None:
            order.append((t, doc))
        best = strategies[t].peek()
        if best is not None:
            heapq.heappush(heap, (best[0], best[1], t))
    return order
