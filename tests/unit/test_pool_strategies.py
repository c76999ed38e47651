"""Budgeted pooling strategies: hand-worked pools, budgets kept, same seed same pool."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pooling.core.algorithms.strategies import (
    Budget,
    StrategyError,
    build_pool,
    fused_order,
    fused_weights,
    fusion_head,
    judging_order,
    next_to_judge,
    parse_strategy,
    ranks_needed,
)
from pooling.core.algorithms.strategies.bandit import MaxMean
from pooling.core.algorithms.strategies.fusion import (
    TopicFusion,
    fused_order_without,
    rbp_weight,
    retrieved_by,
    rrf_weight,
)
from pooling.core.algorithms.strategies.mtf import MoveToFront

RUNS = {"1": {"A": ["a", "b", "c"], "B": ["b", "d", "e"]}}
FUSE = {"1": {"A": ["a", "b", "c"], "B": ["b", "c", "d"], "C": ["b", "a"]}}


def never(topic: str, doc: str) -> bool:
    return False


def relevant_if_r(topic: str, doc: str) -> bool:
    return doc.startswith("r")


def first_arm(seed: int, arms: int, topic: str = "1") -> int:
    """The arm an adaptive strategy breaks its first tie for: its smallest random key, drawn
    from the topic's own RNG (seeded "seed|topic")."""
    rng = random.Random(f"{seed}|{topic}")
    keys = [rng.random() for _ in range(arms)]
    return keys.index(min(keys))


def test_depth_takes_largest_depth_within_topic_budget() -> None:
    # depth 1: {a, b} (2); depth 2: {a, b, d} (3); depth 3: 5 > 3.
    pool = build_pool(parse_strategy("depth"), RUNS, Budget(per_topic=3), never)
    assert pool == {"1": ["a", "b", "d"]}  # by best rank, then docno
    assert build_pool(parse_strategy("depth"), RUNS, Budget(per_topic=1), never) == {"1": []}


def test_depth_spends_task_budget_evenly_over_topics() -> None:
    runs = {**RUNS, "2": {"A": ["x", "y", "z"], "B": ["x", "w", "v"]}}
    # depth 1: 2 + 1 = 3; depth 2: 3 + 3 = 6; depth 3: 5 + 5 = 10.
    pool = build_pool(parse_strategy("depth"), runs, Budget(total=9), never)
    assert pool == {"1": ["a", "b", "d"], "2": ["x", "w", "y"]}
    capped = build_pool(parse_strategy("depth:1"), runs, Budget(total=9), never)
    assert capped == {"1": ["a", "b"], "2": ["x"]}


def test_rrf_ranks_by_summed_reciprocal_ranks_with_k_60() -> None:
    weights = fused_weights(FUSE["1"], rrf_weight())
    assert weights["b"] == pytest.approx(1 / 62 + 1 / 61 + 1 / 61)
    assert weights["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert weights["c"] == pytest.approx(1 / 63 + 1 / 62)
    assert weights["d"] == pytest.approx(1 / 63)
    pool = build_pool(parse_strategy("rrf"), FUSE, Budget(per_topic=3), never)
    assert pool == {"1": ["b", "a", "c"]}


def test_rbp_weights_ranks_by_persistence() -> None:
    # p = 0.5: ranks weigh 0.5, 0.25, 0.125.
    weights = fused_weights(FUSE["1"], rbp_weight(0.5))
    assert weights == {"b": 1.25, "a": 0.75, "c": 0.375, "d": 0.125}
    pool = build_pool(parse_strategy("rbp:0.5"), FUSE, Budget(per_topic=2), never)
    assert pool == {"1": ["b", "a"]}


def test_fusion_task_budget_goes_to_highest_weights_over_all_topics() -> None:
    runs = {**FUSE, "2": {"A": ["x"], "B": ["x"], "C": ["y"]}}
    # weights: (1, b) 1.25, (2, x) 1.0, (1, a) 0.75, (2, y) 0.5, (1, c) 0.375
    order = judging_order(parse_strategy("rbp:0.5"), runs, Budget(total=4), never)
    assert order == [("1", "b"), ("2", "x"), ("1", "a"), ("2", "y")]


def test_move_to_front_stays_on_a_run_while_it_finds_relevant_documents() -> None:
    runs = {"1": {"A": ["r1", "n1", "r2"], "B": ["r3", "r4", "n2"]}}
    seed = next(s for s in range(100) if first_arm(s, 2) == 0)  # A first
    order = judging_order(parse_strategy("mtf"), runs, Budget(per_topic=6), relevant_if_r, seed)
    # A: r1, n1 (A drops to -1); B: r3, r4, n2 (B drops to -1); tie, A first: r2.
    assert [d for _t, d in order] == ["r1", "n1", "r3", "r4", "n2", "r2"]


def test_move_to_front_does_not_penalise_a_run_for_documents_others_judged() -> None:
    rng = random.Random(f"{next(s for s in range(100) if first_arm(s, 2) == 0)}|1")
    strategy = MoveToFront([["n1", "r1"], ["n1", "r2"]], rng)
    strategy.step(relevant_if_r, "1")  # A judges n1; B steps over it
    assert strategy.priority == [-1.0, 0.0]


def test_maxmean_pulls_the_run_of_highest_posterior_mean() -> None:
    runs = {"1": {"A": ["n1", "n2", "n3"], "B": ["r1", "r2", "n4"]}}
    seed = next(s for s in range(100) if first_arm(s, 2) == 0)  # A first
    order = judging_order(parse_strategy("mm"), runs, Budget(per_topic=6), relevant_if_r, seed)
    # A: n1 -> 1/3; B (1/2): r1 -> 2/3, r2 -> 3/4, n4 -> 3/5, spent; A: n2, n3.
    assert [d for _t, d in order] == ["n1", "r1", "r2", "n4", "n2", "n3"]


def test_maxmean_non_stationary_discounts_older_judgments() -> None:
    stationary = MaxMean([["r1", "r2", "n1"]], random.Random(0))
    discounted = MaxMean([["r1", "r2", "n1"]], random.Random(0), gamma=0.5)
    for strategy in (stationary, discounted):
        for _ in range(3):
            strategy.step(relevant_if_r, "1")
    assert stationary.priority[0] == pytest.approx(3 / 5)  # Beta(1 + 2, 1 + 1)
    # rel = 0.25 * 1 + 0.5 * 1 + 0 = 0.75, nrel = 1: (1 + 0.75) / (2 + 1.75)
    assert discounted.priority[0] == pytest.approx(1.75 / 3.75)


def test_maxmean_counts_documents_other_runs_had_judged() -> None:
    strategy = MaxMean([["r1", "n1"], ["r1", "r2"]], random.Random(0))
    strategy.step(relevant_if_r, "1")  # whichever run is pulled, both step over r1
    assert strategy.priority == [pytest.approx(2 / 3), pytest.approx(2 / 3)]


def test_hybrid_judges_in_fused_order_first_then_by_maxmean() -> None:
    runs = {"1": {"A": ["n1", "r1", "n2"], "B": ["r1", "n3", "n4"], "C": ["n3", "r2"]}}
    # RRF (k = 60): r1 and n3 weigh 1/61 + 1/62 (tie: docno ascending), n1 1/61, r2 1/62.
    # hybrid:2 judges n3 and r1 so; then MM-NS (gamma 0.5): A has judged nothing (1/2);
    # B's prefix r1, n3 gives rel 0.5, nrel 1: 3/7; C's n3 1/3. A: n1, then it steps over
    # r1 (rel 1, nrel 0.5: 4/7); A again: n2 (rel 0.5, nrel 1.25: 0.4); B (3/7): n4.
    order = judging_order(parse_strategy("hybrid:2"), runs, Budget(per_topic=5), relevant_if_r)
    assert [d for _t, d in order] == ["n3", "r1", "n1", "n2", "n4"]
    rrf = judging_order(parse_strategy("rrf"), runs, Budget(per_topic=5), never)
    assert [d for _t, d in rrf] == ["n3", "r1", "n1", "r2", "n2"]


@pytest.mark.parametrize("seed", range(5))
def test_hybrid_with_no_fused_start_is_mm_ns(seed: int) -> None:
    budget = Budget(per_topic=4)
    hybrid = judging_order(parse_strategy("hybrid:0"), FUSE, budget, relevant_if_r, seed)
    assert hybrid == judging_order(parse_strategy("mm-ns"), FUSE, budget, relevant_if_r, seed)


def test_parse_strategy_refuses_unknown_names_and_bad_parameters() -> None:
    assert parse_strategy("rrf").label == "rrf:60"
    assert parse_strategy("mm-ns:0.7").param == 0.7
    assert [parse_strategy(t).param for t in ("rrf:1", "rrf:100000", "mm-ns:1", "depth:1")] == [
        1,
        100_000,
        1,
        1,
    ]
    for bad, message in [
        ("bm25", "unknown strategy"),
        ("mtf:3", "takes no parameter"),
        ("rbp:1.5", "out of range"),
        ("depth:0", "out of range"),
        ("rrf:x", "not a number"),
        (
            "rrf:1e+308",
            r"rrf: 1e\+308 is out of range: reciprocal rank fusion's k must be in \[1, 100000\]",
        ),
        ("rrf:0.5", r"must be in \[1, 100000\]"),
        ("rrf:inf", "out of range"),
        ("rrf:nan", "out of range"),
        ("depth:nan", "out of range"),
        ("depth:1e400", "out of range"),
        ("depth:2.5", "a whole number in"),
        ("rbp:1", r"rbp: 1 is out of range: .* must be in \(0, 1\)"),
        ("rbp:0", r"must be in \(0, 1\)"),
        ("mm-ns:0", r"mm-ns: 0 is out of range: .* must be in \(0, 1\]"),
        ("mm-ns:1.01", "out of range"),
        ("hybrid:2.5", r"hybrid: 2.5 is out of range: .* must be a whole number in \[0, 100000\]"),
        ("hybrid:-1", "out of range"),
    ]:
        with pytest.raises(StrategyError, match=message):
            parse_strategy(bad)


def test_budget_is_either_per_topic_or_total() -> None:
    with pytest.raises(StrategyError):
        Budget()
    with pytest.raises(StrategyError):
        Budget(total=3, per_topic=1)
    with pytest.raises(StrategyError):
        Budget(total=-1)


DOCS = st.sampled_from([f"d{i}" for i in range(12)] + [f"r{i}" for i in range(6)])
RANKED = st.dictionaries(
    st.sampled_from(["1", "2", "3"]),
    st.dictionaries(
        st.sampled_from(["A", "B", "C", "D"]),
        st.lists(DOCS, max_size=10, unique=True),
        min_size=1,
    ),
    min_size=1,
)
NAMES = ["depth", "depth:2", "rrf", "rbp:0.5", "mtf", "mm", "mm-ns", "hybrid", "hybrid:2"]


@given(RANKED, st.integers(0, 40), st.booleans(), st.sampled_from(NAMES), st.integers(0, 9))
@settings(max_examples=300, deadline=None)
def test_every_strategy_keeps_budget_and_is_deterministic_for_a_seed(
    ranked: dict, amount: int, per_topic: bool, name: str, seed: int
) -> None:
    budget = Budget(per_topic=amount) if per_topic else Budget(total=amount)
    strategy = parse_strategy(name)
    pool = build_pool(strategy, ranked, budget, relevant_if_r, seed)
    assert pool == build_pool(strategy, ranked, budget, relevant_if_r, seed)
    sizes = [len(docs) for docs in pool.values()]
    assert max(sizes) <= amount if per_topic else sum(sizes) <= amount
    for topic, docs in pool.items():
        assert len(set(docs)) == len(docs)
        assert set(docs) <= {d for run in ranked[topic].values() for d in run}
    available = {t: len({d for run in r.values() for d in run}) for t, r in ranked.items()}
    if name in ("rrf", "rbp:0.5", "mtf", "mm", "mm-ns", "hybrid", "hybrid:2"):  # spend all
        if per_topic:
            assert sizes == [min(amount, available[t]) for t in pool]
        else:
            assert sum(sizes) == min(amount, sum(available.values()))


@given(RANKED, st.integers(1, 40), st.sampled_from(["A", "B", "C", "D"]))
@settings(max_examples=200, deadline=None)
def test_fusion_without_runs_equals_fusing_the_rest_afresh(
    ranked: dict, total: int, left_out: str
) -> None:
    weight = rbp_weight(0.5)  # dyadic weights: sums and differences are exact
    fused = {t: fused_weights(runs, weight) for t, runs in ranked.items()}
    counts = {t: retrieved_by(runs) for t, runs in ranked.items()}
    full = fused_order(fused, Budget(total=10**6))
    removed = {t: [runs[left_out]] if left_out in runs else [] for t, runs in ranked.items()}
    rest = {t: {tag: d for tag, d in runs.items() if tag != left_out} for t, runs in ranked.items()}
    afresh = fused_order(
        {t: fused_weights(runs, weight) for t, runs in rest.items()}, Budget(total=total)
    )
    assert fused_order_without(full, fused, counts, removed, weight, total) == afresh


@given(RANKED, st.integers(1, 30), st.sampled_from(["rrf", "mtf", "mm", "mm-ns", "hybrid:3"]))
@settings(max_examples=150, deadline=None)
def test_a_smaller_task_budget_buys_a_prefix_of_the_larger_ones_order(
    ranked: dict, total: int, name: str
) -> None:
    strategy = parse_strategy(name)
    large = judging_order(strategy, ranked, Budget(total=total + 5), relevant_if_r, 3)
    assert judging_order(strategy, ranked, Budget(total=total), relevant_if_r, 3) == large[:total]


ADAPTIVE = st.sampled_from(["mtf", "mm", "mm-ns", "hybrid:3"])


@given(RANKED, st.integers(0, 12), ADAPTIVE, st.integers(0, 5))
@settings(max_examples=200, deadline=None)
def test_next_to_judge_after_the_judgments_so_far_continues_the_replay(
    ranked: dict, made: int, name: str, seed: int
) -> None:
    strategy = parse_strategy(name)
    topic = sorted(ranked)[0]
    order = judging_order(strategy, ranked, Budget(per_topic=made + 1), relevant_if_r, seed)
    docs = [d for t, d in order if t == topic]
    so_far = [(d, relevant_if_r(topic, d)) for d in docs[:made]]
    expected = docs[made] if len(docs) > made else None
    assert next_to_judge(strategy, ranked[topic], so_far, seed, topic) == expected


def test_next_to_judge_takes_judgments_made_out_of_its_order() -> None:
    runs = {"A": ["n1", "r1"], "B": ["r2", "r3"]}
    # r2 and r3 were judged first (another assessor): B steps over both and is spent, so
    # whichever run is at the front, A's first unjudged document comes next.
    judged = [("r3", True), ("r2", True)]
    assert next_to_judge(parse_strategy("mm"), runs, judged, seed=0) == "n1"
    with pytest.raises(StrategyError, match="not adaptive"):
        next_to_judge(parse_strategy("rrf"), runs, judged)


@given(RANKED, st.integers(0, 12), ADAPTIVE, st.integers(0, 5))
@settings(max_examples=200, deadline=None)
def test_next_to_judge_on_runs_read_to_ranks_needed_equals_whole_runs(
    ranked: dict, made: int, name: str, seed: int
) -> None:
    """What the app reads of each run (``ranks_needed``) decides as the whole runs do."""
    strategy = parse_strategy(name)
    topic = sorted(ranked)[0]
    order = judging_order(strategy, ranked, Budget(per_topic=made), relevant_if_r, seed)
    so_far = [(d, relevant_if_r(topic, d)) for t, d in order if t == topic]
    depth = ranks_needed(strategy, len(so_far))
    cut = {tag: docs[:depth] for tag, docs in ranked[topic].items()}
    whole = next_to_judge(strategy, ranked[topic], so_far, seed, topic)
    assert next_to_judge(strategy, cut, so_far, seed, topic) == whole


def test_hybrid_reads_whole_runs_until_its_fused_start_is_over() -> None:
    assert ranks_needed(parse_strategy("hybrid:3"), 2) is None
    assert ranks_needed(parse_strategy("hybrid:3"), 3) == 4
    assert ranks_needed(parse_strategy("mm-ns"), 0) == 1


@given(RANKED, st.sets(st.sampled_from(["A", "B", "C", "D"])), st.integers(0, 25))
@settings(max_examples=200, deadline=None)
def test_topic_fusion_head_is_the_prefix_of_fusing_the_runs_afresh(
    ranked: dict, tags: set, n: int
) -> None:
    """The head of the fused order of some of a topic's runs, from runs indexed once, is
    what fusing those runs afresh sorts first (rrf's weights, not exact in binary: the same
    additions must be made in the same order), the n-th's ties included."""
    runs = ranked[sorted(ranked)[0]]
    kept = {tag: runs[tag] for tag in sorted(runs) if tag in tags}
    weights = fused_weights(kept, rrf_weight())
    whole = sorted(weights, key=lambda doc: (-weights[doc], doc))
    expected = (
        whole if n >= len(whole) else [d for d in whole if weights[d] >= weights[whole[n - 1]]]
    )
    assert TopicFusion(runs, rrf_weight()).head(list(kept), n) == (expected if n else [])


@given(RANKED, st.integers(1, 30), st.integers(0, 4), st.sampled_from(["A", "B", None]))
@settings(max_examples=150, deadline=None)
def test_hybrid_given_its_fused_heads_judges_as_when_it_fuses_them_itself(
    ranked: dict, total: int, start: int, left_out: str | None
) -> None:
    strategy = parse_strategy(f"hybrid:{start}")
    rest = {t: {tag: d for tag, d in runs.items() if tag != left_out} for t, runs in ranked.items()}
    heads = {
        t: TopicFusion(runs, rrf_weight()).head([tag for tag in runs if tag != left_out], start)
        for t, runs in ranked.items()
    }
    budget = Budget(total=total)
    given_heads = judging_order(strategy, rest, budget, relevant_if_r, 2, heads)
    assert given_heads == judging_order(strategy, rest, budget, relevant_if_r, 2)


@given(RANKED, st.integers(0, 12), st.integers(0, 5), st.integers(0, 5))
@settings(max_examples=200, deadline=None)
def test_next_to_judge_given_the_kept_fused_head_continues_the_replay(
    ranked: dict, made: int, start: int, seed: int
) -> None:
    """The app keeps ``fusion_head`` of a topic's runs between asks (it is the RRF order's
    prefix that TopicFusion, indexed apart, gives too); given it, the next document is the
    one the planner's replay judges next."""
    strategy = parse_strategy(f"hybrid:{start}")
    topic = sorted(ranked)[0]
    runs = ranked[topic]
    head = fusion_head([runs[tag] for tag in sorted(runs)], start)
    assert head == TopicFusion(runs, rrf_weight()).head(list(runs), start)
    order = judging_order(strategy, ranked, Budget(per_topic=made + 1), relevant_if_r, seed)
    docs = [d for t, d in order if t == topic]
    so_far = [(d, relevant_if_r(topic, d)) for d in docs[:made]]
    expected = docs[made] if len(docs) > made else None
    assert next_to_judge(strategy, runs, so_far, seed, topic, head) == expected
