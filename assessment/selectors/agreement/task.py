"""A task's agreement: official, dual and machine judges' grades, overall and per topic."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from django.db.models import F, Max, Min

from assessment.core.agreement import kappa_of_pairs, shared_hits
from assessment.core.agreement_tables import pairwise_agreements, pooled_pairs
from assessment.models import Assignment, Judgment
from assessment.selectors.agreement.table import (
    AgreementTable,
    Ratings,
    scale_points,
    table_compute,
)
from collection.models import RetrievalTask
from kernel.core.ordering import natural_key


def _work_assignments(
    task: RetrievalTask, *, machines: bool = True
) -> tuple[dict[int, str], set[int]]:
    """The task's official and dual assignments (revoked ones too: a judgment counts for who
    made it) and, with ``machines``, its machine judges' ones, as assignment id -> topic
    number; and the ids of the task's machine judges' assignments (taking part or not)."""
    purposes = [Assignment.Purpose.OFFICIAL, Assignment.Purpose.DUAL, Assignment.Purpose.MACHINE]
    rows = Assignment.objects.filter(topic__task=task, purpose__in=purposes).values_list(
        "pk", "topic__number", "purpose"
    )
    found, machine_ids = {}, set()
    for pk, number, purpose in rows:
        is_machine = purpose == Assignment.Purpose.MACHINE
        if is_machine:
            machine_ids.add(pk)
        if machines or not is_machine:
            found[pk] = number
    return found, machine_ids


def _work_judgments(task: RetrievalTask, assignments: dict[int, str] | None = None):  # type: ignore[no-untyped-def]
    """Judgments of the task's official and dual assignments. Filtering by the assignment ids,
    fetched first, spares the database two joins on every judgment row."""
    ids = list(assignments if assignments is not None else _work_assignments(task)[0])
    return Judgment.objects.filter(assignment_id__in=ids)


def _shared_hits(judgments):  # type: ignore[no-untyped-def]
    """Hits judged by two or more assessors; min < max is a hash aggregate, where counting
    distinct assessors would sort every judgment of the task."""
    return (
        judgments.values("hit_id")
        .annotate(low=Min("assessor_id"), high=Max("assessor_id"))
        .filter(low__lt=F("high"))
        .values("hit_id")
    )


def task_agreement(
    *, task: RetrievalTask, with_ci: bool = False, machine_judges: bool = True
) -> AgreementTable:
    """Agreement between the assessors of a task's official and dual assessments, over the
    task and per topic.

    Its machine judges take part as more assessors, named "machine: NAME",
    unless ``machine_judges`` is off (the people's agreement alone). Only hits graded by two
    or more assessors can show (dis)agreement, so the database returns just those (a grouped
    subquery), in one query (plus the assignments and names).
    """
    assignments, machine_ids = _work_assignments(task, machines=machine_judges)
    graded = _work_judgments(task, assignments).filter(grade__isnull=False)
    shared_ids = _shared_hits(graded)
    rows = graded.filter(hit_id__in=shared_ids).values_list(
        "assessor_id", "hit_id", "grade", "assignment_id"
    )
    ratings: Ratings = defaultdict(dict)
    people: Ratings = defaultdict(dict)  # the same without machine judges
    by_topic: dict[str, Ratings] = defaultdict(lambda: defaultdict(dict))
    for assessor_id, hit_id, grade, assignment_id in rows:
        ratings[assessor_id][hit_id] = grade  # type: ignore[assignment]
        if assignment_id not in machine_ids:
            people[assessor_id][hit_id] = grade  # type: ignore[assignment]
        by_topic[assignments[assignment_id]][assessor_id][hit_id] = grade  # type: ignore[assignment]
    scale = scale_points(task)
    pooled = pooled_pairs(ratings)
    level = scale.relevant_from
    binary = [(int(a >= level), int(b >= level)) for a, b in pooled]
    table = replace(
        table_compute(ratings, scale=scale, with_ci=with_ci, seed=task.pool_seed),
        pooled=(
            kappa_of_pairs(pooled, categories=scale.categories),
            kappa_of_pairs(binary, categories=(0, 1)),
        ),
        has_machine_judges=bool(machine_ids),
        shared_hits=len(shared_hits(ratings)),
        people_shared_hits=len(shared_hits(people)),
    )
    for topic in sorted(by_topic, key=natural_key):
        table.per_topic.extend(
            (topic, pair)
            for pair in pairwise_agreements(
                by_topic[topic], categories=scale.categories, relevant_from=scale.relevant_from
            )
        )
    return table
