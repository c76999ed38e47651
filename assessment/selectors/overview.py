"""Lists for the organizer's overview and assignment pages: campaigns with a line per task,
active assignments with their progress, and the people who can be given topics.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth.models import User
from django.db.models import Count

from assessment.access import assessor_candidates
from assessment.models import Assignment, Judgment
from assessment.selectors.handover import counted_judgments
from assessment.selectors.progress import (
    Progress,
    official_item_counts,
    scope_emptied,
    with_covered_hits,
)
from assessment.selectors.scopes import OutsideScope, outside_scopes
from collection.models import Campaign, RetrievalTask, Topic
from pooling.models import Hit, PoolItem, Run

__all__ = [
    "AssignmentRow",
    "TaskSummary",
    "assessor_choices",
    "assignment_rows",
    "campaign_overview",
]

WORK = [Assignment.Purpose.OFFICIAL, Assignment.Purpose.DUAL]


@dataclass
class TaskSummary:
    task: RetrievalTask
    topics: int = 0
    runs: int = 0
    hits: int = 0
    assigned_topics: int = 0
    judged: int = 0
    items: int = 0  # counted for formula tasks only: elsewhere an item is one hit
    judged_items: int = 0
    # What scoped official assignments leave out of their topics (``selectors.scopes``):
    # progress counts a scoped topic's scope only.
    outside: list[OutsideScope] = field(default_factory=list)

    @property
    def percent(self) -> float:
        progress = self.progress
        return 100.0 * progress.judged_hits / progress.hits if progress.hits else 0.0

    @property
    def progress(self) -> Progress:
        """Official progress: every topic's pool, or its scope when its official assignment is
        scoped (``hits`` stays the whole pool)."""
        return Progress(
            self.task.kind,
            self.judged_items - sum(o.judged_items for o in self.outside),
            self.items - sum(o.items for o in self.outside),
            self.judged - sum(o.judged for o in self.outside),
            self.hits - sum(o.hits for o in self.outside),
        )


def campaign_overview() -> list[tuple[Campaign, list[TaskSummary]]]:
    """Every campaign with a line per task: eight grouped queries whatever the size (two more
    with a scoped assignment)."""
    tasks = list(RetrievalTask.objects.select_related("campaign").order_by("campaign_id", "id"))
    summaries = {t.pk: TaskSummary(t) for t in tasks}

    def fill(rows: Iterable[tuple[int, int]], attribute: str) -> None:
        for task_id, n in rows:
            setattr(summaries[task_id], attribute, n)

    fill(
        Topic.objects.values("task_id").annotate(n=Count("id")).values_list("task_id", "n"),
        "topics",
    )
    fill(
        Run.objects.filter(status=Run.Status.ACCEPTED)
        .values("task_id")
        .annotate(n=Count("id"))
        .values_list("task_id", "n"),
        "runs",
    )
    fill(
        Hit.objects.values("item__topic__task_id")
        .annotate(n=Count("id"))
        .values_list("item__topic__task_id", "n"),
        "hits",
    )
    fill(
        Assignment.objects.filter(purpose=Assignment.Purpose.OFFICIAL, revoked_at__isnull=True)
        .values("topic__task_id")
        .annotate(n=Count("id"))
        .values_list("topic__task_id", "n"),
        "assigned_topics",
    )
    fill(
        Judgment.objects.filter(
            counted_judgments(), assignment__purpose=Assignment.Purpose.OFFICIAL
        )
        .values("assignment__topic__task_id")
        .annotate(n=Count("id"))
        .values_list("assignment__topic__task_id", "n"),
        "judged",
    )
    formula_items = PoolItem.objects.filter(topic__task__kind=RetrievalTask.Kind.FORMULA)
    for task_id, (n, done) in official_item_counts(formula_items, "topic__task_id").items():
        summaries[task_id].items, summaries[task_id].judged_items = n, done
    officials = Assignment.objects.filter(purpose=Assignment.Purpose.OFFICIAL)
    for out in outside_scopes(officials).values():
        summaries[out.task_id].outside.append(out)
    grouped: dict[int, tuple[Campaign, list[TaskSummary]]] = {}
    for task in tasks:
        grouped.setdefault(task.campaign_id, (task.campaign, []))[1].append(summaries[task.pk])
    return list(grouped.values())


def assessor_choices() -> list[User]:
    """The people who can be given topics (kernel.access.assessor_candidates), for a form."""
    return list(assessor_candidates())


@dataclass
class AssignmentRow:
    """An active official or dual assignment with its progress, for the assignment page."""

    assignment_id: int
    topic_id: int
    topic: str
    assessor: str
    purpose: str
    judged: int
    created_at: datetime
    hits: int  # the hits it covers: its topic's, or its scope's when scoped
    scoped: bool

    @property
    def closed(self) -> bool:
        """Its scope was emptied: the assessor sees it as closed (``scope_emptied``)."""
        return scope_emptied(scoped=self.scoped, hits=self.hits)


def assignment_rows(*, task: RetrievalTask) -> list[AssignmentRow]:
    """Active official and dual assignments of the task with the hits each covers and how many
    are judged (after a continue-move, the earlier assessors' judgments count as done; a
    scoped assignment counts its scope only): one query."""
    active = Assignment.objects.filter(topic__task=task, purpose__in=WORK, revoked_at__isnull=True)
    rows = (
        with_covered_hits(active)
        .order_by("topic_id", "purpose")
        .values_list(
            "pk",
            "topic_id",
            "topic__number",
            "assessor__username",
            "purpose",
            "n_judged",
            "created_at",
            "n_total",
            "scoped",
        )
    )
    return [AssignmentRow(*row) for row in rows]
