"""Moving an assignment to another assessor, blind, and revoking one.

See docs/agreement.md "Moving a topic": the judgments made so far stay with their authors;
after a continue-move they count as done, after a start-over they no longer count.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from assessment.models import Assignment, AssignmentItem, Judgment
from assessment.selectors.handover import line_judgments
from assessment.services.assignments.rules import (
    AssignmentError,
    active,
    assignments_insert,
    machines_refuse,
)
from pooling.models import Hit


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
    machines_refuse([assessor])
    if locked.assessor_id == assessor.pk:
        raise AssignmentError([f"{locked.topic.number} is already with {assessor}"])
    other = (
        Assignment.Purpose.DUAL
        if locked.purpose == Assignment.Purpose.OFFICIAL
        else Assignment.Purpose.OFFICIAL
    )
    clash = active(Assignment.objects).filter(
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
    """Hand an active official or dual assignment to another assessor, blind.

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
    [moved] = assignments_insert(
        [
            Assignment(
                topic=locked.topic,
                assessor=assessor,
                purpose=locked.purpose,
                created_by=moved_by,
                replaces=locked,
                handover=handover,
                line_start_id=(locked.line_start_id or locked.pk) if continuing else None,
                scoped=locked.scoped,
            )
        ]
    )
    hits = Hit.objects.filter(item__topic_id=locked.topic_id)
    if locked.scoped:  # the new assessor takes over the same scope, no more
        AssignmentItem.objects.bulk_create(
            AssignmentItem(assignment=moved, item_id=item_id)
            for item_id in locked.scope.values_list("item_id", flat=True)
        )
        hits = hits.filter(item__assignment_scopes__assignment=moved)
    total = hits.count()
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
