"""What an assignment covers (``pool_items_of``, and the same rule in SQL, per assignment
row, for the counts of many assignments in one query)."""

from __future__ import annotations

from typing import Any

from django.db.models import Case, Exists, F, Func, IntegerField, OuterRef, QuerySet, Subquery, When
from django.db.models.functions import Coalesce

from assessment.models import Assignment, Judgment
from assessment.selectors.handover import line_judgments_of
from pooling.models import Hit, PoolItem


class SubqueryCount(Subquery):
    """COUNT(*) of a correlated queryset, as a scalar subquery (0 when empty)."""

    output_field = IntegerField()

    def __init__(self, queryset, **extra) -> None:  # type: ignore[no-untyped-def]
        counted = queryset.order_by().annotate(n=Func(F("pk"), function="COUNT")).values("n")[:1]
        super().__init__(counted, **extra)


def pool_items_of(assignment: Assignment) -> QuerySet[PoolItem]:
    """The pool items an assignment covers: its topic's, only the round's in training, or only
    its own scope's (a scoped assignment, such as a drawn human sample's)."""
    items = PoolItem.objects.filter(topic_id=assignment.topic_id)
    if assignment.training_round_id is not None:
        items = items.filter(training_rounds=assignment.training_round_id)
    if assignment.scoped:
        items = items.filter(assignment_scopes__assignment=scope_key(assignment))
    return items


def scope_key(assignment: Assignment) -> Any:
    """The id a scoped assignment's items are found by: its own; in a prepared query, the
    stand-in ``assignment_from_ids`` was given for the scope (each stand-in must be bound)."""
    return getattr(assignment, "prepared_scope", assignment.pk)


def covered(unscoped: Any, *, training: Any, scoped: Any) -> Case:
    """Per assignment row: ``scoped`` for a scoped assignment, ``training`` for a training
    round's, ``unscoped`` for one covering its topic's whole pool."""
    return Case(
        When(scoped=True, then=scoped),
        When(training_round__isnull=True, then=unscoped),
        default=training,
    )


def _unjudged_hits(pk_ref: OuterRef, line_ref: OuterRef, item_ref: OuterRef):  # type: ignore[no-untyped-def]
    """Hits of an item with no judgment in the (outer) assignment's line."""
    judged = Judgment.objects.filter(line_judgments_of(pk_ref, line_ref), hit=OuterRef("pk"))
    return Hit.objects.filter(item=item_ref).exclude(Exists(judged))


def with_covered_hits(assignments: QuerySet[Assignment]) -> QuerySet[Any]:
    """``assignments`` annotated with ``n_total``, the hits each covers
    (``pool_items_of``'s rule in SQL), and ``n_judged``, how many of them its line has judged.
    A scoped assignment counts only what is in its scope now: a judgment made before its item
    left the scope is kept (and counts toward qrels), just not counted here."""
    topic_hits = Hit.objects.filter(item__topic=OuterRef("topic"))
    line_judged = Judgment.objects.filter(line_judgments_of(OuterRef("pk"), OuterRef("line_start")))
    in_scope = {"item__assignment_scopes__assignment": OuterRef("pk")}
    return assignments.annotate(
        n_total=covered(
            Coalesce(SubqueryCount(topic_hits), 0),
            training=Coalesce(
                SubqueryCount(topic_hits.filter(item__training_rounds=OuterRef("training_round"))),
                0,
            ),
            scoped=Coalesce(SubqueryCount(topic_hits.filter(**in_scope)), 0),
        ),
        n_judged=Case(
            When(
                scoped=True,
                then=Coalesce(
                    SubqueryCount(
                        line_judged.filter(hit__item__assignment_scopes__assignment=OuterRef("pk"))
                    ),
                    0,
                ),
            ),
            default=Coalesce(SubqueryCount(line_judged), 0),
        ),
    )
