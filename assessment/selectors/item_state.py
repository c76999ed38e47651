"""An item's judgments as the judging endpoint reads them, and its hits' ids: what a submit,
a second tab's refresh and the no-script form post need, without the page around them.

Blind like the page: only this assignment's own judgments; after a continue-move, the hits a
previous assessor judged by id only, never with their grade or comment.
"""

from __future__ import annotations

from assessment.models import Assignment, Judgment
from assessment.selectors.handover import previous_judgments
from assessment.selectors.taken_out import items_in_reach_of


def item_state(assignment: Assignment, item_id: int) -> list[Judgment] | None:
    """This assignment's judgments of one item (a second tab refreshes from it), or None when
    the item is not within the assessor's reach (``items_in_reach_of``). Two queries."""
    if not items_in_reach_of(assignment).filter(pk=item_id).exists():
        return None
    return list(
        Judgment.objects.filter(assignment=assignment, hit__item_id=item_id)
        .order_by("hit__position", "hit_id")
        .only("hit_id", "grade", "flag", "comment", "answers", "revision", "updated_at")
    )


def item_previous_hit_ids(assignment: Assignment, item_id: int) -> list[int]:
    """Hits of one item judged by a previous assessor of the assignment's line (after a
    continue-move): their ids only, never their grades. No query without a line."""
    previous = previous_judgments(assignment)
    if previous is None:
        return []
    return list(
        Judgment.objects.filter(previous, hit__item_id=item_id)
        .order_by("hit__position", "hit_id")
        .values_list("hit_id", flat=True)
    )


def item_hit_ids(assignment: Assignment, item_id: int) -> list[int] | None:
    """The hit ids of one item within the assessor's reach, in order; None if not in it."""
    rows = list(
        items_in_reach_of(assignment)
        .filter(pk=item_id)
        .order_by("hits__position", "hits__pk")
        .values_list("hits__pk", flat=True)
    )
    if not rows:
        return None
    return [hit_id for hit_id in rows if hit_id is not None]
