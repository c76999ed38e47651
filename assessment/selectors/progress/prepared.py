"""An assignment as the ids its prepared queries (kernel.prepared) are keyed by, and back."""

from __future__ import annotations

from assessment.models import Assignment


def assignment_ids(assignment: Assignment) -> dict[str, int | list[int]]:
    """What decides an assignment's prepared queries (kernel.prepared), as ids: its training
    round and line start, when it has one, are a list of one, and so is its scope flag (a
    list's length is part of the prepared shape: with or without a round, a line, a scope)."""
    return {
        "assignment_id": assignment.pk,
        "topic_id": assignment.topic_id,
        "training_round": [assignment.training_round_id] if assignment.training_round_id else [],
        "line_start": [assignment.line_start_id] if assignment.line_start_id else [],
        "scoped": [assignment.pk] if assignment.scoped else [],
    }


def assignment_from_ids(
    assignment_id: int,
    topic_id: int,
    training_round: list[int],
    line_start: list[int],
    scoped: list[int],
) -> Assignment:
    """The assignment ``assignment_ids`` describes, enough for its filters (not saved)."""
    assignment = Assignment(
        pk=assignment_id,
        topic_id=topic_id,
        training_round_id=training_round[0] if training_round else None,
        line_start_id=line_start[0] if line_start else None,
        scoped=bool(scoped),
    )
    if scoped:
        assignment.prepared_scope = scoped[0]  # type: ignore[attr-defined]
    return assignment
