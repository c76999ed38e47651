"""Who judges which topic: official assignments, balancing, moving, revoking, dual assessment.

Issue 6 §1-2: each topic has one active official assignment; an organizer assigns topics by
hand or balances the unassigned topics of a task so pool sizes per assessor are even; dual
assessment gives a topic to a second assessor who is blind to the first. Issue 11 §2: moving
an assignment hands the topic to another assessor who stays blind to the judgments already
made (see ``assignment_move`` and docs/agreement.md "Moving a topic").
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Count
from django.utils import timezone

from assessment.models import Assignment, Judgment, MachineJudge
from assessment.selectors.handover import line_judgments
from collection.models import RetrievalTask, Topic
from pooling.models import Hit

__all__ = [
    "AssignmentError",
    "AssignmentMove",
    "assignment_move",
    "assignment_revoke",
    "assignments_balance",
    "assignments_create",
    "balance_plan",
    "dual_assignments_create",
]

T = TypeVar("T", bound=Hashable)
U = TypeVar("U", bound=Hashable)


class AssignmentError(Exception):
    """An assignment request breaks a rule; ``problems`` lists each, for the page to show."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


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


def _insert(assignments: Iterable[Assignment]) -> list[Assignment]:
    """Store new assignments; a concurrent request that took a topic first (the database's
    one-official-per-topic rule) becomes an AssignmentError, not a server error."""
    try:
        with transaction.atomic():
            return Assignment.objects.bulk_create(assignments)
    except IntegrityError as error:
        raise AssignmentError(
            ["another organizer changed these assignments at the same time: reload and retry"]
        ) from error


def _hits_per_topic(topic_ids: Iterable[int]) -> dict[int, int]:
    rows = (
        Hit.objects.filter(item__topic_id__in=list(topic_ids))
        .values("item__topic_id")
        .annotate(n=Count("id"))
        .values_list("item__topic_id", "n")
    )
    return dict(rows)


def _active(queryset):  # type: ignore[no-untyped-def]
    return queryset.filter(revoked_at__isnull=True)


def _refuse_machines(people: Iterable[User]) -> None:
    """A machine judge's account is never given topics (issue 13 §6): its grades are imported."""
    names = MachineJudge.objects.filter(account__in=[p.pk for p in people]).values_list(
        "name", flat=True
    )
    if names:
        raise AssignmentError(
            [f"{name} is a machine judge: it cannot be given topics" for name in names]
        )


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
    _refuse_machines([assessor])
    topic_ids = [t.pk for t in topics]
    taken = dict(
        _active(Assignment.objects.select_for_update(of=("self",)))
        .filter(topic_id__in=topic_ids, purpose=Assignment.Purpose.OFFICIAL)
        .values_list("topic__number", "assessor__username")
    )
    problems = [f"{number} is already assigned to {who}" for number, who in sorted(taken.items())]
    duals = _active(Assignment.objects).filter(
        topic_id__in=topic_ids, purpose=Assignment.Purpose.DUAL, assessor=assessor
    )
    problems += [
        f"{number} is dual-assessed by this assessor"
        for number in duals.values_list("topic__number", flat=True)
    ]
    if problems:
        raise AssignmentError(problems)
    return _insert(
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
    _refuse_machines(assessors)
    active_official = _active(Assignment.objects.select_for_update(of=("self",))).filter(
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
    return _insert(
        Assignment(
            topic=topics[topic_id],
            assessor=by_id[assessor_id],
            purpose=Assignment.Purpose.OFFICIAL,
            created_by=created_by,
        )
        for topic_id, assessor_id in plan.items()
    )


@dataclass(frozen=True)
class AssignmentMove:
    """What a move did: the new assignment, the revoked one it replaces, and the work.

    ``kept_judgments``: judgments made so far along the line (the revoked assignment's and,
    after earlier continue-moves, its predecessors'); they stay with their authors.
    ``hits_left``: hits the new assessor has to judge (continue: the unjudged ones; start
    over: every hit of the topic).
    """

    assignment: Assignment
    previous: Assignment
    kept_judgments: int
    hits_left: int

    @property
    def counts_as_done(self) -> bool:
        """Whether the kept judgments count as done for the new assessor (and in qrels)."""
        return self.assignment.handover == Assignment.Handover.CONTINUE


MACHINE_ASSIGNMENT = (
    "a machine judge's assignment holds its imported grades: import the judge again or "
    "delete it on the machine judges page"
)


def _check_move(locked: Assignment, assessor: User) -> None:
    if locked.revoked_at is not None:
        raise AssignmentError(["a revoked assignment cannot be moved"])
    if locked.purpose == Assignment.Purpose.TRAINING:
        raise AssignmentError(["training assignments belong to their round"])
    if locked.purpose == Assignment.Purpose.MACHINE:
        raise AssignmentError([MACHINE_ASSIGNMENT])
    _refuse_machines([assessor])
    if locked.assessor_id == assessor.pk:
        raise AssignmentError([f"{locked.topic.number} is already with {assessor}"])
    other = (
        Assignment.Purpose.DUAL
        if locked.purpose == Assignment.Purpose.OFFICIAL
        else Assignment.Purpose.OFFICIAL
    )
    clash = _active(Assignment.objects).filter(
        topic_id=locked.topic_id, purpose=other, assessor=assessor
    )
    if clash.exists():
        raise AssignmentError(
            [f"{assessor} holds the {other} assignment of {locked.topic.number}: not blind"]
        )


@transaction.atomic
def assignment_move(
    *,
    assignment: Assignment,
    assessor: User,
    moved_by: User | None,
    handover: str = Assignment.Handover.CONTINUE,
) -> AssignmentMove:
    """Hand an active official or dual assignment to another assessor, blind (issue 11 §2).

    The assignment is revoked and a new one for ``assessor`` replaces it, so the judgments
    made so far stay under their own assignment and author, with their revisions; the new
    assessor never sees or changes them. ``handover``: ``continue`` (the judged hits count as
    done, the new assessor judges the rest) or ``start_over`` (the new assessor judges every
    hit blind; the earlier judgments no longer count toward qrels). A topic's official and
    dual assessors must stay different.
    """
    if handover not in (Assignment.Handover.CONTINUE, Assignment.Handover.START_OVER):
        raise AssignmentError(["handover must be continue or start_over"])
    locked = (
        Assignment.objects.select_for_update(of=("self",))
        .select_related("topic")
        .get(pk=assignment.pk)
    )
    _check_move(locked, assessor)
    kept = Judgment.objects.filter(line_judgments(locked)).count()
    locked.revoked_at = timezone.now()
    locked.save(update_fields=["revoked_at"])
    continuing = handover == Assignment.Handover.CONTINUE
    [moved] = _insert(
        [
            Assignment(
                topic=locked.topic,
                assessor=assessor,
                purpose=locked.purpose,
                created_by=moved_by,
                replaces=locked,
                handover=handover,
                line_start_id=(locked.line_start_id or locked.pk) if continuing else None,
            )
        ]
    )
    total = Hit.objects.filter(item__topic_id=locked.topic_id).count()
    return AssignmentMove(
        assignment=moved,
        previous=locked,
        kept_judgments=kept,
        hits_left=max(total - kept, 0) if continuing else total,
    )


@transaction.atomic
def assignment_revoke(*, assignment: Assignment) -> Assignment:
    """Withdraw an assignment. Its judgments stay stored, attributed and in agreement, but no
    longer count toward qrels or the topic's progress: revoking says "set this work aside".
    To hand the work on and keep it counting, move the assignment instead."""
    locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
    if locked.purpose == Assignment.Purpose.MACHINE:
        raise AssignmentError([MACHINE_ASSIGNMENT])
    if locked.revoked_at is None:
        locked.revoked_at = timezone.now()
        locked.save(update_fields=["revoked_at"])
    return locked


def _dual_candidates(
    topic_ids: Sequence[int], assessors: Sequence[User]
) -> tuple[dict[int, int], dict[int, int], list[str]]:
    """Official assessor per topic, current dual load per assessor, and topics not eligible."""
    official = dict(
        _active(Assignment.objects)
        .filter(topic_id__in=topic_ids, purpose=Assignment.Purpose.OFFICIAL)
        .values_list("topic_id", "assessor_id")
    )
    has_dual = set(
        _active(Assignment.objects)
        .filter(topic_id__in=topic_ids, purpose=Assignment.Purpose.DUAL)
        .values_list("topic_id", flat=True)
    )
    numbers = dict(Topic.objects.filter(pk__in=topic_ids).values_list("pk", "number"))
    problems = [
        f"{numbers[t]} has no official assessor yet" for t in topic_ids if t not in official
    ]
    problems += [f"{numbers[t]} is already dual-assessed" for t in topic_ids if t in has_dual]
    load_rows = (
        _active(Assignment.objects)
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
        _active(Assignment.objects)
        .filter(topic__task=task, purpose=Assignment.Purpose.OFFICIAL)
        .exclude(
            topic_id__in=_active(Assignment.objects)
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
    _refuse_machines(assessors)
    rng = random.Random(task.pool_seed if seed is None else seed)  # noqa: S311 (seeded sample)
    topic_ids = _dual_sample(task, sample_size, rng) if topics is None else [t.pk for t in topics]
    if not topic_ids:
        raise AssignmentError(["no topic is eligible for dual assessment"])
    official, loads, problems = _dual_candidates(topic_ids, assessors)
    plan = _dual_plan(topic_ids, official, loads, problems, rng)
    if problems:
        raise AssignmentError(problems)
    by_id = {a.pk: a for a in assessors}
    return _insert(
        Assignment(
            topic_id=topic_id,
            assessor=by_id[assessor_id],
            purpose=Assignment.Purpose.DUAL,
            created_by=created_by,
        )
        for topic_id, assessor_id in plan.items()
    )
