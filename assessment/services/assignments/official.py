"""Official assignments: topics given to an assessor by hand, or balanced by pool size.

Each topic has one active official assignment; balancing spreads a task's
unassigned topics so the hits each assessor holds are even.
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count

from assessment.models import Assignment
from assessment.services.assignments.rules import (
    AssignmentError,
    active,
    assignments_insert,
    machines_refuse,
)
from collection.models import RetrievalTask, Topic
from pooling.models import Hit

T = TypeVar("T", bound=Hashable)
U = TypeVar("U", bound=Hashable)


def balance_plan(sizes: Mapping[T, int], loads: Mapping[U, int]) -> dict[T, U]:
    """Greedy largest-first (LPT) balancing: the largest pool goes to the least-loaded assessor.

    ``sizes`` maps each topic to its pool size (hits), ``loads`` each assessor to the hits they
    already hold. Ties go to the topic/assessor given first, so a plan is deterministic.
    LPT keeps the largest load within 4/3 of the optimum (Graham 1969).
    """
    if not loads:
        return {}
    order = {assessor: index for index, assessor in enumerate(loads)}
    heap = [(load, order[assessor], assessor) for assessor, load in loads.items()]
    heapq.heapify(heap)
    plan: dict[T, U] = {}
    topics = sorted(sizes, key=lambda t: -sizes[t])  # stable: equal sizes keep given order
    for topic in topics:
        load, index, assessor = heapq.heappop(heap)
        plan[topic] = assessor
        heapq.heappush(heap, (load + sizes[topic], index, assessor))
    return plan


def _hits_per_topic(topic_ids: Iterable[int]) -> dict[int, int]:
    rows = (
        Hit.objects.filter(item__topic_id__in=list(topic_ids))
        .values("item__topic_id")
        .annotate(n=Count("id"))
        .values_list("item__topic_id", "n")
    )
    return dict(rows)


@transaction.atomic
def assignments_create(
    *,
    topics: Sequence[Topic],
    assessor: User,
    created_by: User | None,
) -> list[Assignment]:
    """Give each topic to ``assessor`` as its official assignment.

    Refuses (nothing stored) if any topic already has an active official assignment, or if the
    assessor is that topic's dual assessor (they would see both sides).
    """
    machines_refuse([assessor])
    topic_ids = [t.pk for t in topics]
    taken = dict(
        active(Assignment.objects.select_for_update(of=("self",)))
        .filter(topic_id__in=topic_ids, purpose=Assignment.Purpose.OFFICIAL)
        .values_list("topic__number", "assessor__username")
    )
    problems = [f"{number} is already assigned to {who}" for number, who in sorted(taken.items())]
    duals = active(Assignment.objects).filter(
        topic_id__in=topic_ids, purpose=Assignment.Purpose.DUAL, assessor=assessor
    )
    problems += [
        f"{number} is dual-assessed by this assessor"
        for number in duals.values_list("topic__number", flat=True)
    ]
    if problems:
        raise AssignmentError(problems)
    return assignments_insert(
        Assignment(
            topic=topic,
            assessor=assessor,
            purpose=Assignment.Purpose.OFFICIAL,
            created_by=created_by,
        )
        for topic in topics
    )


@transaction.atomic
def assignments_balance(
    *,
    task: RetrievalTask,
    assessors: Sequence[User],
    created_by: User | None,
) -> list[Assignment]:
    """Spread the task's unassigned topics over ``assessors`` so their pool sizes are even.

    Topics with an empty pool are left alone (nothing to judge yet). Hits the assessors already
    hold in this task count towards their load, so balancing twice stays balanced.
    """
    if not assessors:
        raise AssignmentError(["choose at least one assessor"])
    machines_refuse(assessors)
    active_official = active(Assignment.objects.select_for_update(of=("self",))).filter(
        topic__task=task, purpose=Assignment.Purpose.OFFICIAL
    )
    held = list(active_official.values_list("topic_id", "assessor_id"))
    assigned_topics = {topic_id for topic_id, _ in held}
    open_topics = list(task.topics.exclude(pk__in=assigned_topics).order_by("id"))
    sizes_all = _hits_per_topic([t.pk for t in open_topics] + list(assigned_topics))
    loads = {a.pk: 0 for a in assessors}
    for topic_id, assessor_id in held:
        if assessor_id in loads:
            loads[assessor_id] += sizes_all.get(topic_id, 0)
    sizes = {t.pk: sizes_all[t.pk] for t in open_topics if sizes_all.get(t.pk, 0) > 0}
    plan = balance_plan(sizes, loads)
    by_id = {a.pk: a for a in assessors}
    topics = {t.pk: t for t in open_topics}
    return assignments_insert(
        Assignment(
            topic=topics[topic_id],
            assessor=by_id[assessor_id],
            purpose=Assignment.Purpose.OFFICIAL,
            created_by=created_by,
        )
        for topic_id, assessor_id in plan.items()
    )
