"""An assessor's active assignments with their progress and where to continue, and the
one assignment a judging page opens."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import Case, Exists, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from assessment.models import Assignment, Judgment
from assessment.selectors.progress.coverage import (
    SubqueryCount,
    _unjudged_hits,
    covered,
    with_covered_hits,
)
from assessment.selectors.progress.units import Progress
from kernel.prepared import prepared_rows
from pooling.models import Hit, PoolItem


@dataclass(frozen=True)
class AssignmentProgress:
    assignment: Assignment
    judged: int
    total: int
    flagged: int
    continue_item_id: int | None
    judged_items: int = 0
    items: int = 0

    @property
    def progress(self) -> Progress:
        kind = self.assignment.topic.task.kind
        return Progress(kind, self.judged_items, self.items, self.judged, self.total)

    @property
    def percent(self) -> int:
        return round(100 * self.judged / self.total) if self.total else 0

    @property
    def is_done(self) -> bool:
        return self.total > 0 and self.judged >= self.total

    @property
    def is_closed(self) -> bool:
        return scope_emptied(scoped=self.assignment.scoped, hits=self.total)


# What the assessor reads where a closed assignment's progress and buttons would be.
SCOPE_EMPTIED_TEXT = (
    "Closed: the organizer took every item out of this assignment, so nothing is left to "
    "judge. Your judgments are kept."
)


def scope_emptied(*, scoped: bool, hits: int) -> bool:
    """Whether an assignment is closed because its organizer took every item out of its scope.

    It stays active (a revocation would stop its judgments counting toward qrels, and sending
    a sample again may fill the scope anew), but nothing is left in it to judge: the assessor
    sees it as closed, not as a topic waiting for its pool, and so does the organizer. A scoped
    assignment is only ever made with items (``items_route``), so an empty scope is an emptied
    one."""
    return scoped and hits == 0


def assignments_with_progress(
    assessor: AbstractBaseUser, assignment_id: int | None = None
) -> list[AssignmentProgress]:
    """The assessor's active assignments (or only ``assignment_id``, if it is one of them)
    with judged/total hits and where to continue.

    Judged hits are those of the assignment's line (after a continue-move, the earlier
    assessors' judgments count as done); flagged ones are the assessor's own. One query:
    counts (hits and items, each with how many are judged) and the first unjudged item (pool
    display order) are subqueries.
    """

    def outer(name: str) -> OuterRef:  # the assignment row, three subqueries out
        return OuterRef(OuterRef(OuterRef(name)))

    unjudged = (
        PoolItem.objects.filter(topic=OuterRef("topic"))
        .filter(Exists(_unjudged_hits(outer("pk"), outer("line_start"), OuterRef("pk"))))
        .order_by("display_order")
        .values("pk")
    )
    own = Judgment.objects.filter(assignment=OuterRef("pk"))
    first_unjudged = covered(
        Subquery(unjudged[:1]),
        training=Subquery(unjudged.filter(training_rounds=OuterRef("training_round"))[:1]),
        scoped=Subquery(unjudged.filter(assignment_scopes__assignment=OuterRef("pk"))[:1]),
    )
    topic_items = PoolItem.objects.filter(topic=OuterRef("topic"))
    done_items = topic_items.filter(Exists(Hit.objects.filter(item=OuterRef("pk")))).exclude(
        Exists(_unjudged_hits(outer("pk"), outer("line_start"), OuterRef("pk")))
    )

    def scoped(items: QuerySet[PoolItem]) -> Case:
        return covered(
            Coalesce(SubqueryCount(items), 0),
            training=Coalesce(
                SubqueryCount(items.filter(training_rounds=OuterRef("training_round"))), 0
            ),
            scoped=Coalesce(
                SubqueryCount(items.filter(assignment_scopes__assignment=OuterRef("pk"))), 0
            ),
        )

    mine = Assignment.objects.filter(assessor_id=assessor.pk, revoked_at__isnull=True)
    if assignment_id is not None:
        mine = mine.filter(pk=assignment_id)
    rows = (
        with_covered_hits(mine)
        .select_related("topic__task__campaign", "training_round")
        .annotate(
            n_flagged=Coalesce(SubqueryCount(own.exclude(flag="")), 0),
            continue_item=first_unjudged,
            n_items=scoped(topic_items),
            n_items_done=scoped(done_items),
        )
        .order_by("topic__task__campaign__name", "topic__task__kind", "topic__id", "purpose")
    )
    return [
        AssignmentProgress(
            assignment=row,
            judged=row.n_judged,
            total=row.n_total,
            flagged=row.n_flagged,
            continue_item_id=row.continue_item,
            judged_items=row.n_items_done,
            items=row.n_items,
        )
        for row in rows
    ]


def _own_assignment(assignment_id: int, assessor_id: int) -> QuerySet[Assignment]:
    return Assignment.objects.select_related("topic__task").filter(
        pk=assignment_id, assessor_id=assessor_id, revoked_at__isnull=True
    )


def assignment_for(*, assessor: AbstractBaseUser, assignment_id: int) -> Assignment | None:
    """The assessor's own active assignment with its topic and task, or None (→ 404). Every
    judging page asks: the query's SQL is built once (kernel.prepared)."""
    if assessor.pk is None:  # an anonymous user owns nothing
        return None
    rows = prepared_rows(
        Assignment, _own_assignment, assignment_id=assignment_id, assessor_id=assessor.pk
    )
    return rows[0] if rows else None
