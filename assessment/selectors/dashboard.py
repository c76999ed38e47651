"""What the organizer's dashboard shows, in a fixed number of grouped queries (issue 6 §6).

Progress per topic and per assessor, time per judgment, the relevance distribution, topics at
risk (fewer than 2 H+M items so far: ARQMath dropped such topics) and assessors to look at
(a median under 5 s per judgment, or a flag rate far above the others').
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime

from django.contrib.auth.models import User
from django.db import connection
from django.db.models import Aggregate, Avg, Case, Count, FloatField, IntegerField, Max, Q, When
from django.db.models.functions import TruncDate

from assessment.models import Assignment, Judgment
from collection.models import Campaign, RetrievalTask, Topic
from pooling.models import Hit, PoolBuild, PoolItem, Run

__all__ = [
    "FAST_MEDIAN_SECONDS",
    "HISTOGRAM_EDGES",
    "AssessorProgress",
    "AssignmentRow",
    "TaskDashboard",
    "TaskSummary",
    "TopicProgress",
    "assessor_choices",
    "assignment_rows",
    "campaign_overview",
    "task_dashboard",
]

FAST_MEDIAN_SECONDS = 5.0
MIN_JUDGMENTS_TO_FLAG = 10
HISTOGRAM_EDGES = (0, 2, 5, 10, 20, 40, 60, 120, 300)  # seconds; last bucket is open
WORK = [Assignment.Purpose.OFFICIAL, Assignment.Purpose.DUAL]


class Median(Aggregate):
    """PostgreSQL's exact median; other databases compute it in Python (see _medians)."""

    function = "percentile_cont"
    template = "%(function)s(0.5) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()


@dataclass
class TopicProgress:
    topic_id: int
    number: str
    title: str
    hits: int = 0
    judged: int = 0
    assessor: str | None = None
    dual_assessor: str | None = None
    last_activity: datetime | None = None
    grades: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # N, L, M, H counts
    flags: int = 0

    @property
    def relevant(self) -> int:
        """H+M-relevant judgments so far."""
        return self.grades[2] + self.grades[3]

    @property
    def at_risk(self) -> bool:
        """ARQMath dropped topics with fewer than 2 H+M-relevant items."""
        return self.hits > 0 and self.relevant < 2

    @property
    def percent(self) -> float:
        return 100.0 * self.judged / self.hits if self.hits else 0.0


@dataclass
class AssessorProgress:
    assessor_id: int
    name: str
    assigned_hits: int = 0
    judged: int = 0
    judgments: int = 0  # made by this assessor in the task, wherever they are now
    flags: int = 0
    last_activity: datetime | None = None
    mean_seconds: float | None = None
    median_seconds: float | None = None
    reasons: list[str] = field(default_factory=list)

    @property
    def flag_rate(self) -> float:
        return self.flags / self.judgments if self.judgments else 0.0

    @property
    def percent(self) -> float:
        return 100.0 * self.judged / self.assigned_hits if self.assigned_hits else 0.0


@dataclass
class TaskDashboard:
    task: RetrievalTask
    runs: dict[str, int]
    pool_items: int
    pool_hits: int
    last_build: PoolBuild | None
    topics: list[TopicProgress]
    assessors: list[AssessorProgress]
    progress: list[tuple[date, int]]  # cumulative judgments per day
    histogram: list[tuple[str, int]]

    @property
    def at_risk(self) -> list[TopicProgress]:
        return [t for t in self.topics if t.at_risk]

    @property
    def to_look_at(self) -> list[AssessorProgress]:
        return [a for a in self.assessors if a.reasons]

    @property
    def judged(self) -> int:
        return sum(t.judged for t in self.topics)

    @property
    def percent(self) -> float:
        return 100.0 * self.judged / self.pool_hits if self.pool_hits else 0.0


def _task_judgments(task: RetrievalTask):  # type: ignore[no-untyped-def]
    return Judgment.objects.filter(assignment__topic__task=task, assignment__purpose__in=WORK)


def _topics(task: RetrievalTask) -> dict[int, TopicProgress]:
    rows = (
        Topic.objects.filter(task=task)
        .annotate(n_hits=Count("pool_items__hits"))
        .order_by("id")
        .values_list("pk", "number", "title", "n_hits")
    )
    return {pk: TopicProgress(pk, number, title, hits) for pk, number, title, hits in rows}


def _apply_assignments(
    task: RetrievalTask, topics: dict[int, TopicProgress]
) -> dict[int, AssessorProgress]:
    rows = Assignment.objects.filter(
        topic__task=task, purpose__in=WORK, revoked_at__isnull=True
    ).values_list("topic_id", "assessor_id", "assessor__username", "purpose")
    people: dict[int, AssessorProgress] = {}
    for topic_id, assessor_id, username, purpose in rows:
        person = people.setdefault(assessor_id, AssessorProgress(assessor_id, username))
        person.assigned_hits += topics[topic_id].hits
        if purpose == Assignment.Purpose.OFFICIAL:
            topics[topic_id].assessor = username
        else:
            topics[topic_id].dual_assessor = username
    return people


def _apply_topic_judgments(task: RetrievalTask, topics: dict[int, TopicProgress]) -> None:
    """Official judgments per topic and grade (dual ones would count a hit twice)."""
    rows = (
        _task_judgments(task)
        .filter(assignment__purpose=Assignment.Purpose.OFFICIAL)
        .values("assignment__topic_id", "grade")
        .annotate(n=Count("id"), last=Max("updated_at"))
        .values_list("assignment__topic_id", "grade", "n", "last")
    )
    for topic_id, grade, n, last in rows:
        topic = topics[topic_id]
        topic.judged += n
        if grade is None:
            topic.flags += n
        else:
            topic.grades[grade] += n
        if topic.last_activity is None or last > topic.last_activity:
            topic.last_activity = last


def _medians(judgments) -> dict[int, float]:  # type: ignore[no-untyped-def]
    if connection.vendor == "postgresql":
        rows = judgments.values("assessor_id").annotate(m=Median("active_seconds"))
        return dict(rows.values_list("assessor_id", "m"))
    seconds: dict[int, list[float]] = defaultdict(list)
    for assessor_id, value in judgments.values_list("assessor_id", "active_seconds"):
        seconds[assessor_id].append(value)
    return {a: statistics.median(v) for a, v in seconds.items()}


def _apply_assessor_judgments(task: RetrievalTask, people: dict[int, AssessorProgress]) -> None:
    judgments = _task_judgments(task)
    # Progress against current assignments (a moved topic's earlier judgments count as done).
    done = (
        judgments.filter(assignment__revoked_at__isnull=True)
        .values("assignment__assessor_id")
        .annotate(n=Count("id"))
        .values_list("assignment__assessor_id", "n")
    )
    for assessor_id, n in done:
        if assessor_id in people:
            people[assessor_id].judged = n
    # Time and flags belong to whoever judged.
    stats = (
        judgments.values("assessor_id")
        .annotate(
            n=Count("id"),
            flags=Count("id", filter=~Q(flag="")),
            mean=Avg("active_seconds"),
            last=Max("updated_at"),
        )
        .values_list("assessor_id", "assessor__username", "n", "flags", "mean", "last")
    )
    for assessor_id, username, n, flags, mean, last in stats:
        person = people.setdefault(assessor_id, AssessorProgress(assessor_id, username))
        person.judgments, person.flags, person.mean_seconds = n, flags, mean
        person.last_activity = last
    for assessor_id, median in _medians(judgments).items():
        people[assessor_id].median_seconds = median


def _flag_for_attention(people: Iterable[AssessorProgress]) -> None:
    """Median under 5 s per judgment, or a flag rate at least twice the others' median."""
    active = [p for p in people if p.judgments >= MIN_JUDGMENTS_TO_FLAG]
    for person in active:
        if person.median_seconds is not None and person.median_seconds < FAST_MEDIAN_SECONDS:
            person.reasons.append(f"median {person.median_seconds:.1f} s per judgment")
        others = [p.flag_rate for p in active if p is not person]
        typical = statistics.median(others) if others else 0.0
        if person.flag_rate >= 0.1 and person.flag_rate >= 2 * typical:
            person.reasons.append(
                f"flags {person.flag_rate:.0%} of judgments (others {typical:.0%})"
            )


def _histogram(task: RetrievalTask) -> list[tuple[str, int]]:
    edges = HISTOGRAM_EDGES
    bucket = Case(
        *(When(active_seconds__lt=edges[i + 1], then=i) for i in range(len(edges) - 1)),
        default=len(edges) - 1,
        output_field=IntegerField(),
    )
    counts = dict(
        _task_judgments(task)
        .annotate(bucket=bucket)
        .values("bucket")
        .annotate(n=Count("id"))
        .values_list("bucket", "n")
    )
    labels = [f"{edges[i]}-{edges[i + 1]} s" for i in range(len(edges) - 1)]
    labels.append(f"≥ {edges[-1]} s")
    return [(label, counts.get(i, 0)) for i, label in enumerate(labels)]


def _progress(task: RetrievalTask) -> list[tuple[date, int]]:
    rows = (
        _task_judgments(task)
        .annotate(day=TruncDate("created_at"))
        .values("day")
        .annotate(n=Count("id"))
        .order_by("day")
        .values_list("day", "n")
    )
    total, result = 0, []
    for day, n in rows:
        total += n
        result.append((day, total))
    return result


def task_dashboard(*, task: RetrievalTask) -> TaskDashboard:
    """Everything the task page of the dashboard shows; about ten queries at any size."""
    runs = dict(
        Run.objects.filter(task=task, status=Run.Status.ACCEPTED)
        .values("role")
        .annotate(n=Count("id"))
        .values_list("role", "n")
    )
    topics = _topics(task)
    people = _apply_assignments(task, topics)
    _apply_topic_judgments(task, topics)
    _apply_assessor_judgments(task, people)
    _flag_for_attention(people.values())
    return TaskDashboard(
        task=task,
        runs=runs,
        pool_items=PoolItem.objects.filter(topic__task=task).count(),
        pool_hits=sum(t.hits for t in topics.values()),
        last_build=PoolBuild.objects.filter(task=task).order_by("-created_at").first(),
        topics=list(topics.values()),
        assessors=sorted(people.values(), key=lambda p: p.name),
        progress=_progress(task),
        histogram=_histogram(task),
    )


@dataclass
class TaskSummary:
    task: RetrievalTask
    topics: int = 0
    runs: int = 0
    hits: int = 0
    assigned_topics: int = 0
    judged: int = 0

    @property
    def percent(self) -> float:
        return 100.0 * self.judged / self.hits if self.hits else 0.0


def campaign_overview() -> list[tuple[Campaign, list[TaskSummary]]]:
    """Every campaign with a line per task: six grouped queries whatever the size."""
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
        Judgment.objects.filter(assignment__purpose=Assignment.Purpose.OFFICIAL)
        .values("assignment__topic__task_id")
        .annotate(n=Count("id"))
        .values_list("assignment__topic__task_id", "n"),
        "judged",
    )
    grouped: dict[int, tuple[Campaign, list[TaskSummary]]] = {}
    for task in tasks:
        grouped.setdefault(task.campaign_id, (task.campaign, []))[1].append(summaries[task.pk])
    return list(grouped.values())


def assessor_choices() -> list[User]:
    """Active non-staff users, the people who can be given topics."""
    return list(User.objects.filter(is_active=True, is_staff=False).order_by("username"))


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


def assignment_rows(*, task: RetrievalTask) -> list[AssignmentRow]:
    """Active official and dual assignments of the task with judged counts: one query."""
    rows = (
        Assignment.objects.filter(topic__task=task, purpose__in=WORK, revoked_at__isnull=True)
        .annotate(n_judged=Count("judgments"))
        .order_by("topic_id", "purpose")
        .values_list(
            "pk",
            "topic_id",
            "topic__number",
            "assessor__username",
            "purpose",
            "n_judged",
            "created_at",
        )
    )
    return [AssignmentRow(*row) for row in rows]
