"""The organizer's assignment actions, one dispatch for the page and the REST API.

Each action names what it needs; the caller (a form or a serializer) has already turned names
and ids into the task's topics, assignments and people who may be given topics. What the
action did comes back with the sentence the organizer reads, so both doors say the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from django.contrib.auth.models import User

from assessment.models import Assignment
from assessment.services.assignments.dual import dual_assignments_create
from assessment.services.assignments.moves import (
    AssignmentMove,
    assignment_move,
    assignment_revoke,
)
from assessment.services.assignments.official import assignments_balance, assignments_create
from assessment.services.assignments.rules import AssignmentError
from collection.models import RetrievalTask, Topic

AssignmentAction = Literal["assign", "balance", "dual", "move", "revoke"]
ASSIGNMENT_ACTIONS: tuple[AssignmentAction, ...] = ("assign", "balance", "dual", "move", "revoke")


@dataclass(frozen=True)
class ActionDone:
    """What one action did: the assignments it created, the move or the revocation."""

    message: str
    created: list[Assignment] = field(default_factory=list)
    move: AssignmentMove | None = None
    revoked: Assignment | None = None


def move_message(move: AssignmentMove) -> str:
    """What a move did, in the organizer's words."""
    moved, before = move.assignment, move.previous
    judged = f"{move.kept_judgments} judged hit{'s' if move.kept_judgments != 1 else ''}"
    if move.counts_as_done:
        return (
            f"Moved {moved.topic.number} from {before.assessor} to {moved.assessor}: {judged} "
            f"stay with the earlier assessor and count as done; {moved.assessor} judges the "
            f"{move.hits_left} left, blind to them."
        )
    return (
        f"Moved {moved.topic.number} from {before.assessor} to {moved.assessor}, starting over: "
        f"{judged} stay with the earlier assessor but no longer count toward qrels; "
        f"{moved.assessor} judges all {move.hits_left} hits blind."
    )


def assignment_action_apply(
    *,
    task: RetrievalTask,
    action: AssignmentAction,
    by: User,
    topics: Sequence[Topic] = (),
    assessor: User | None = None,
    assessors: Sequence[User] = (),
    assignment: Assignment | None = None,
    handover: str = Assignment.Handover.CONTINUE,
    sample_size: int | None = None,
    seed: int | None = None,
) -> ActionDone:
    """Run one assignment action; AssignmentError lists what it lacks or what rule it breaks."""
    if action == "assign":
        if assessor is None or not topics:
            raise AssignmentError(["assign needs topics and an assessor"])
        made = assignments_create(topics=list(topics), assessor=assessor, created_by=by)
        return ActionDone(f"Assigned {len(made)} topic(s) to {assessor}.", created=made)
    if action == "balance":
        made = assignments_balance(task=task, assessors=list(assessors), created_by=by)
        return ActionDone(
            f"Balanced {len(made)} unassigned topic(s) over {len(assessors)} assessors.",
            created=made,
        )
    if action == "dual":
        made = dual_assignments_create(
            task=task,
            assessors=list(assessors),
            created_by=by,
            topics=list(topics) or None,
            sample_size=sample_size,
            seed=seed,
        )
        return ActionDone(
            f"Dual assessment: {len(made)} topic(s) given to a second assessor.", created=made
        )
    if assignment is None:
        raise AssignmentError([f"{action} needs an assignment"])
    if action == "move":
        if assessor is None:
            raise AssignmentError(["move needs the assessor who takes the topic over"])
        move = assignment_move(
            assignment=assignment, assessor=assessor, moved_by=by, handover=handover
        )
        return ActionDone(move_message(move), move=move)
    revoked = assignment_revoke(assignment=assignment)
    return ActionDone(
        f"Revoked {revoked.topic.number} ({revoked.assessor}); its judgments are kept but "
        "no longer count toward qrels (move a topic to keep them counting).",
        revoked=revoked,
    )
