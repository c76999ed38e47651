"""Adaptive strategies: the next document to judge depends on the judgments so far.

Each run of a topic is an arm: pulling it judges the run's first document not yet judged.
``RunPointers`` keeps, per run, the position of that document; when a document is judged,
every run whose next document it was moves past it (and past any others already judged),
and the strategy hears each such step (``TopicStrategy.step``), so a run's statistics cover
exactly its judged prefix. A strategy keeps its arms in a heap keyed by (priority, a random
tie-break drawn once per arm from the injected ``random.Random``), so ties are broken at
random yet the same seed gives the same pool.

Budgets: per topic, each topic is judged on its own until its budget or its runs run out.
A task budget is spread over the topics by expected gain, each topic guaranteed a floor
(``allocation``: the rules, and why). Equal shares per topic, the weak baseline, are a
per-topic budget of total / topics.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Sequence

from pooling.core.algorithms.strategies.allocation import TOPIC_GAMMA, TopicTally, running_floor
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

    def next_doc(self) -> str | None:
        """The document to judge next, given the judgments recorded so far."""
        best = self.peek()
        return None if best is None else self.runs.next_doc(best[2])

    def record(self, doc: str, relevant: bool) -> None:
        """A judgment, made in this strategy's order or not (several assessors, a judgment
        made before): the run it was pulled from is the front run if that run's next
        document it is; every run that reaches it steps over it."""
        if doc in self.runs.judged:
            return  # judged already: the first judgment is the one the runs learnt from
        best = self.peek()
        pulled = best[2] if best is not None and self.runs.next_doc(best[2]) == doc else None
        self._learn(doc, relevant, pulled)

    def _learn(self, doc: str, relevant: bool, pulled: int | None) -> None:
        for arm, judged in self.runs.judge(doc, relevant):
            self.update(arm, judged, arm == pulled)
            heapq.heappush(self.heap, (-self.priority[arm], self.tie[arm], arm))

    def step(self, judge: Judge, topic: str) -> str | None:
        """Judge the next document; it, or None when every run is exhausted."""
        best = self.peek()
        if best is None:
            return None
        doc = self.runs.next_doc(best[2])
        if doc is None:  # never: peek skips spent runs
            return None
        # The front run's next document is unjudged (its pointer passed every judged one):
        # it is the pulled run, as ``record`` would find.
        self._learn(doc, judge(topic, doc), best[2])
        return doc


def topic_rng(seed: int, topic: str) -> random.Random:
    """A topic's own tie-breaking RNG: its choices do not depend on the other topics."""
    return random.Random(f"{seed}|{topic}")  # noqa: S311 - tie-breaking, not a secret


def adaptive_order(
    ranked: Ranked,
    budget: Budget,
    judge: Judge,
    make: Callable[[str, list[Sequence[str]], random.Random], TopicStrategy],
    seed: int,
    gamma: float = TOPIC_GAMMA,
) -> Order:
    """Replay an adaptive strategy to the budget (see the module doc for task budgets);
    ``make(topic, its runs' lists in sorted tag order, its RNG)`` is a topic's strategy."""
    topics = sorted(ranked)
    strategies = {
        t: make(t, [ranked[t][tag] for tag in sorted(ranked[t])], topic_rng(seed, t))
        for t in topics
    }
    if budget.total is not None:
        return _spread(strategies, budget.total, judge, topic_rng(seed, "|topics"), gamma)
    order: Order = []
    for t in topics:
        for _ in range(budget.per_topic or 0):
            doc = strategies[t].step(judge, t)
            if doc is None:
                break
            order.append((t, doc))
    return order


def _spread(
    strategies: dict[str, TopicStrategy],
    total: int,
    judge: Judge,
    rng: random.Random,
    gamma: float,
) -> Order:
    """A task budget: every judgment goes to the topic furthest behind the running floor if
    one is, else to the topic of highest expected gain (``allocation``). Nothing here
    depends on ``total`` but when to stop, so a smaller budget buys a prefix of this order."""
    topics = sorted(strategies)
    tie = {t: rng.random() for t in topics}
    tally = {t: TopicTally() for t in topics}  # every topic has an assessor here
    fewest = [(0.0, tie[t], t) for t in topics]  # (judgments, tie, topic): who is behind
    best = [(-0.5, tie[t], t) for t in topics]  # (-expected gain, tie, topic)
    heapq.heapify(fewest)
    heapq.heapify(best)
    order: Order = []
    while len(order) < total:
        floor = running_floor(len(order), len(topics))
        # A topic that cannot take a judgment (its runs exhausted) leaves both orders: its
        # floor and its share go on to the others (``allocation``, "Idle budget").
        t = _top(fewest, lambda key, t: tally[t].takes_budget and key == tally[t].spent)
        if t is None or tally[t].spent >= floor:
            t = _top(best, lambda key, t: tally[t].takes_budget and key == -tally[t].gain)
        if t is None:
            break
        doc = strategies[t].step(judge, t)
        if doc is None:
            tally[t].exhausted = True
            continue
        order.append((t, doc))
        mine = tally[t]
        mine.spent += 1
        mine.hear(strategies[t].runs.judged[doc], gamma)
        heapq.heappush(fewest, (float(mine.spent), tie[t], t))
        heapq.heappush(best, (-mine.gain, tie[t], t))
    return order


def _top(heap: list[tuple[float, float, str]], current: Callable[[float, str], bool]) -> str | None:
    """The topic at the top of a heap whose stale entries (a topic judged since, or gone)
    are dropped as they surface."""
    while heap:
        key, _tie, topic = heap[0]
        if current(key, topic):
            return topic
        heapq.heappop(heap)
    return None
