"""The next item of an adaptive budgeted pool, added when an assessor asks for it.

An adaptive strategy (mtf, mm, mm-ns, hybrid) chooses each next document from the topic's judgments
so far, so its pool grows one item at a time as judging goes (``pooling.services
.strategy_pools`` writes the first). The judgments are the caller's to read (they live in the
assessment app): ``pool_next_item_add`` gets them as (docno, relevant) pairs in the order they
were made, and must run in the transaction that took the topic's pool lock first
(``pooling.locks``), so two assessors asking at once get the same next item, never two.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Max

from collection.models import Topic
from pooling.core.algorithms import PlannedItem
from pooling.core.algorithms.strategies import fusion_start, ranks_needed
from pooling.core.algorithms.strategies.allocation import (
    TopicTally,
    task_share_allows,
    topic_tally,
)
from pooling.core.algorithms.strategies.priority import PoolStrategy, adaptive_next
from pooling.models import Contribution, Hit, PoolBuild, PoolItem
from pooling.selectors.pool_inputs import document_ids, pooled_runs
from pooling.selectors.strategy_inputs import topics_with_unpooled
from pooling.selectors.topic_rankings import (
    KeptRankings,
    topic_rankings,
    topic_rankings_forget,
)


@dataclass(frozen=True)
class TaskJudging:
    """What sharing a task budget reads from the assessment app: topic id -> its judgments
    (relevant or not) in the order they were made, and the topics an assessor judges."""

    judged: Mapping[int, Sequence[bool]]
    assessed: frozenset[int]


def budget_left(spec: PoolStrategy, topic: Topic, judging: TaskJudging | None = None) -> int:
    """Judgments the budget still allows for ``topic``: its own, or the task's that are left.

    With ``judging``, a task budget is shared by expected gain (``strategies.allocation``): 0
    when the topic has had its share for now and no budget sits idle, though the task has
    judgments left. The one rule both the next item and "more to come" ask."""
    if spec.scope == "topic":
        return max(spec.budget - PoolItem.objects.filter(topic=topic).count(), 0)
    spent = dict(
        PoolItem.objects.filter(topic__task_id=topic.task_id)
        .values_list("topic_id")
        .annotate(items=Count("id"))
    )
    left = max(spec.budget - sum(spent.values()), 0)
    if judging is None or not left:
        return left
    topic_ids = list(Topic.objects.filter(task_id=topic.task_id).values_list("pk", flat=True))
    tallies: dict[str | int, TopicTally] = {
        pk: topic_tally(spent.get(pk, 0), judging.judged.get(pk, ())) for pk in topic_ids
    }
    if task_share_allows(topic.pk, tallies, spec.budget):
        return left
    # Had its share: is budget idle? Only a topic no one judges, or one whose runs are
    # exhausted, frees any (and either only ever allows more), so they are read only now.
    others = [pk for pk in topic_ids if pk != topic.pk]
    task = topic.task
    run_ids = [s.run_id for s in pooled_runs(task).specs]
    unpooled = topics_with_unpooled(
        run_ids, others, kind=task.kind, collection_id=task.collection_id
    )
    for pk in others:
        tallies[pk].assessed = pk in judging.assessed
        tallies[pk].exhausted = pk not in unpooled
    return left if task_share_allows(topic.pk, tallies, spec.budget) else 0


def pool_next_item_add(
    *,
    topic: Topic,
    spec: PoolStrategy,
    build: PoolBuild | None,
    judged: Sequence[tuple[str, bool]],
    judging: TaskJudging | None = None,
    rankings: KeptRankings | None = None,
) -> PoolItem | None:
    """The item of the strategy's next document for ``topic`` after ``judged``, added to the
    pool if it is not there yet; None when the budget (a task budget: the topic's share of it,
    given ``judging``, see ``budget_left``) is spent or the runs hold nothing more.
    ``rankings``: what ``pool_next_item_prepare`` read before the lock, if it did.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("pool_next_item_add runs in the transaction that holds the pool lock")
    if budget_left(spec, topic, judging) <= 0:
        return None
    planned = _next_planned(topic, spec, judged, rankings)
    if planned is None:
        return None
    stored = PoolItem.objects.filter(topic=topic, key=planned.key).first()
    if stored is not None:  # judged under another strategy, or handed out already
        return stored
    last = PoolItem.objects.filter(topic=topic).aggregate(last=Max("display_order"))["last"]
    item = PoolItem.objects.create(
        topic=topic,
        key=planned.key,
        post_id=planned.post_id,
        document_id=planned.document_id,
        display_order=(last or 0) + 1,
        entered_build=build,
    )
    Hit.objects.create(
        item=item,
        post_id=planned.post_id,
        document_id=planned.document_id,
        position=0,
        vote=planned.vote,
    )
    Contribution.objects.bulk_create(
        Contribution(item=item, run_id=run_id, rank=rank)
        for run_id, rank in planned.contributions.items()
    )
    return item


def _next_planned(
    topic: Topic,
    spec: PoolStrategy,
    judged: Sequence[tuple[str, bool]],
    known: KeptRankings | None,
) -> PlannedItem | None:
    """The strategy's next document for ``topic`` as an item to add (whether the pool holds
    it already or not); None when the runs hold nothing more that can be pooled."""
    task = topic.task
    # Each run's prefix that decides the next document exactly as its whole ranking would,
    # cut from the rankings kept since the topic's first ask (the runs' rows are not re-read).
    depth = ranks_needed(spec.strategy, len(judged))
    start = fusion_start(spec.strategy, len(judged))
    for _attempt in range(2):
        rankings = _rankings(topic, known).at(depth, start)
        docno = adaptive_next(
            spec, topic.number, rankings.cut.ranked[topic.number], judged, rankings.head
        )
        if docno is None:
            return None
        # Its ranks in the whole runs, not the prefixes: a run may have retrieved it lower down.
        contributions = rankings.whole.contributions(topic.number, docno)
        if task.kind == "answer":  # a post: its id is the key
            return PlannedItem(docno, contributions, post_id=int(docno))
        ids = document_ids(task.collection_id, {docno}) if task.collection_id else {}
        if docno in ids:
            return PlannedItem(docno, contributions, document_id=ids[docno])
        # The collection lost it since the rankings were kept (they walk past documents it
        # did not hold when read): read them again, and the strategy walks past it too.
        topic_rankings_forget(topic.pk)
        known = None
    return None


def _rankings(topic: Topic, known: KeptRankings | None = None) -> KeptRankings:
    task = topic.task
    return topic_rankings(
        pooled_runs(task),
        (topic.pk, topic.number),
        kind=task.kind,
        collection_id=task.collection_id,
        known=known,
    )


def pool_next_item_prepare(*, topic: Topic, spec: PoolStrategy) -> KeptRankings | None:
    """What the topic's next item needs and no pool lock guards, read before the lock is
    taken, for ``pool_next_item_add``: the runs' rankings (a topic's first ask reads every
    row its runs hold) and, for ``hybrid``, its fused head. Run rows are not what the pool
    lock guards (a run changes by a new version), so nobody's ask or submit need wait for
    this read; ``pool_next_item_add`` checks the runs again under the lock and reads anew
    if one changed in between."""
    if not spec.adaptive:
        return None
    rankings = _rankings(topic)
    rankings.at(None, fusion_start(spec.strategy, 0))  # hybrid: its head, fused and kept
    return rankings
