"""The pure half of budgeted pools in the app (pooling/core/algorithms/strategies/priority.py):
a strategy with its budget as a build records it, runs read in trec_eval's order, and a static
strategy's order (RRF computed here by its formula)."""

from __future__ import annotations

from collections import defaultdict

import pytest

from pooling.core.algorithms.strategies import StrategyError
from pooling.core.algorithms.strategies.priority import (
    adaptive_next,
    pool_strategy,
    pool_strategy_from,
    ranked_docnos,
    static_order,
)


def test_a_recorded_strategy_reads_back_the_same_when_stored_as_a_dict() -> None:
    spec = pool_strategy("mm-ns:0.8", 20, "task", 3)
    recorded = spec.as_dict()
    assert recorded == {
        "name": "mm-ns:0.8",
        "budget": 20,
        "scope": "task",
        "seed": 3,
        "adaptive": True,
    }
    assert pool_strategy_from(recorded) == spec
    assert pool_strategy_from(None) is None
    assert spec.describe() == "mm-ns:0.8, 20 judgments for the task, seed 3"


@pytest.mark.parametrize(
    ("text", "budget", "scope", "words"),
    [
        ("bandit", 5, "topic", "unknown strategy"),
        ("rbp:1.5", 5, "topic", "out of range"),
        ("mtf:2", 5, "topic", "takes no parameter"),
        ("rrf", 0, "topic", "at least 1"),
        ("rrf", 5, "run", "per 'topic' or per 'task'"),
    ],
)
def test_a_bad_strategy_or_budget_says_what_is_wrong_when_parsed(
    text: str, budget: int, scope: str, words: str
) -> None:
    with pytest.raises(StrategyError, match=words):
        pool_strategy(text, budget, scope)


def test_a_runs_rows_are_read_score_then_docno_descending_without_repeats() -> None:
    rows = [(1.0, "b"), (3.0, "a"), (1.0, "c"), (2.0, "d"), (0.5, "a")]
    assert ranked_docnos(rows) == ["a", "d", "c", "b"]


def test_a_static_order_is_the_top_fused_documents_when_rrf_per_topic() -> None:
    ranked = {
        "1": {"x": ["a", "b", "c"], "y": ["c", "a", "d"], "z": ["d", "e"]},
        "2": {"x": ["p", "q"], "y": ["q", "r"]},
    }
    order = static_order(pool_strategy("rrf", 2), ranked)
    expected = []
    for topic in ("1", "2"):
        weight: dict[str, float] = defaultdict(float)
        for docs in ranked[topic].values():
            for rank, doc in enumerate(docs, start=1):
                weight[doc] += 1 / (60 + rank)
        top = sorted(weight, key=lambda d: (-weight[d], d))[:2]
        expected += [(topic, doc) for doc in top]
    assert order == expected
    with pytest.raises(StrategyError, match="adaptive"):
        static_order(pool_strategy("mtf", 2), ranked)


def test_move_to_front_stays_on_a_run_while_it_finds_relevant_documents() -> None:
    runs = {"x": ["a1", "a2", "a3"], "y": ["b1", "b2"]}
    spec = pool_strategy("mtf", 3, seed=4)
    first = adaptive_next(spec, "1", runs, [])
    assert first in ("a1", "b1")
    mine, other = (runs["x"], runs["y"]) if first == "a1" else (runs["y"], runs["x"])
    assert adaptive_next(spec, "1", runs, [(first, True)]) == mine[1]
    assert adaptive_next(spec, "1", runs, [(first, False)]) == other[0]
