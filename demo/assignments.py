"""Demo step: the demo assessors alice and bob get official topics of every task to judge.

``demo_assign(campaign)`` makes sure each of them holds, in the answer and the formula task
(and the document task of the TREC-style demo), official assignments with work left, so
logging in as alice (password alice-demo) opens /assess/ on topics ready to judge. Pools are
built first where the demo has none. Idempotent: topics they already hold count, and nothing
is assigned twice. ``colleagues_take_over`` gives the rest to the simulated colleagues.
"""

from __future__ import annotations

import random

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count

from assessment.models import Assignment
from assessment.services.assignments import (
    assignments_balance,
    assignments_create,
    dual_assignments_create,
)
from collection.models import Campaign, RetrievalTask, Topic
from pooling.models import PoolItem
from pooling.services.pools import pool_build

__all__ = [
    "DEMO_ASSESSORS",
    "TOPICS_EACH",
    "colleagues_take_over",
    "demo_assign",
    "first_unjudged_assignments",
]

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


def _assign_task(
    task: RetrievalTask, assessors: list[User], organizer: User | None, topics_each: int
) -> int:
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
        wanted = max(0, topics_each - held)
        topics, free = free[:wanted], free[wanted:]
        if topics:
            made += len(assignments_create(topics=topics, assessor=assessor, created_by=organizer))
    return made


def demo_assign(campaign: Campaign | None, *, topics_each: int = TOPICS_EACH) -> str:
    """Give alice and bob ``topics_each`` official assignments in each of the campaign's
    answer, formula and document tasks."""
    if campaign is None:
        return "no campaign: skipped the assessors' assignments"
    assessors = list(User.objects.filter(username__in=DEMO_ASSESSORS).order_by("username"))
    if not assessors:
        return "no demo assessors: skipped their assignments"
    organizer = User.objects.filter(is_staff=True).order_by("id").first()
    kinds = (RetrievalTask.Kind.ANSWER, RetrievalTask.Kind.FORMULA, RetrievalTask.Kind.DOCUMENT)
    made = 0
    with transaction.atomic():
        for task in campaign.tasks.filter(kind__in=kinds).order_by("kind", "name"):
            made += _assign_task(task, assessors, organizer, topics_each)
    names = " and ".join(a.username for a in assessors)
    return f"  {made} new official assignments for {names} (log in and open /assess/)"


def first_unjudged_assignments(task: RetrievalTask, people: list[User]) -> list[Assignment]:
    """Each person's first active official assignment in the task that has no judgment."""
    first: dict[int, Assignment] = {}
    for assignment in Assignment.objects.filter(
        topic__task=task,
        purpose=Assignment.Purpose.OFFICIAL,
        revoked_at__isnull=True,
        assessor__in=people,
        judgments__isnull=True,
    ).order_by("topic_id"):
        first.setdefault(assignment.assessor_id, assignment)
    return list(first.values())


def colleagues_take_over(
    task: RetrievalTask, simulated: list[User], organizer: User | None, rng: random.Random
) -> tuple[list[Assignment], list[Assignment]]:
    """The simulated colleagues take the topics nobody holds and dual-assess about a third of
    each other's; returns (their official assignments, the dual ones)."""
    assignments_balance(task=task, assessors=simulated, created_by=organizer)
    official = list(
        Assignment.objects.filter(
            topic__task=task,
            purpose=Assignment.Purpose.OFFICIAL,
            revoked_at__isnull=True,
            assessor__in=simulated,
        ).order_by("topic_id")
    )
    chosen = rng.sample(official, max(1, round(len(official) * 0.35))) if official else []
    if not chosen or len(simulated) < 2:
        return official, []
    duals = dual_assignments_create(
        task=task,
        assessors=simulated,
        created_by=organizer,
        topics=[a.topic for a in chosen],
        seed=rng.randrange(1_000_000),
    )
    return official, duals
