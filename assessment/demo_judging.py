"""Demo step: the demo assessors alice and bob get official topics of every task to judge.

``demo_assign(campaign)`` makes sure each of them holds, in the answer and the formula task,
official assignments with work left, so logging in as alice (password alice-demo) opens
/assess/ on topics ready to judge. Pools are built first where the demo has none. Idempotent:
topics they already hold count, and nothing is assigned twice.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count

from assessment.models import Assignment
from assessment.services.assignments import assignments_create
from collection.models import Campaign, RetrievalTask, Topic
from pooling.models import PoolItem
from pooling.services.pools import pool_build

__all__ = ["DEMO_ASSESSORS", "TOPICS_EACH", "demo_assign"]

DEMO_ASSESSORS = ("alice", "bob")
TOPICS_EACH = 2  # per assessor and task: enough to try the page, small enough to finish


def _free_topics(task: RetrievalTask) -> list[Topic]:
    """Topics with a pool and no active official assessor, smallest pools first."""
    taken = Assignment.objects.filter(
        topic__task=task, purpose=Assignment.Purpose.OFFICIAL, revoked_at__isnull=True
    ).values("topic_id")
    dual = Assignment.objects.filter(
        topic__task=task, purpose=Assignment.Purpose.DUAL, revoked_at__isnull=True
    ).values("topic_id")
    return list(
        task.topics.exclude(pk__in=taken)
        .exclude(pk__in=dual)  # nobody judges both sides of a dual-assessed topic
        .annotate(n_hits=Count("pool_items__hits"))
        .filter(n_hits__gt=0)
        .order_by("n_hits", "id")
    )


def _assign_task(task: RetrievalTask, assessors: list[User], organizer: User | None) -> int:
    if not PoolItem.objects.filter(topic__task=task).exists():
        pool_build(task=task)
    free = _free_topics(task)
    made = 0
    for assessor in assessors:
        held = Assignment.objects.filter(
            topic__task=task,
            assessor=assessor,
            purpose=Assignment.Purpose.OFFICIAL,
            revoked_at__isnull=True,
        ).count()
        wanted = max(0, TOPICS_EACH - held)
        topics, free = free[:wanted], free[wanted:]
        if topics:
            made += len(assignments_create(topics=topics, assessor=assessor, created_by=organizer))
    return made


def demo_assign(campaign: Campaign | None) -> str:
    """Give alice and bob official assignments in the campaign's answer and formula tasks."""
    if campaign is None:
        return "no campaign: skipped the assessors' assignments"
    assessors = list(User.objects.filter(username__in=DEMO_ASSESSORS).order_by("username"))
    if not assessors:
        return "no demo assessors: skipped their assignments"
    organizer = User.objects.filter(is_staff=True).order_by("id").first()
    kinds = (RetrievalTask.Kind.ANSWER, RetrievalTask.Kind.FORMULA)
    made = 0
    with transaction.atomic():
        for task in campaign.tasks.filter(kind__in=kinds).order_by("kind"):
            made += _assign_task(task, assessors, organizer)
    names = " and ".join(a.username for a in assessors)
    return f"  {made} new official assignments for {names} (log in and open /assess/)"
