"""A budgeted pool in the app: the strategy an organizer chose, and the order it judges in.

A ``PoolStrategy`` is what a pool build records (strategy, budget, seed) and what judging in
priority order reads back. Static strategies (depth, rrf, rbp) give their whole judging order
at build time (``static_order``); adaptive ones (mtf, mm, mm-ns, hybrid) give one document at
a time, from the judgments of the topic so far (``next_to_judge``), so the app asks them each
time an assessor needs a next item. The runs are the same ranked lists the planner replays
(``ranked_docnos``: trec_eval's order), so a topic judged in the app follows, judgment for
judgment, the order the planner's replay of that topic and seed would take.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pooling.core.algorithms.strategies import (
    Budget,
    Order,
    Ranked,
    Strategy,
    StrategyError,
    TopicRuns,
    build_pool,
    judging_order,
    next_to_judge,
    parse_strategy,
)

BUDGET_SCOPES = ("topic", "task")
STRATEGY_HELP = "NAME or NAME:PARAM, e.g. mm-ns, mm-ns:0.8, hybrid:20, rrf:60, rbp:0.9, depth:10"
MAX_BUDGET = 10_000_000  # a bound on a typed number, far above any campaign's judgments


@dataclass(frozen=True, slots=True)
class PoolStrategy:
    """A strategy with its budget (per topic or for the whole task) and seed."""

    strategy: Strategy
    budget: int
    scope: str = "topic"
    seed: int = 0

    def __post_init__(self) -> None:
        if self.scope not in BUDGET_SCOPES:
            raise StrategyError(f"a budget is per 'topic' or per 'task', not {self.scope!r}")
        if self.budget < 1:
            raise StrategyError(f"a budget must be at least 1 judgment, not {self.budget}")

    @property
    def label(self) -> str:
        return self.strategy.label

    @property
    def adaptive(self) -> bool:
        return self.strategy.adaptive

    @property
    def core_budget(self) -> Budget:
        if self.scope == "topic":
            return Budget(per_topic=self.budget)
        return Budget(total=self.budget)

    def as_dict(self) -> dict[str, Any]:
        """What a build records (and a fingerprint hashes)."""
        return {
            "name": self.label,
            "budget": self.budget,
            "scope": self.scope,
            "seed": self.seed,
            "adaptive": self.adaptive,
        }

    def describe(self) -> str:
        per = "per topic" if self.scope == "topic" else "for the task"
        return f"{self.label}, {self.budget} judgments {per}, seed {self.seed}"


def pool_strategy(text: str, budget: int, scope: str = "topic", seed: int = 0) -> PoolStrategy:
    """``NAME[:PARAM]`` with its budget; a StrategyError names what is wrong."""
    return PoolStrategy(parse_strategy(text), budget, scope, seed)


def pool_strategy_from(recorded: Mapping[str, Any] | None) -> PoolStrategy | None:
    """The strategy ``as_dict`` recorded, or None (a pool built by the task's own rules)."""
    if not recorded:
        return None
    return pool_strategy(
        str(recorded["name"]),
        int(recorded["budget"]),
        str(recorded["scope"]),
        int(recorded["seed"]),
    )


def ranked_docnos(rows: Iterable[tuple[float, str]]) -> list[str]:
    """A run's docnos for one topic from its (score, docno) rows, in trec_eval's order (score
    descending, then docno descending); a repeated docno counts once, at its first place."""
    seen: set[str] = set()
    ordered = []
    for _score, docno in sorted(rows, reverse=True):
        if docno not in seen:
            seen.add(docno)
            ordered.append(docno)
    return ordered


def static_order(spec: PoolStrategy, ranked: Ranked) -> Order:
    """(topic, docno) of a static strategy's pool in its judging order, within the budget.

    Depth-k judges each topic's pool best rank first; the fusions by fused weight."""
    if spec.adaptive:
        raise StrategyError(f"strategy {spec.label} is adaptive: it has no order before judging")
    if spec.strategy.name == "depth":
        pool = build_pool(spec.strategy, ranked, spec.core_budget, _no_judge, spec.seed)
        return [(topic, doc) for topic in sorted(pool) for doc in pool[topic]]
    return judging_order(spec.strategy, ranked, spec.core_budget, _no_judge, spec.seed)


def adaptive_next(
    spec: PoolStrategy,
    topic: str,
    runs: TopicRuns,
    judged: Iterable[tuple[str, bool]],
    head: Sequence[str] | None = None,
) -> str | None:
    """An adaptive strategy's next document of ``topic`` after its judgments so far (docno,
    relevant), in the order they were made; None when the runs hold nothing more. ``head``:
    ``hybrid``'s fused head of ``runs``, when the caller keeps it (``next_to_judge``)."""
    return next_to_judge(spec.strategy, runs, judged, spec.seed, topic, head)


def best_ranks(runs: Mapping[Any, list[str]], docno: str) -> dict[Any, int]:
    """Run -> the 1-based rank at which it retrieved ``docno`` (runs that did not: absent)."""
    found = {}
    for run, docs in runs.items():
        try:
            found[run] = docs.index(docno) + 1
        except ValueError:
            continue
    return found


def _no_judge(topic: str, doc: str) -> bool:
    raise StrategyError("a static strategy asked for a judgment")


__all__ = [
    "BUDGET_SCOPES",
    "MAX_BUDGET",
    "STRATEGY_HELP",
    "PoolStrategy",
    "adaptive_next",
    "best_ranks",
    "pool_strategy",
    "pool_strategy_from",
    "ranked_docnos",
    "static_order",
]
