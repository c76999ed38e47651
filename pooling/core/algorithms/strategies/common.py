"""What every budgeted strategy shares: the runs of a topic, a budget, and the pool it buys.

A topic's runs are plain ranked lists of docnos, each in trec_eval's order (score descending,
then docno descending) with repeats removed, keyed by run tag. A pool is, per topic, the
docnos to judge in the order the strategy would have them judged. A budget is a number of
judgments either per topic or for the whole task (the sum over topics); how a task budget is
spread over topics is each strategy's own rule (docs/pooling.md, "Budgeted strategies").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

# topic -> run tag -> docnos in rank order (distinct)
TopicRuns = Mapping[str, Sequence[str]]
Ranked = Mapping[str, TopicRuns]
# topic -> docnos in judging order
Pool = dict[str, list[str]]
# (topic, docno) pairs in the order they are judged
Order = list[tuple[str, str]]
# (topic, docno) -> relevant?  The oracle an adaptive strategy learns from as it judges.
Judge = Callable[[str, str], bool]


class StrategyError(ValueError):
    """A strategy name, parameter or budget that cannot be used; the message says which."""


@dataclass(frozen=True, slots=True)
class Budget:
    """A number of judgments: ``per_topic`` for each topic, or ``total`` over all topics."""

    total: int | None = None
    per_topic: int | None = None

    def __post_init__(self) -> None:
        if (self.total is None) == (self.per_topic is None):
            raise StrategyError("a budget is either per topic or a total, not both or neither")
        value = self.total if self.total is not None else self.per_topic
        if value is None or value < 0:
            raise StrategyError(f"a budget must be a number of judgments >= 0, not {value}")


def judgments(pool: Pool) -> int:
    return sum(len(docs) for docs in pool.values())


def pool_size(runs: TopicRuns, depth: int) -> int:
    """How many distinct docnos the runs' first ``depth`` documents hold."""
    return len({doc for docs in runs.values() for doc in docs[:depth]})


def longest(runs: TopicRuns) -> int:
    return max((len(docs) for docs in runs.values()), default=0)


def pool_of(order: Order, topics: Iterable[str]) -> Pool:
    """The pool a judging order makes (every topic present, perhaps empty)."""
    pool: Pool = {t: [] for t in topics}
    for topic, doc in order:
        pool[topic].append(doc)
    return pool
