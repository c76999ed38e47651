"""Budgeted pooling strategies: plain functions over runs as ranked lists of docnos.

A strategy is named ``NAME`` or ``NAME:PARAM`` (``parse_strategy``); ``build_pool`` replays it
to a budget. Static strategies (depth, rrf, rbp) need no judgments; adaptive ones (mtf, mm,
mm-ns, hybrid) ask ``judge(topic, docno)`` as they go. Every strategy is deterministic for a seed:
randomness only comes from the ``random.Random(seed)`` passed in. docs/pooling.md has the
rules, "Budgeted strategies and the planner".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pooling.core.algorithms.strategies.adaptive import TopicStrategy, adaptive_order, topic_rng
from pooling.core.algorithms.strategies.bandit import NS_GAMMA, MaxMean
from pooling.core.algorithms.strategies.common import (
    Budget,
    Judge,
    Order,
    Pool,
    Ranked,
    StrategyError,
    TopicRuns,
    judgments,
    pool_of,
)
from pooling.core.algorithms.strategies.depth import depth_pool
from pooling.core.algorithms.strategies.fusion import (
    RBP_P,
    RRF_K,
    TopicFusion,
    Weight,
    fused_order,
    fused_weights,
    rbp_weight,
    rrf_weight,
)
from pooling.core.algorithms.strategies.hybrid import HYBRID_START, FusionFirst, fusion_head
from pooling.core.algorithms.strategies.mtf import MoveToFront

# name -> (what its parameter is, default, adaptive?)
STRATEGIES: dict[str, tuple[str, float | None, bool]] = {
    "depth": ("the largest depth k (default: as deep as the budget allows)", None, False),
    "rrf": ("reciprocal rank fusion's k", RRF_K, False),
    "rbp": ("rank-biased precision's persistence p", RBP_P, False),
    "mtf": ("no parameter", None, True),
    "mm": ("no parameter", None, True),
    "mm-ns": ("the discount gamma of older judgments", NS_GAMMA, True),
    "hybrid": ("the judgments per topic in RRF order before MM-NS", HYBRID_START, True),
}
DEFAULT_STRATEGIES = ("depth", "rrf", "rbp", "mtf", "mm", "mm-ns", "hybrid")


@dataclass(frozen=True, slots=True)
class Strategy:
    name: str
    param: float | None = None

    @property
    def label(self) -> str:
        if self.param is None:
            return self.name
        return f"{self.name}:{self.param:g}"

    @property
    def adaptive(self) -> bool:
        return STRATEGIES[self.name][2]


def parse_strategy(text: str) -> Strategy:
    """``NAME`` or ``NAME:PARAM`` (``depth:10``, ``rrf:60``, ``rbp:0.9``, ``mm-ns:0.9``)."""
    name, _, raw = text.strip().partition(":")
    if name not in STRATEGIES:
        raise StrategyError(f"unknown strategy {name!r}; known: {', '.join(STRATEGIES)}")
    what, default, _adaptive = STRATEGIES[name]
    if not raw:
        return Strategy(name, default)
    if what == "no parameter":
        raise StrategyError(f"strategy {name} takes no parameter (got {raw!r})")
    try:
        param = float(raw)
    except ValueError:
        raise StrategyError(f"strategy {name}: {raw!r} is not a number ({what})") from None
    _check(name, param)
    return Strategy(name, param)


@dataclass(frozen=True, slots=True)
class ParamRange:
    """Where a strategy's parameter means something (``low``/``high`` inclusive or not)."""

    low: float
    high: float
    low_open: bool = False
    high_open: bool = False
    whole: bool = False

    def holds(self, value: float) -> bool:
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open else value <= self.high
        return above and below and (not self.whole or value == int(value))

    def __str__(self) -> str:
        kind = "a whole number " if self.whole else ""
        left, right = "(" if self.low_open else "[", ")" if self.high_open else "]"
        return f"{kind}in {left}{self.low:g}, {self.high:g}{right}"


# Beyond these a parameter stops changing the pool (an rrf k far past any run's depth weighs
# every rank alike; so does a depth past any run's end) or makes no sense (rbp's p and mm-ns's
# gamma are probabilities, p = 1 never stops; gamma = 1 is plain MaxMean, 0 forgets all; a
# hybrid start of 0 is plain MM-NS).
PARAM_RANGES: dict[str, ParamRange] = {
    "depth": ParamRange(1, 100_000, whole=True),
    "rrf": ParamRange(1, 100_000),
    "rbp": ParamRange(0, 1, low_open=True, high_open=True),
    "mm-ns": ParamRange(0, 1, low_open=True),
    "hybrid": ParamRange(0, 100_000, whole=True),
}


def _check(name: str, param: float) -> None:
    allowed = PARAM_RANGES[name]
    if not math.isfinite(param) or not allowed.holds(param):
        raise StrategyError(
            f"strategy {name}: {param:g} is out of range: {STRATEGIES[name][0]} must be {allowed}"
        )


def build_pool(
    strategy: Strategy, ranked: Ranked, budget: Budget, judge: Judge, seed: int = 0
) -> Pool:
    """The pool ``strategy`` buys with ``budget`` on ``ranked`` runs, in judging order."""
    if strategy.name == "depth":
        return depth_pool(ranked, budget, int(strategy.param) if strategy.param else None)
    return pool_of(judging_order(strategy, ranked, budget, judge, seed), ranked)


def judging_order(
    strategy: Strategy,
    ranked: Ranked,
    budget: Budget,
    judge: Judge,
    seed: int = 0,
    heads: Mapping[str, Sequence[str]] | None = None,
) -> Order:
    """(topic, docno) in the order ``strategy`` judges them within ``budget``.

    For every strategy but depth-k, what a smaller task budget buys is a prefix of this order
    (the same replay, stopped earlier), so a planner replays once per strategy. ``heads``
    (hybrid only, when the caller has them): topic -> the first documents of its runs' RRF
    order, as ``TopicFusion.head`` gives them for the strategy's start."""
    if strategy.name == "depth":
        raise StrategyError("depth-k pools are not prefixes of one order: use build_pool")
    if strategy.name in ("rrf", "rbp"):
        weight = fusion_weight(strategy)
        fused = {t: fused_weights(runs, weight) for t, runs in ranked.items()}
        return fused_order(fused, budget)
    if strategy.name == "mtf":
        return adaptive_order(
            ranked, budget, judge, lambda _t, lists, rng: MoveToFront(lists, rng), seed
        )
    if strategy.name == "hybrid":
        start = hybrid_start(strategy)
        known = heads or {}
        return adaptive_order(
            ranked,
            budget,
            judge,
            lambda t, lists, rng: FusionFirst(lists, rng, start=start, head=known.get(t)),
            seed,
        )
    gamma = 1.0 if strategy.name == "mm" else float(strategy.param or NS_GAMMA)
    return adaptive_order(
        ranked, budget, judge, lambda _t, lists, rng: MaxMean(lists, rng, gamma=gamma), seed
    )


def adaptive_strategy(
    strategy: Strategy,
    runs: TopicRuns,
    seed: int = 0,
    topic: str = "",
    head: Sequence[str] | None = None,
) -> TopicStrategy:
    """One topic's adaptive strategy, ready for ``next_doc`` and ``record``: what judging in
    priority order asks after each judgment. Its ties are broken as the planner's replay of
    the same topic and seed breaks them. ``head`` (hybrid only, when the caller keeps it):
    ``fusion_head`` of the runs' lists in sorted tag order and the strategy's start."""
    if not strategy.adaptive:
        raise StrategyError(f"strategy {strategy.name} is not adaptive")
    rng = topic_rng(seed, topic)
    lists = [runs[tag] for tag in sorted(runs)]
    if strategy.name == "mtf":
        return MoveToFront(lists, rng)
    if strategy.name == "hybrid":
        return FusionFirst(lists, rng, start=hybrid_start(strategy), head=head)
    gamma = 1.0 if strategy.name == "mm" else float(strategy.param or NS_GAMMA)
    return MaxMean(lists, rng, gamma=gamma)


def next_to_judge(
    strategy: Strategy,
    runs: TopicRuns,
    judged: Iterable[tuple[str, bool]],
    seed: int = 0,
    topic: str = "",
    head: Sequence[str] | None = None,
) -> str | None:
    """The next document of a topic to judge, given its judgments so far in the order they
    were made ((docno, relevant) pairs); None when the runs hold nothing left to judge.
    ``head``: as ``adaptive_strategy`` takes it."""
    chooser = adaptive_strategy(strategy, runs, seed, topic, head)
    for doc, relevant in judged:
        chooser.record(doc, relevant)
    return chooser.next_doc()


def ranks_needed(strategy: Strategy, judged: int) -> int | None:
    """How deep each run must be read for an adaptive strategy's next document of a topic
    with ``judged`` judgments so far, exactly as its whole ranking would give it; None: whole.

    A run's pointer never passes more documents than are judged, so the bandits and
    Move-to-Front need each run's first ``judged`` + 1 documents. ``hybrid``'s start ranks by
    fused weight, which a document deep in many runs can win: whole runs until it is over."""
    if strategy.name == "hybrid" and judged < hybrid_start(strategy):
        return None
    return judged + 1


def fusion_start(strategy: Strategy, judged: int) -> int | None:
    """``hybrid``'s start while a topic with ``judged`` judgments is still in it: the length
    of the fused head (``fusion_head``) its next document comes from; None otherwise (another
    strategy, or the bandit has taken over)."""
    if strategy.name == "hybrid" and judged < hybrid_start(strategy):
        return hybrid_start(strategy)
    return None


def hybrid_start(strategy: Strategy) -> int:
    """How many judgments of each topic ``hybrid`` takes in RRF order."""
    return HYBRID_START if strategy.param is None else int(strategy.param)


def fusion_weight(strategy: Strategy) -> Weight:
    if strategy.name == "rrf":
        return rrf_weight(RRF_K if strategy.param is None else strategy.param)
    return rbp_weight(RBP_P if strategy.param is None else strategy.param)


__all__ = [
    "DEFAULT_STRATEGIES",
    "STRATEGIES",
    "Budget",
    "Judge",
    "Order",
    "Pool",
    "Ranked",
    "Strategy",
    "StrategyError",
    "TopicFusion",
    "TopicStrategy",
    "adaptive_strategy",
    "build_pool",
    "fused_order",
    "fused_weights",
    "fusion_head",
    "fusion_start",
    "fusion_weight",
    "hybrid_start",
    "judging_order",
    "judgments",
    "next_to_judge",
    "parse_strategy",
    "pool_of",
    "ranks_needed",
]
