"""Dual assessment: a second, blind assessment of a topic by another assessor.

ARQMath's dual assessment: the second assessor is never the official one, and neither sees
the other's judgments; the topics are chosen by hand or as a seeded sample.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

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


def _dual_candidates(
    topic_ids: Sequence[int], assessors: Sequence[User]
) -> tuple[dict[int, int], dict[int, int], list[str]]:
    """Official assessor per topic, current dual load per assessor, and topics not eligible."""
    official = dict(
        active(Assignment.objects)
        .filter(topic_id__in=topic_ids, purpose=Assignment.Purpose.OFFICIAL)
        .values_list("topic_id", "assessor_id")
    )
    has_dual = set(
        active(Assignment.objects)
        .filter(topic_id__in=topic_ids, purpose=Assignment.Purpose.DUAL)
        .values_list("topic_id", flat=True)
    )
    numbers = dict(Topic.objects.filter(pk__in=topic_ids).values_list("pk", "number"))
    problems = [
        f"{numbers[t]} has no official assessor yet" for t in topic_ids if t not in official
    ]
    problems += [f"{numbers[t]} is already dual-assessed" for t in topic_ids if t in has_dual]
    load_rows = (
        active(Assignment.objects)
        .filter(purpose=Assignment.Purpose.DUAL, assessor__in=assessors)
        .values("assessor_id")
        .annotate(n=Count("id"))
        .values_list("assessor_id", "n")
    )
    loads = {a.pk: 0 for a in assessors}
    loads.update(dict(load_rows))
    return official, loads, problems


def _dual_sample(task: RetrievalTask, sample_size: int | None, rng: random.Random) -> list[int]:
    """A seeded sample of the task's officially assigned topics not yet dual-assessed."""
    if not sample_size or sample_size < 1:
        raise AssignmentError(["choose topics or a sample size"])
    eligible = list(
        active(Assignment.objects)
        .filter(topic__task=task, purpose=Assignment.Purpose.OFFICIAL)
        .exclude(
            topic_id__in=active(Assignment.objects)
            .filter(purpose=Assignment.Purpose.DUAL)
            .values("topic_id")
        )
        .order_by("topic_id")
        .values_list("topic_id", flat=True)
    )
    return sorted(rng.sample(eligible, min(sample_size, len(eligible))))


def _dual_plan(
    topic_ids: Sequence[int],
    official: dict[int, int],
    loads: dict[int, int],
    problems: list[str],
    rng: random.Random,
) -> dict[int, int]:
    """Topic -> second assessor: the least-loaded one who is not the official assessor."""
    plan: dict[int, int] = {}
    for topic_id in topic_ids:
        if topic_id not in official:
            continue
        candidates = [a for a in loads if a != official[topic_id]]
        if not candidates:
            problems.append(f"topic {topic_id}: no assessor other than the official one")
            continue
        least = min(loads[a] for a in candidates)
        chosen = rng.choice([a for a in candidates if loads[a] == least])
        plan[topic_id] = chosen
        loads[chosen] += 1
    return plan


@transaction.atomic
def dual_assignments_create(
    *,
    task: RetrievalTask,
    assessors: Sequence[User],
    created_by: User | None,
    topics: Sequence[Topic] | None = None,
    sample_size: int | None = None,
    seed: int | None = None,
) -> list[Assignment]:
    """Give topics a second, blind assessment by another assessor (ARQMath's dual assessment).

    Either the ``topics`` chosen, or a seeded random sample of ``sample_size`` of the task's
    officially assigned, not yet dual-assessed topics. Each goes to the least-loaded of
    ``assessors`` other than its official assessor (ties broken by the seeded RNG).
    """
    machines_refuse(assessors)
    rng = random.Random(task.pool_seed if seed is None else seed)  # noqa: S311 (seeded sample)
    topic_ids = _dual_sample(task, sample_size, rng) if topics is None else [t.pk for t in topics]
    if not topic_ids:
        raise AssignmentError(["no topic is eligible for dual assessment"])
    official, loads, problems = _dual_candidates(topic_ids, assessors)
    plan = _dual_plan(topic_ids, official, loads, problems, rng)
    if problems:
        raise AssignmentError(problems)
    by_id = {a.pk: a for a in assessors}
    return assignments_insert(
        Assignment(
            topic_id=topic_id,
            assessor=by_id[assessor_id],
            purpose=Assignment.Purpose.DUAL,
            created_by=created_by,
        )
        for topic_id, assessor_id in plan.items()
    )
