"""Items an organizer took out of a scoped assignment after its assessor judged them.

Taking an item out of a scope never deletes a judgment: the assessor's judgments of it still
count toward qrels and agreement. So the assessor keeps them within reach, to see and to
correct: one rule, ``own_judgment_of``. A hit of a taken-out item is theirs to submit only if
their assignment already holds a judgment of it (a revision, kept as every change is); any
other hit of it (never judged by them) is out of their reach, as the submit's scope check
(``assessment/services/judging_checks.py``) and the pages built here both read it.

Progress is not changed by any of this: an assignment's counts, "next unjudged" and the item
positions stay its scope's as it is now (``progress.pool_items_of``).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef, QuerySet

from assessment.models import Assignment, AssignmentItem, Judgment
from assessment.selectors.progress import (
    ItemStatus,
    pool_items_of,
    scope_key,
    statuses_of_items,
)
from pooling.models import Hit, PoolItem

__all__ = ["items_in_reach_of", "own_judgment_of", "taken_out_statuses"]


def own_judgment_of(assignment: Any, hit: Any) -> Exists:
    """Whether ``assignment`` (an id or an OuterRef) holds its own judgment of ``hit`` (the
    same): what keeps a hit of an item taken out of its scope within its assessor's reach."""
    return Exists(Judgment.objects.filter(assignment_id=assignment, hit_id=hit))


def _in_scope(assignment: Assignment) -> Exists:
    """On pool items: in the scoped assignment's scope now."""
    return Exists(
        AssignmentItem.objects.filter(assignment_id=scope_key(assignment), item=OuterRef("pk"))
    )


def _judged_by(assignment: Assignment) -> Exists:
    """On pool items: the assignment holds its own judgment of one of the item's hits."""
    hits = Hit.objects.filter(item=OuterRef("pk"))
    return Exists(hits.filter(own_judgment_of(assignment.pk, OuterRef("pk"))))


def items_in_reach_of(assignment: Assignment) -> QuerySet[PoolItem]:
    """The pool items whose judging page and judgments the assessor may open: the ones the
    assignment covers (``pool_items_of``) and, when it is scoped, the ones taken out of its
    scope that it judged."""
    if not assignment.scoped:
        return pool_items_of(assignment)
    return PoolItem.objects.filter(topic_id=assignment.topic_id).filter(
        _in_scope(assignment) | _judged_by(assignment)
    )


def taken_out_statuses(assignment: Assignment) -> list[ItemStatus]:
    """The items taken out of a scoped assignment's scope that it judged, in display order,
    with their judged hits (positions count among them only). None without a scope; one
    query with one."""
    if not assignment.scoped:
        return []
    items = PoolItem.objects.filter(topic_id=assignment.topic_id).filter(_judged_by(assignment))
    return statuses_of_items(assignment, items.exclude(_in_scope(assignment)))
