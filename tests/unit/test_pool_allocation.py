"""Spreading a task budget over topics: the floor, the app's share rule worked by hand, and a
synthetic deep-pooled collection on which spreading by expected gain finds more relevant
documents than equal shares per topic."""

from __future__ import annotations

import math
import random

from pooling.core.algorithms.strategies import Budget, judging_order, parse_strategy
from pooling.core.algorithms.strategies.allocation import (
    TopicTally,
    task_share_allows,
    topic_floor,
    topic_tally,
)


def test_floor_is_a_quarter_of_an_equal_share_never_more_than_the_share() -> None:
    assert topic_floor(869, 30) == math.ceil(0.25 * 869 / 30) == 8
    assert topic_floor(20, 2) == 3
    assert topic_floor(5, 4) == 1  # ceil(0.3125) = 1 = 5 // 4
    assert topic_floor(3, 4) == 0  # fewer judgments than topics: no topic can be promised one
    assert topic_floor(10, 0) == 0


def test_tally_discounts_older_judgments_by_0_8() -> None:
    tally = topic_tally(4, [True, False, True, True])
    # Oldest first: each later judgment multiplies what came before by 0.8.
    hits = 1 * 0.8**3 + 0 * 0.8**2 + 1 * 0.8 + 1
    misses = 0 * 0.8**3 + 1 * 0.8**2 + 0 * 0.8 + 0
    assert math.isclose(tally.hits, hits)
    assert math.isclose(tally.misses, misses)
    assert math.isclose(tally.gain, (1 + hits) / (2 + hits + misses))


def test_share_rule_worked_by_hand() -> None:
    # Budget 20 over topics a and b: floor ceil(0.25 * 10) = 3 each; 14 above the floors.
    rich = topic_tally(4, [True] * 4)
    poor = topic_tally(4, [False] * 4)
    s = 1 + 0.8 + 0.64 + 0.512  # the discounted count of four judgments
    gain_rich, gain_poor = (1 + s) / (2 + s), 1 / (2 + s)
    share_poor = 14 * gain_poor / (gain_rich + gain_poor)  # 2.83: b may have 3 + 2 items
    assert 2 < share_poor < 3
    assert task_share_allows("a", {"a": rich, "b": poor}, 20)
    assert task_share_allows("b", {"a": rich, "b": poor}, 20)  # 1 above its floor < 2.83
    poorer = topic_tally(6, [False] * 6)
    assert not task_share_allows("b", {"a": rich, "b": poorer}, 20)  # 3 above: its share is had
    # Below the floor a topic always may; the others' floors are kept for them.
    fresh = TopicTally()
    assert task_share_allows("c", {"a": rich, "b": poor, "c": fresh}, 20)

    # Budget 20 over three topics: floor 2 each, 14 above the floors. c still needs 1.
    def gain(judged: list[bool]) -> float:
        hits = sum(r * 0.8**age for age, r in enumerate(reversed(judged)))
        misses = sum((not r) * 0.8**age for age, r in enumerate(reversed(judged)))
        return (1 + hits) / (2 + hits + misses)

    assert topic_floor(20, 3) == 2
    b, c = topic_tally(8, [False] * 8), topic_tally(1, [False])
    share = 14 * gain([True] * 9) / (gain([True] * 9) + gain([False] * 8) + gain([False]))
    assert 8 < share < 9  # a may have up to 2 + 8 items by its share
    a = topic_tally(9, [True] * 9)
    assert task_share_allows("a", {"a": a, "b": b, "c": c}, 20)  # 2 left, 1 kept for c
    a = topic_tally(10, [True] * 10)  # its share still allows, but the last one is c's floor
    assert 14 * a.gain / (a.gain + b.gain + c.gain) > 10 - 2
    assert not task_share_allows("a", {"a": a, "b": b, "c": c}, 20)
    assert task_share_allows("c", {"a": a, "b": b, "c": c}, 20)
    c.spent = 2
    assert not task_share_allows("c", {"a": a, "b": b, "c": c}, 20)  # 20 spent: the limit


def deep_pooled(seed: int) -> tuple[dict[str, dict[str, list[str]]], dict[str, set[str]]]:
    """Ten topics, two with 150 relevant documents, eight with 6, among 600 documents; ten
    runs each ranking its topic's documents by a noisy relevance score (relevant documents
    score 1 + N(0, 1), others N(0, 1)), 200 documents a run: every relevant document is
    known, as in a collection pooled deep."""
    rng = random.Random(seed)
    ranked: dict[str, dict[str, list[str]]] = {}
    relevant: dict[str, set[str]] = {}
    for topic in range(10):
        t = f"t{topic}"
        count = 150 if topic < 2 else 6
        docs = [f"{t}-d{n}" for n in range(600)]
        relevant[t] = set(rng.sample(docs, count))
        ranked[t] = {}
        for run in range(10):
            score = {d: rng.gauss(1.0 if d in relevant[t] else 0.0, 1.0) for d in docs}
            ranked[t][f"r{run}"] = sorted(docs, key=lambda d: -score[d])[:200]
    return ranked, relevant


def test_spreading_by_gain_beats_equal_shares_on_a_deep_pooled_collection() -> None:
    ranked, relevant = deep_pooled(2024)
    total_relevant = sum(len(docs) for docs in relevant.values())
    assert total_relevant == 2 * 150 + 8 * 6

    def judge(topic: str, doc: str) -> bool:
        return doc in relevant[topic]

    for name in ("mtf", "mm", "mm-ns"):
        strategy = parse_strategy(name)
        for total in (300, 600):
            spread = judging_order(strategy, ranked, Budget(total=total), judge, seed=5)
            equal = judging_order(strategy, ranked, Budget(per_topic=total // 10), judge, seed=5)
            assert len(spread) == total
            assert len(equal) == total
            found_spread = sum(judge(t, d) for t, d in spread)
            found_equal = sum(judge(t, d) for t, d in equal)
            assert found_spread > 1.15 * found_equal, (name, total, found_spread, found_equal)
            # Every topic gets its floor.
            floor = topic_floor(total, 10)
            assert all(sum(t == topic for t, _d in spread) >= floor for topic in ranked)
