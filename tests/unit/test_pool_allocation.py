"""Spreading a task budget over topics: the floor, the app's share rule worked by hand, and a
synthetic deep-pooled collection on which spreading by expected gain finds more relevant
documents than equal shares per topic."""

from __future__ import annotations

import math
import random

from hypothesis import given
from hypothesis import strategies as st

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


def share_rule_alone(topic: str | int, tallies: dict[str | int, TopicTally], total: int) -> bool:
    """The share rule as it stood before idle budget, written out: below the floor, or (the
    other topics' missing floors kept) fewer judgments above the floor than the share."""
    n = len(tallies)
    floor = min(math.ceil(0.25 * total / n), total // n)
    left = total - sum(t.spent for t in tallies.values())
    mine = tallies[topic]
    if left <= 0:
        return False
    if mine.spent < floor:
        return True
    if left <= sum(max(floor - t.spent, 0) for k, t in tallies.items() if k != topic):
        return False
    gains = sum(t.gain for t in tallies.values())
    return mine.spent - floor < (total - n * floor) * mine.gain / gains


@given(
    st.lists(
        st.tuples(st.integers(0, 12), st.lists(st.booleans(), max_size=12)),
        min_size=1,
        max_size=5,
    ),
    st.integers(1, 60),
)
def test_idle_budget_allows_nothing_more_when_every_topic_can_take_judgments(
    topics: list[tuple[int, list[bool]]], total: int
) -> None:
    tallies: dict[str | int, TopicTally] = {
        f"t{i}": topic_tally(spent, judged) for i, (spent, judged) in enumerate(topics)
    }
    for topic in tallies:
        assert task_share_allows(topic, tallies, total) == share_rule_alone(topic, tallies, total)


@given(
    st.lists(
        st.tuples(
            st.integers(0, 12), st.lists(st.booleans(), max_size=8), st.booleans(), st.booleans()
        ),
        min_size=2,
        max_size=5,
    ),
    st.integers(1, 60),
)
def test_idle_budget_never_exceeds_the_total_nor_takes_a_kept_floor_when_some_topics_idle(
    topics: list[tuple[int, list[bool], bool, bool]], total: int
) -> None:
    tallies: dict[str | int, TopicTally] = {}
    for i, (spent, judged, assessed, exhausted) in enumerate(topics):
        tallies[f"t{i}"] = topic_tally(spent, judged)
        tallies[f"t{i}"].assessed, tallies[f"t{i}"].exhausted = assessed, exhausted
    floor = topic_floor(total, len(tallies))
    left = total - sum(t.spent for t in tallies.values())
    for topic, mine in tallies.items():
        allowed = task_share_allows(topic, tallies, total)
        if share_rule_alone(topic, tallies, total):
            assert allowed  # idle budget only ever adds
        if allowed and mine.spent >= floor:
            kept = sum(
                max(floor - t.spent, 0)
                for k, t in tallies.items()
                if k != topic and not t.exhausted
            )
            assert left - 1 >= kept  # the floors of the topics that may still use them stay


def test_idle_budget_worked_by_hand_when_the_other_topic_has_no_assessor_or_no_documents() -> None:
    # Budget 20 over a and b: floor 3 each, 14 above the floors. a found nothing in 7
    # judgments: its share is 14 * g(a) / (g(a) + g(b)).
    s7 = sum(0.8**k for k in range(7))
    a = topic_tally(7, [False] * 7)
    gain_a, gain_b = 1 / (2 + s7), 0.5
    share_a = 14 * gain_a / (gain_a + gain_b)
    assert 3 < share_a < 4  # a may have 3 + 4 = 7 items: it has had them
    b = topic_tally(1, [])  # b has its first item, and a share of 10.5 it can use
    assert not task_share_allows("a", {"a": a, "b": b}, 20)
    # b has no assessor: its floor stays kept (2 more), its share is idle. 12 are left:
    # 12 - 2 kept > 0, so a takes them, one at a time, until only b's floor is left.
    b.assessed = False
    assert task_share_allows("a", {"a": a, "b": b}, 20)
    a.spent = 17  # 17 + 1 = 18 spent, 2 left: b's floor
    assert not task_share_allows("a", {"a": a, "b": b}, 20)
    # b's runs are exhausted (assessed or not): its floor is no longer kept either.
    b.exhausted = True
    assert task_share_allows("a", {"a": a, "b": b}, 20)
    a.spent = 19
    assert not task_share_allows("a", {"a": a, "b": b}, 20)  # 20 spent: the limit


def test_idle_budget_is_what_judging_topics_cannot_claim_when_one_topic_is_unassessed() -> None:
    # Budget 30 over a, b, c: floor ceil(0.25 * 10) = 3 each, 21 above the floors.
    s5 = sum(0.8**k for k in range(5))
    s6 = sum(0.8**k for k in range(6))
    gain_a, gain_b, gain_c = 1 / (2 + s6), (1 + s5) / (2 + s5), 0.5
    shares = [21 * g / (gain_a + gain_b + gain_c) for g in (gain_a, gain_b, gain_c)]
    assert 2 < shares[0] < 3  # a may have 3 + 3: it has 6
    assert 11 < shares[1] < 12  # b may have 3 + 12: it has 5, so it claims 12 - 2 = 10 more
    a, b, c = topic_tally(6, [False] * 6), topic_tally(5, [True] * 5), topic_tally(1, [])
    tallies: dict[str | int, TopicTally] = {"a": a, "b": b, "c": c}
    assert not task_share_allows("a", tallies, 30)
    # c has no assessor: its floor (2 more) is kept, its share is idle. 30 - 12 = 18 left,
    # 2 kept for c and 10 claimed by b: a may take 6 more, while its judgments are pending.
    c.assessed = False
    taken = 0
    while task_share_allows("a", tallies, 30):
        a.spent += 1
        taken += 1
    assert taken == 18 - 2 - 10
    # b still takes its share, then c's floor is all that is left.
    while task_share_allows("b", tallies, 30):
        b.spent += 1
    assert b.spent == 3 + 12
    assert 30 - sum(t.spent for t in tallies.values()) == 2


def test_replay_spends_an_exhausted_topics_floor_on_the_others_when_its_runs_run_out() -> None:
    # Topic x's runs hold 2 documents, y's and z's 40: a budget of 40 has floors of
    # ceil(0.25 * 40 / 3) = 4; x can take 2, and the other 38 go to y and z.
    ranked = {
        "x": {"r1": ["x1", "x2"], "r2": ["x2"]},
        "y": {"r1": [f"y{n}" for n in range(40)]},
        "z": {"r1": [f"z{n}" for n in range(40)]},
    }
    for name in ("mtf", "mm", "mm-ns"):
        order = judging_order(
            parse_strategy(name), ranked, Budget(total=40), lambda t, d: d < "y2", seed=3
        )
        counts = {t: sum(1 for topic, _d in order if topic == t) for t in ranked}
        assert counts["x"] == 2
        assert counts["y"] + counts["z"] == 38
        assert min(counts["y"], counts["z"]) >= topic_floor(40, 3) - 1
