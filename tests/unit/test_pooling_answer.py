"""Answer pools (Task 1), display order and open QA answers: hand-worked examples."""

import random

import pytest

from pooling.core.algorithms import (
    PoolSettings,
    RunSpec,
    answer_depth,
    answer_key,
    answer_pool,
    display_orders,
    formula_k,
    openqa_pool,
    plan_answer_topic,
    plan_document_topic,
    pooled_posts,
    topic_rng,
)

ARQMATH3 = PoolSettings()
ARQMATH2 = PoolSettings(primary_depth=45, alternate_depth=15, primary_k=20, alternate_k=10)


@pytest.mark.parametrize(
    ("run", "settings", "depth", "k"),
    [
        (RunSpec(1, "primary"), ARQMATH3, 45, 25),
        (RunSpec(1, "alternate"), ARQMATH3, 20, 15),
        (RunSpec(1, "alternate"), ARQMATH2, 15, 10),
        (RunSpec(1, "alternate", pool_as_primary=True), ARQMATH3, 45, 25),
        (RunSpec(1, "alternate", depth_override=7), ARQMATH3, 7, 7),
        (RunSpec(1, "primary", pool_as_primary=True, depth_override=100), ARQMATH3, 100, 100),
    ],
)
def test_depth_follows_role_baseline_and_override_when_run_is_pooled(
    run: RunSpec, settings: PoolSettings, depth: int, k: int
) -> None:
    assert answer_depth(run, settings) == depth
    assert formula_k(run, settings) == k


# rows are (rank, score, post id)
TIED = [(1, 0.9, 10), (2, 0.8, 11), (2, 0.8, 12), (2, 0.9, 13), (3, 0.1, 14)]


@pytest.mark.parametrize(
    ("rows", "depth", "expected"),
    [
        # equal ranks: score descending, then post id descending
        (TIED, 1, [(10, 1)]),
        (TIED, 2, [(10, 1), (13, 2)]),
        (TIED, 3, [(10, 1), (13, 2), (12, 2)]),
        (TIED, 4, [(10, 1), (13, 2), (12, 2), (11, 2)]),
        # file order does not matter, ranks do
        (list(reversed(TIED)), 2, [(10, 1), (13, 2)]),
        # a run shorter than its depth contributes everything it has
        ([(1, 3.0, 7), (2, 2.0, 8)], 45, [(7, 1), (8, 2)]),
        # a post repeated in the run counts once, at its first rank, and does not use depth
        ([(1, 3.0, 7), (2, 2.0, 7), (3, 1.0, 8), (4, 0.5, 9)], 2, [(7, 1), (8, 3)]),
        ([], 45, []),
        ([(1, 1.0, 7)], 0, []),
    ],
)
def test_pooled_posts_are_the_first_distinct_posts_when_cut_at_depth(
    rows: list[tuple[int, float, int]], depth: int, expected: list[tuple[int, int]]
) -> None:
    assert pooled_posts(rows, depth) == expected


# Document rows: (rank, score, docno); trec_eval breaks score ties by docno descending, as
# strings ("doc-9" > "doc-10"), never as numbers.
TIED_DOCNOS = [
    (1, 0.9, "doc-1"),
    (2, 0.8, "doc-10"),
    (2, 0.8, "doc-9"),
    (2, 0.9, "b"),
    (3, 0.1, "z"),
]


@pytest.mark.parametrize(
    ("rows", "depth", "expected"),
    [
        (TIED_DOCNOS, 2, [("doc-1", 1), ("b", 2)]),
        (TIED_DOCNOS, 4, [("doc-1", 1), ("b", 2), ("doc-9", 2), ("doc-10", 2)]),
        (
            list(reversed(TIED_DOCNOS)),
            5,
            [("doc-1", 1), ("b", 2), ("doc-9", 2), ("doc-10", 2), ("z", 3)],
        ),
        # non-ASCII docnos compare by code point, which is UTF-8 byte order (trec_eval's strcmp)
        (
            [(1, 1.0, "é"), (1, 1.0, "z"), (1, 1.0, "\U0001f600")],
            3,
            [("\U0001f600", 1), ("é", 1), ("z", 1)],
        ),
        ([(1, 3.0, "a"), (2, 2.0, "a"), (3, 1.0, "b")], 2, [("a", 1), ("b", 3)]),
    ],
)
def test_pooled_docnos_follow_trec_eval_ties_when_ids_are_strings(
    rows: list[tuple[int, float, str]], depth: int, expected: list[tuple[str, int]]
) -> None:
    assert pooled_posts(rows, depth) == expected
    # the same order as docs/pooling.md's key (rank, -score, -id) gives ids that sort the same way
    as_numbers = {docno: n for n, docno in enumerate(sorted({r[2] for r in rows}))}
    numeric = sorted(
        ((r, s, as_numbers[d]) for r, s, d in rows), key=lambda x: (x[0], -x[1], -x[2])
    )
    reference = list(dict.fromkeys(doc for _rank, _score, doc in numeric))[:depth]
    assert [as_numbers[docno] for docno, _rank in expected] == reference


def test_document_plan_pools_docnos_by_role_depth_and_keys_items_by_docno() -> None:
    primary = [(1, 3.0, "d1"), (2, 2.0, "d2"), (3, 1.0, "d3")]
    alternate = [(1, 3.0, "d3"), (2, 2.0, "d4"), (3, 1.0, "d5")]
    settings = PoolSettings(primary_depth=3, alternate_depth=2)
    plan = plan_document_topic(
        [(RunSpec(1, "primary"), primary), (RunSpec(2, "alternate"), alternate)], settings
    )
    assert {key: item.contributions for key, item in plan.items()} == {
        "d1": {1: 1},
        "d2": {1: 2},
        "d3": {1: 3, 2: 1},
        "d4": {2: 2},
    }
    assert all(item.post_id is None and item.document_id is None for item in plan.values())


def test_answer_pool_is_the_union_with_every_contribution_when_runs_overlap() -> None:
    run_a = [(1, 0.9, 100), (2, 0.8, 200), (3, 0.7, 300)]
    run_b = [(1, 0.9, 300), (2, 0.8, 400), (3, 0.7, 100)]
    pool = answer_pool([(1, run_a, 2), (2, run_b, 3)])
    assert pool == {100: {1: 1, 2: 3}, 200: {1: 2}, 300: {2: 1}, 400: {2: 2}}


def test_display_orders_shuffle_the_pool_reproducibly_when_seed_is_the_same() -> None:
    keys = [str(k) for k in range(50)]
    first = display_orders({}, keys, topic_rng(7, "A.1"))
    assert sorted(first.values()) == list(range(1, 51))
    assert first == display_orders({}, reversed(keys), topic_rng(7, "A.1"))
    assert first != display_orders({}, keys, topic_rng(8, "A.1"))
    assert [first[k] for k in keys] != list(range(1, 51))  # really shuffled


def test_display_orders_put_new_items_after_existing_ones_when_pool_grows() -> None:
    existing = {"a": 3, "b": 1, "c": 2}
    added = display_orders(existing, ["a", "b", "c", "d", "e", "f"], random.Random(1))
    assert set(added) == {"d", "e", "f"}
    assert sorted(added.values()) == [4, 5, 6]


def test_openqa_answers_pool_each_runs_best_answer_when_runs_give_several() -> None:
    pool = openqa_pool(
        [(1, 2, "second"), (1, 1, "The answer is 4."), (2, 1, "The answer is 4.  "), (3, 1, "  ")]
    )
    assert list(pool) == [answer_key("The answer is 4.")]
    assert pool[answer_key("The answer is 4.")].ranks == {1: 1, 2: 1}


def test_answer_key_is_short_and_stable_when_text_is_long() -> None:
    key = answer_key("x" * 5000)
    assert key == answer_key("x" * 5000)
    assert key.startswith("qa-")
    assert len(key) <= 60


def test_answer_plan_uses_each_runs_depth_and_adds_openqa_answers_when_both_exist() -> None:
    primary, alternate = RunSpec(1, "primary"), RunSpec(2, "alternate")
    settings = PoolSettings(primary_depth=2, alternate_depth=1)
    rows = [(1, 0.9, 10), (2, 0.8, 11), (3, 0.7, 12)]
    plan = plan_answer_topic(
        [(primary, rows), (alternate, rows[::-1])], [(9, 1, "Generated.")], settings
    )
    assert set(plan) == {"10", "11", answer_key("Generated.")}
    assert plan["10"].contributions == {1: 1, 2: 1}
    assert plan["10"].vote == 2.0
    assert plan[answer_key("Generated.")].answer == "Generated."
    assert plan["11"].post_id == 11


def test_a_run_counting_ranks_from_zero_pools_depth_documents_like_any_other() -> None:
    # Ranks 0, 1, 2 (as many TREC runs write them): depth 2 takes the first two documents,
    # not the ranks up to 2.
    rows = [(0, 3.0, "d-a"), (1, 2.0, "d-b"), (2, 1.0, "d-c")]
    assert pooled_posts(rows, 2) == [("d-a", 0), ("d-b", 1)]
