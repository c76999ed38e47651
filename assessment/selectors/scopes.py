"""Scoped assignments as the organizer sees them: how much of a topic lies outside a scope
(so topic and task progress count only the scope), and what a scope holds, item by item.

A scoped assignment covers only its ``AssignmentItem`` rows (``progress.pool_items_of``). The
organizer's figures start from whole topics (one grouped scan each) and take away, per active
scoped assignment, the hits and items outside its scope and its line's judgments of them
(judged before the organizer took them out of the scope: they still count toward qrels and
agreement, not toward the scope's progress).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Case, Count, Exists, F, OuterRef, Q, QuerySet, When
from django.db.models.functions import Coalesce

from assessment.models import Assignment, AssignmentItem, Judgment
from assessment.selectors.handover import line_judgments_of
from assessment.selectors.progress import ItemStatus, SubqueryCount, item_statuses
from collection.models import RetrievalTask
from pooling.models import Hit, PoolItem

__all__ = ["OutsideScope", "ScopeItem", "outside_scopes", "scope_items"]


@dataclass(frozen=True)
class OutsideScope:
    """What of its topic an active scoped assignment does not cover: hits and pool items
    outside its scope, and how many of them its line judged (hits, and items fully judged;
    items in formula tasks only, 0 elsewhere)."""

    assignment_id: int
    topic_id: int
    task_id: int
    assessor_id: int
    hits: int
    judged: int
    items: int
    judged_items: int


def _in_scope(item: OuterRef) -> Exists:
    """Whether ``item`` is in the scope of the assignment row two subqueries out."""
    assignment: Any = OuterRef(OuterRef("pk"))
    return Exists(AssignmentItem.objects.filter(assignment=assignment, item=item))


def _hits_outside(rows: list[tuple[int, int]]) -> dict[int, int]:
    """Assignment id -> hits of its topic outside its scope, for (assignment id, topic id)
    rows: the topics' hits less the scopes' hits, two grouped scans. (Counted per assignment,
    in a subquery beside the others, PostgreSQL read the whole hit table once per scoped
    assignment: the topic's 200 hits looked cheaper to hash than to fetch by index.)"""
    topics = dict(
        Hit.objects.filter(item__topic_id__in={topic for _, topic in rows})
        .values("item__topic_id")
        .annotate(n=Count("id"))
        .values_list("item__topic_id", "n")
    )
    # A scope holds its topic's items only (items_route); the topic test keeps it exact.
    inside = dict(
        Hit.objects.filter(
            item__assignment_scopes__assignment_id__in=[pk for pk, _ in rows],
            item__topic_id=F("item__assignment_scopes__assignment__topic_id"),
        )
        .values("item__assignment_scopes__assignment_id")
        .annotate(n=Count("id"))
        .values_list("item__assignment_scopes__assignment_id", "n")
    )
    return {pk: topics.get(topic, 0) - inside.get(pk, 0) for pk, topic in rows}


def outside_scopes(assignments: QuerySet[Assignment]) -> dict[int, OutsideScope]:
    """Per active scoped assignment among ``assignments`` (by id), what lies outside its
    scope: one query, and two grouped scans of hits when there is a scoped assignment."""
    hits_out = Hit.objects.filter(item__topic=OuterRef("topic")).exclude(
        _in_scope(OuterRef("item"))
    )
    # Judged outside: the hits outside with a judgment of the line (a line judges a hit at most
    # once: a continue-move refuses the hits a previous assessor judged). Going from the hits
    # (judgments by their hit index) keeps the count bounded by the topic, not the task.
    line_2 = line_judgments_of(OuterRef(OuterRef("pk")), OuterRef(OuterRef("line_start")))
    judged_out = hits_out.filter(Exists(Judgment.objects.filter(line_2, hit=OuterRef("pk"))))
    items_out = PoolItem.objects.filter(topic=OuterRef("topic")).exclude(_in_scope(OuterRef("pk")))
    # An item is judged when it has hits and its line left none unjudged (three levels out:
    # judgment -> hit -> pool item -> the assignment row).
    line_3 = line_judgments_of(
        OuterRef(OuterRef(OuterRef("pk"))), OuterRef(OuterRef(OuterRef("line_start")))
    )
    unjudged = Hit.objects.filter(item=OuterRef("pk")).exclude(
        Exists(Judgment.objects.filter(line_3, hit=OuterRef("pk")))
    )
    done_out = items_out.filter(Exists(Hit.objects.filter(item=OuterRef("pk")))).exclude(
        Exists(unjudged)
    )
    # Items are counted for formula tasks only (elsewhere an item is one hit): a CASE spares
    # the other tasks' rows those subqueries.
    formula = Q(topic__task__kind=RetrievalTask.Kind.FORMULA)
    rows = (
        assignments.filter(scoped=True, revoked_at__isnull=True)
        .annotate(
            n_judged=Coalesce(SubqueryCount(judged_out), 0),
            n_items=Case(When(formula, then=Coalesce(SubqueryCount(items_out), 0)), default=0),
            n_done=Case(When(formula, then=Coalesce(SubqueryCount(done_out), 0)), default=0),
        )
        .values_list(
            "pk",
            "topic_id",
            "topic__task_id",
            "assessor_id",
            "n_judged",
            "n_items",
            "n_done",
        )
    )
    found = list(rows)
    if not found:
        return {}
    hits = _hits_outside([(pk, topic_id) for pk, topic_id, *_ in found])
    return {
        pk: OutsideScope(pk, topic_id, task_id, assessor_id, hits[pk], *counts)
        for pk, topic_id, task_id, assessor_id, *counts in found
    }


@dataclass(frozen=True)
class ScopeItem:
    """One pool item of a scope, for the organizer: its key (a post id, a docno, a visual id)
    and how far the assessor's line has judged it (never the grades)."""

    item_id: int
    key: str
    status: ItemStatus

    @property
    def judged(self) -> bool:
        """Some hit of it is judged: removing it keeps those judgments."""
        return self.status.judged > 0


def scope_items(assignment: Assignment) -> list[ScopeItem]:
    """The items of a scoped assignment's scope in display order: two queries."""
    statuses = item_statuses(assignment)
    keys = dict(
        PoolItem.objects.filter(pk__in=[s.item_id for s in statuses]).values_list("pk", "key")
    )
    return [ScopeItem(s.item_id, keys[s.item_id], s) for s in statuses]
