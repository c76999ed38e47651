"""Synthetic runs for pooling tests, loaded with bulk_insert, and a snapshot of stored pools."""

import random
from collections.abc import Sequence
from typing import Any, TypeVar

from collection.models import Formula, Post, RetrievalTask, Thread, Topic
from kernel.bulkload import bulk_insert
from pooling.models import Contribution, Hit, PoolItem, Run, RunRow
from tests.factories.collection import TopicFactory
from tests.factories.pooling import RunFactory, TeamFactory

FORMULA_FIELDS = [*("formula_id", "post_id", "thread_id", "location", "visual_id", "latex")]
FORMULA_FIELDS += ["old_visual_id", "issue"]
T = TypeVar("T")
ROW_FIELDS = ("run_id", "topic_id", "post_id", "formula_id", "rank", "score", "answer", "sources")


def make_topics(task: RetrievalTask, count: int, prefix: str = "A") -> list[Topic]:
    return [TopicFactory.create(task=task, number=f"{prefix}.{i + 1}") for i in range(count)]


def make_run(task: RetrievalTask, tag: str, role: str = Run.Role.PRIMARY, **fields: object) -> Run:
    team = TeamFactory.create(name=f"{task.campaign.name}-{tag}")
    return RunFactory.create(task=task, team=team, tag=tag, role=role, **fields)


def answer_rows(
    run: Run, topics: Sequence[Topic], *, rows: int, posts: int, seed: int
) -> dict[int, list[int]]:
    """Load ``rows`` distinct random posts per topic for ``run``; topic pk -> posts by rank."""
    rng = random.Random(seed)
    ranked = {topic.pk: rng.sample(range(1000, 1000 + posts), rows) for topic in topics}
    load_answer_rows(run, ranked)
    return ranked


def load_answer_rows(run: Run, ranked: dict[int, list[int]]) -> None:
    bulk_insert(
        RunRow,
        ROW_FIELDS,
        (
            (run.pk, topic_id, post, None, rank, 1000.0 - rank, "", "")
            for topic_id, posts in ranked.items()
            for rank, post in enumerate(posts, start=1)
        ),
    )
    Run.objects.filter(pk=run.pk).update(row_count=sum(len(p) for p in ranked.values()))


def formula_collection(formulas: int, visual_ids: int) -> dict[int, str]:
    """Threads of 3 posts with 2 formulas each; visual id = formula id mod ``visual_ids``."""
    posts = formulas // 2
    bulk_insert(
        Thread, ("id", "title", "tags"), ((t, f"T{t}", "[]") for t in range(posts // 3 + 1))
    )
    bulk_insert(
        Post,
        ("id", "thread_id", "kind", "body", "score"),
        ((p, p // 3, 2, f"<p>{p}</p>", 0) for p in range(posts)),
    )
    visual = {f: str(f % visual_ids) for f in range(formulas)}
    bulk_insert(
        Formula,
        (
            "formula_id",
            "post_id",
            "thread_id",
            "location",
            "visual_id",
            "latex",
            "old_visual_id",
            "issue",
        ),
        (
            (f, f // 2, (f // 2) // 3, "answer", visual[f], f"x_{f}", "", "")
            for f in range(formulas)
        ),
    )
    return visual


def load_formula_rows(run: Run, ranked: dict[int, list[int]]) -> None:
    bulk_insert(
        RunRow,
        ROW_FIELDS,
        (
            (run.pk, topic_id, fid // 2, fid, rank, 100.0 - rank, "", "")
            for topic_id, fids in ranked.items()
            for rank, fid in enumerate(fids, start=1)
        ),
    )


def pool_snapshot(task: RetrievalTask) -> list[tuple[Any, ...]]:
    """Everything a pool holds, keyed by topic number and run tag (not by database ids)."""
    items = PoolItem.objects.filter(topic__task=task)
    hits: dict[int, list[tuple[Any, ...]]] = {}
    for item_id, *hit in Hit.objects.filter(item__in=items).values_list(
        "item_id", "post_id", "formula_id", "position", "vote"
    ):
        hits.setdefault(item_id, []).append(tuple(hit))
    contributions: dict[int, list[tuple[str, int]]] = {}
    for item_id, tag, rank in Contribution.objects.filter(item__in=items).values_list(
        "item_id", "run__tag", "rank"
    ):
        contributions.setdefault(item_id, []).append((tag, rank))
    return sorted(
        (
            number,
            key,
            order,
            orphaned,
            tuple(sorted(hits.get(pk, []))),
            tuple(sorted(contributions.get(pk, []))),
        )
        for pk, number, key, order, orphaned in items.values_list(
            "id", "topic__number", "key", "display_order", "is_orphaned"
        )
    )


def first_distinct(posts: Sequence[T], depth: int) -> list[T]:
    seen: list[T] = []
    for post in posts:
        if post not in seen:
            seen.append(post)
    return seen[:depth]
