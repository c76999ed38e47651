"""What the organizer's dashboard shows, in a fixed number of grouped queries.

Progress per topic and per assessor, time per judgment, the relevance distribution, topics at
risk (fewer than 2 relevant items so far, relevant meaning grade >= the task's relevance level:
ARQMath dropped topics with fewer than 2 H+M items) and assessors to look at
(a median under 5 s per judgment, or a flag rate far above the others').
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db import connection
from django.db.models import Aggregate, Case, Count, FloatField, IntegerField, Max, Sum, When
from django.db.models.functions import TruncHour

from assessment.models import Assignment, Judgment
from assessment.selectors.dashboard_figures import AssessorProgress, TaskDashboard, TopicProgress
from assessment.selectors.guidelines import guidelines_current
from assessment.selectors.progress import official_item_counts
from assessment.selectors.scopes import OutsideScope, outside_scopes
from collection.models import RetrievalTask, Topic
from pooling.models import Hit, PoolBuild, PoolItem, Run

__all__ = [
    "FAST_MEDIAN_SECONDS",
    "HISTOGRAM_EDGES",
    "AssessorProgress",
    "TaskDashboard",
    "TopicProgress",
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


@dataclass(frozen=True)
class _Assignment:
    topic_id: int
    assessor_id: int
    purpose: str
    active: bool
    line: int  # the line of moves it belongs to (its first assignment's id)


def _topics(task: RetrievalTask, top: int) -> dict[int, TopicProgress]:
    rows = Topic.objects.filter(task=task).order_by("id").values_list("pk", "number", "title")
    level = task.relevance_level
    topics = {
        pk: TopicProgress(
            pk,
            number,
            title,
            grades=[0] * (top + 1),
            relevant_from=level,
            top=top,
            kind=task.kind,
        )
        for pk, number, title in rows
    }
    hits = (
        Hit.objects.filter(item__topic_id__in=list(topics))
        .values("item__topic_id")
        .annotate(n=Count("id"))
        .values_list("item__topic_id", "n")
    )
    for topic_id, n in hits:
        topics[topic_id].hits = n
    if task.kind == RetrievalTask.Kind.FORMULA:
        items = PoolItem.objects.filter(topic__task=task)
        for topic_id, (n, done) in official_item_counts(items, "topic_id").items():
            topics[topic_id].items, topics[topic_id].judged_items = n, done
    return topics


def _assignments(
    task: RetrievalTask, topics: dict[int, TopicProgress]
) -> tuple[dict[int, _Assignment], dict[int, AssessorProgress], dict[int, OutsideScope]]:
    """Every official and dual assignment (revoked ones too: their judgments still count for
    who made them); the active ones give each assessor their load and each topic its names.
    """
    work = Assignment.objects.filter(topic__task=task, purpose__in=WORK)
    rows = list(
        work.values_list(
            "pk",
            "topic_id",
            "assessor_id",
            "assessor__username",
            "purpose",
            "revoked_at",
            "line_start",
            "scoped",
        )
    )
    # A scoped assignment covers only its scope (three queries, when there is one): its topic's
    # figures and its assessor's load count the scope, not the whole topic.
    outside: dict[int, OutsideScope] = {}
    if any(scoped and revoked_at is None for *_, revoked_at, _line, scoped in rows):
        outside = outside_scopes(work)
    found: dict[int, _Assignment] = {}
    people: dict[int, AssessorProgress] = {}
    for pk, topic_id, assessor_id, username, purpose, revoked_at, line_start, _ in rows:
        found[pk] = _Assignment(
            topic_id, assessor_id, purpose, revoked_at is None, line_start or pk
        )
        person = people.setdefault(assessor_id, AssessorProgress(assessor_id, username))
        if revoked_at is not None:
            continue
        person.assigned_hits += topics[topic_id].hits - _outside(outside, pk).hits
        if purpose == Assignment.Purpose.OFFICIAL:
            topics[topic_id].assessor = username
            topics[topic_id].scoped = pk in outside
        else:
            topics[topic_id].dual_assessor = username
    return found, people, outside


_NOTHING_OUTSIDE = OutsideScope(0, 0, 0, 0, 0, 0, 0, 0)


def _outside(outside: dict[int, OutsideScope], assignment_id: int) -> OutsideScope:
    return outside.get(assignment_id, _NOTHING_OUTSIDE)


def _count_scopes_only(
    outside: dict[int, OutsideScope],
    assignments: dict[int, _Assignment],
    topics: dict[int, TopicProgress],
    people: dict[int, AssessorProgress],
) -> None:
    """Take away what lies outside each scope from the whole-topic counts: a scoped topic's
    progress is judged of its scope over its scope's size, and so is its assessor's."""
    for assignment_id, out in outside.items():
        assignment = assignments[assignment_id]
        people[assignment.assessor_id].judged -= out.judged
        if assignment.purpose != Assignment.Purpose.OFFICIAL:
            continue
        topic = topics[assignment.topic_id]
        topic.hits -= out.hits
        topic.judged -= out.judged
        if topic.kind == RetrievalTask.Kind.FORMULA:
            topic.items -= out.items
            topic.judged_items -= out.judged_items


def _latest(current: datetime | None, candidate: datetime) -> datetime:
    return candidate if current is None or candidate > current else current


def _apply_judgments(
    assignments: dict[int, _Assignment],
    topics: dict[int, TopicProgress],
    people: dict[int, AssessorProgress],
) -> None:
    """One grouped scan of the judgments feeds topics (official ones: a dual judgment would
    count a hit twice), the assessor who judged (time, flags) and the assessor who holds the
    line of moves now (progress: after a continue-move the earlier judgments count as done).

    Topics and holders count only the judgments that count toward qrels: those of an active
    assignment's line (``assessment.selectors.handover``), so a revoked or started-over
    assessment is not counted twice beside the new one.
    """
    holder = {a.line: a for a in assignments.values() if a.active}
    groups = (
        Judgment.objects.filter(assignment_id__in=list(assignments))
        .values("assignment_id", "assessor_id", "grade")
        .annotate(n=Count("id"), seconds=Sum("active_seconds"), last=Max("updated_at"))
        .values_list("assignment_id", "assessor_id", "grade", "n", "seconds", "last")
    )
    seconds: dict[int, float] = defaultdict(float)
    for assignment_id, assessor_id, grade, n, total, last in groups:
        assignment = assignments[assignment_id]
        current = holder.get(assignment.line)
        if current is not None and assignment.purpose == Assignment.Purpose.OFFICIAL:
            topic = topics[assignment.topic_id]
            topic.judged += n
            if grade is None:
                topic.flags += n
            else:
                topic.grades.extend([0] * (grade + 1 - len(topic.grades)))
                topic.grades[grade] += n
            topic.last_activity = _latest(topic.last_activity, last)
        if current is not None:
            people[current.assessor_id].judged += n
        judge = people.setdefault(assessor_id, AssessorProgress(assessor_id, f"#{assessor_id}"))
        judge.judgments += n
        judge.flags += n if grade is None else 0
        judge.last_activity = _latest(judge.last_activity, last)
        seconds[assessor_id] += total
    for assessor_id, total in seconds.items():
        person = people[assessor_id]
        person.mean_seconds = total / person.judgments if person.judgments else None


def _medians(assignment_ids: list[int]) -> dict[int, float]:
    judgments = Judgment.objects.filter(assignment_id__in=assignment_ids)
    if connection.vendor == "postgresql":
        rows = judgments.values("assessor_id").annotate(m=Median("active_seconds"))
        return dict(rows.values_list("assessor_id", "m"))
    seconds: dict[int, list[float]] = defaultdict(list)
    for assessor_id, value in judgments.values_list("assessor_id", "active_seconds"):
        seconds[assessor_id].append(value)
    return {a: statistics.median(v) for a, v in seconds.items()}


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


def _time_and_days(
    assignment_ids: list[int],
) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """Histogram of active seconds and cumulative judgments over time, from one grouped scan.

    Time goes by the hour while the judging spans less than two days (the first days of a
    campaign), by the day after that.
    """
    edges = HISTOGRAM_EDGES
    bucket = Case(
        *(When(active_seconds__lt=edges[i + 1], then=i) for i in range(len(edges) - 1)),
        default=len(edges) - 1,
        output_field=IntegerField(),
    )
    rows = (
        Judgment.objects.filter(assignment_id__in=assignment_ids)
        .annotate(bucket=bucket, hour=TruncHour("created_at"))
        .values("bucket", "hour")
        .annotate(n=Count("id"))
        .values_list("bucket", "hour", "n")
    )
    per_bucket: dict[int, int] = defaultdict(int)
    per_hour: dict[datetime, int] = defaultdict(int)
    for index, hour, n in rows:
        per_bucket[index] += n
        per_hour[hour] += n
    labels = [f"{edges[i]}-{edges[i + 1]} s" for i in range(len(edges) - 1)]
    labels.append(f"≥ {edges[-1]} s")
    histogram = [(label, per_bucket.get(i, 0)) for i, label in enumerate(labels)]
    return histogram, _cumulative(per_hour)


def _cumulative(per_hour: dict[datetime, int]) -> list[tuple[str, int]]:
    if not per_hour:
        return []
    hours = sorted(per_hour)
    hourly = hours[-1] - hours[0] < timedelta(days=2)
    per_step: dict[str, int] = defaultdict(int)
    for hour in hours:
        label = hour.strftime("%Y-%m-%d %H:00") if hourly else hour.date().isoformat()
        per_step[label] += per_hour[hour]
    total, result = 0, []
    for label, n in per_step.items():  # insertion order is time order
        total += n
        result.append((label, total))
    return result


def task_dashboard(*, task: RetrievalTask) -> TaskDashboard:
    """Everything the task page of the dashboard shows: ten queries at any size (three more
    with a scoped assignment), three of them scans of the task's judgments by assignment id
    (no joins)."""
    runs = dict(
        Run.objects.filter(task=task, status=Run.Status.ACCEPTED)
        .values("role")
        .annotate(n=Count("id"))
        .values_list("role", "n")
    )
    scale = guidelines_current(task=task).scale
    topics = _topics(task, scale.top)
    pool_hits = sum(t.hits for t in topics.values())
    assignments, people, outside = _assignments(task, topics)
    _apply_judgments(assignments, topics, people)
    _count_scopes_only(outside, assignments, topics, people)
    ids = list(assignments)
    for assessor_id, median in _medians(ids).items():
        people[assessor_id].median_seconds = median
    unnamed = [p for p in people.values() if p.name.startswith("#")]
    if unnamed:
        names = dict(
            User.objects.filter(pk__in=[p.assessor_id for p in unnamed]).values_list(
                "pk", "username"
            )
        )
        for person in unnamed:
            person.name = names.get(person.assessor_id, person.name)
    _flag_for_attention(people.values())
    histogram, progress = _time_and_days(ids)
    return TaskDashboard(
        task=task,
        runs=runs,
        pool_items=PoolItem.objects.filter(topic_id__in=list(topics)).count(),
        pool_hits=pool_hits,
        last_build=PoolBuild.objects.filter(task=task).order_by("-created_at").first(),
        topics=list(topics.values()),
        assessors=sorted(people.values(), key=lambda p: p.name),
        progress=progress,
        histogram=histogram,
        scale=scale,
        relevance_level=task.relevance_level,
    )
