"""Which judgments an assignment holds after moves.

docs/agreement.md, "Moving a topic", is the organizer's version of these rules.

A move revokes an assignment and creates one that ``replaces`` it. In ``continue`` mode the
new assignment carries on a *line*: every assignment of the line has the same ``line_start``
(the line's first assignment, whose own ``line_start`` is empty). The judgments of the whole
line are the work done for its current assignment; the ones made under an earlier assignment
are "judged by a previous assessor". A ``start_over`` move begins a new line.

The filters here are the one home of that rule: progress, the judging pages, the submit
check, the dashboard and the qrels selection all use them. They are ``Q`` objects, so each
caller keeps its fixed number of queries.
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Q

from assessment.models import Assignment

__all__ = ["counted_judgments", "line_judgments", "line_judgments_of", "previous_judgments"]


def line_judgments(assignment: Assignment, *, prefix: str = "") -> Q:
    """Judgments held by ``assignment``'s line: its own and, after continue-moves, those of
    every assignment it carries on. ``prefix`` reaches judgments through a relation, e.g.
    ``"hits__judgments__"`` from pool items."""
    own = Q(**{f"{prefix}assignment_id": assignment.pk})
    earlier = previous_judgments(assignment, prefix=prefix)
    return own if earlier is None else own | earlier


def previous_judgments(assignment: Assignment, *, prefix: str = "") -> Q | None:
    """Judgments of the line made under an earlier assignment (by a previous assessor), or
    None when the assignment carries no line on (there are none then)."""
    start = assignment.line_start_id
    if start is None:
        return None
    line = Q(**{f"{prefix}assignment_id": start}) | Q(
        **{f"{prefix}assignment__line_start_id": start}
    )
    return line & ~Q(**{f"{prefix}assignment_id": assignment.pk})


def line_judgments_of(pk: OuterRef, line_start: OuterRef) -> Q:
    """``line_judgments`` for an assignment of an outer query (a correlated subquery):
    ``pk`` and ``line_start`` refer to its columns. An empty ``line_start`` matches nothing
    (SQL ``= NULL``), leaving the assignment's own judgments."""
    return Q(assignment=pk) | Q(assignment=line_start) | Q(assignment__line_start=line_start)


def counted_judgments() -> Q:
    """Judgments that still count (toward qrels and a topic's progress): those of an active
    assignment's line. A revoked assignment's judgments count only while an active
    assignment carries its line on (a continue-move); after a revocation or a start-over
    move they stay stored and attributed, and count in agreement, but not here."""
    heads = Assignment.objects.filter(revoked_at__isnull=True)
    return (
        Q(assignment__revoked_at__isnull=True)
        | Exists(heads.filter(line_start=OuterRef("assignment_id")))
        | Exists(heads.filter(line_start=OuterRef("assignment__line_start")))
    )
