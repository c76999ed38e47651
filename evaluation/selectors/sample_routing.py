"""Where a drawn human sample stands with the assessors: which pool items its drawn qrels ids
are, which still wait for a person, and how many are in some assessor's queue.

A drawn item is a qrels id (topic number, item): the pool item's key, or in a formula task the
formula id of one of its hits (the qrels of ARQMath's formula task are per formula instance).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q

from assessment.models import Assignment, AssignmentItem
from collection.models import RetrievalTask
from evaluation.models import HumanSample
from evaluation.selectors.human_sample import people_item_grades
from pooling.models import Hit, PoolItem

__all__ = ["SampleRouting", "drawn_pool_items", "sample_routing"]


def drawn_pool_items(sample: HumanSample) -> dict[tuple[str, str], tuple[int, int]]:
    """(topic number, qrels id) of each drawn item -> (topic id, pool item id), for the drawn
    items the pool still holds (two queries)."""
    task = sample.task
    drawn = set(sample.items.values_list("topic", "item"))
    if not drawn:
        return {}
    numbers = sorted({t for t, _ in drawn})
    found: dict[tuple[str, str], tuple[int, int]] = {}
    if task.kind == RetrievalTask.Kind.FORMULA:
        rows = Hit.objects.filter(
            item__topic__task=task, item__topic__number__in=numbers, formula_id__isnull=False
        ).values_list("item__topic__number", "formula_id", "item__topic_id", "item_id")
        for number, formula_id, topic_id, item_id in rows.iterator(chunk_size=5000):
            key = (number, str(formula_id))
            if key in drawn:
                found[key] = (topic_id, item_id)
        return found
    keys = sorted({i for _, i in drawn})
    items = PoolItem.objects.filter(
        topic__task=task, topic__number__in=numbers, key__in=keys
    ).values_list("topic__number", "key", "topic_id", "pk")
    for number, item_key, topic_id, item_id in items.iterator(chunk_size=5000):
        if (number, item_key) in drawn:
            found[(number, item_key)] = (topic_id, item_id)
    return found


@dataclass(frozen=True)
class SampleRouting:
    """A sample's drawn items: still in the pool, judged by people (the final qrels hold them),
    in an assessor's queue (an active official assignment reaches them), and the pool items
    (topic id -> item ids) no person has judged yet."""

    in_pool: int
    judged: int
    queued: int
    waiting: dict[int, list[int]]


def sample_routing(sample: HumanSample) -> SampleRouting:
    """Where ``sample``'s drawn items stand (a fixed number of queries)."""
    pool = drawn_pool_items(sample)
    people = people_item_grades(sample.task)
    waiting: dict[int, list[int]] = {}
    for key, (topic_id, item_id) in pool.items():
        if key not in people:
            waiting.setdefault(topic_id, []).append(item_id)
    item_ids = [item_id for _, item_id in pool.values()]
    officials = Assignment.objects.filter(
        topic__task=sample.task, purpose=Assignment.Purpose.OFFICIAL, revoked_at__isnull=True
    )
    whole_topics = set(officials.filter(scoped=False).values_list("topic_id", flat=True))
    scoped_items = set(
        AssignmentItem.objects.filter(
            Q(assignment__in=officials.filter(scoped=True)), item_id__in=item_ids
        ).values_list("item_id", flat=True)
    )
    queued = sum(
        1
        for topic_id, item_id in pool.values()
        if topic_id in whole_topics or item_id in scoped_items
    )
    return SampleRouting(
        in_pool=len(pool), judged=len(people.keys() & pool.keys()), queued=queued, waiting=waiting
    )
