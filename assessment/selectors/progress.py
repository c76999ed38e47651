"""An assessor's assignments and how far each has got: progress, item statuses, what's next.

Training assignments cover only their round's items, scoped assignments only their scope's
(``AssignmentItem``); everything else an assessor reaches is
scoped through ``pool_items_of``. After a continue-move the hits judged by a previous
assessor count as done (``assessment.selectors.handover``); their grades are never read here.
Each function runs a fixed number of queries.

Progress is told in the task's own units (``Progress``): a formula task's pool items are
visually distinct formulae, each judged in up to N posts, so it counts both ("12 of 44
formulae · 30 of 100 posts"); an answer task's items are answers, one hit each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    Func,
    IntegerField,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    When,
)
from django.db.models.functions import Coalesce

from assessment.models import Assignment, Judgment
from assessment.selectors.handover import (
    counted_judgments,
    line_judgments,
    line_judgments_of,
    previous_judgments,
)
from collection.models import RetrievalTask
from kernel.prepared import prepared_rows
from pooling.models import Hit, PoolItem

__all__ = [
    "SCOPE_EMPTIED_TEXT",
    "AssignmentProgress",
    "ItemStatus",
    "Progress",
    "SubqueryCount",
    "Units",
    "assignment_for",
    "assignment_from_ids",
    "assignment_ids",
    "assignments_with_progress",
    "covered",
    "item_statuses",
    "next_unjudged_item_id",
    "official_item_counts",
    "pool_items_of",
    "progress_of",
    "scope_emptied",
    "scope_key",
    "statuses_of_items",
    "units_of",
    "with_covered_hits",
]


_HJ = "hits__judgments__"  # from a pool item to its hits' judgments


@dataclass(frozen=True)
class Units:
    """What a task's pool items and hits are called, singular and plural."""

    item: str
    items: str
    hit: str
    hits: str

    @property
    def item_is_hit(self) -> bool:
        """One hit per item (answers): counting both would say the same thing twice."""
        return self.item == self.hit


ANSWER_UNITS = Units("answer", "answers", "answer", "answers")
UNITS = {
    RetrievalTask.Kind.ANSWER: ANSWER_UNITS,
    RetrievalTask.Kind.OPENQA: ANSWER_UNITS,
    RetrievalTask.Kind.FORMULA: Units("formula", "formulae", "post", "posts"),
    RetrievalTask.Kind.DOCUMENT: Units("document", "documents", "document", "documents"),
}


def units_of(kind: str) -> Units:
    """The units of a task kind; an unknown kind counts neutral items and hits."""
    return UNITS.get(kind, Units("item", "items", "hit", "hits"))  # type: ignore[call-overload]


@dataclass(frozen=True)
class Progress:
    """How much of a topic (or a task) is judged, in its units."""

    kind: str
    judged_items: int
    items: int
    judged_hits: int
    hits: int

    @property
    def units(self) -> Units:
        return units_of(self.kind)

    @property
    def percent(self) -> int:
        return round(100 * self.judged_hits / self.hits) if self.hits else 0

    @property
    def counts_items(self) -> bool:
        """Whether items and hits differ (formulae in posts) and both are told."""
        return not self.units.item_is_hit

    @property
    def items_word(self) -> str:
        return self.units.item if self.items == 1 else self.units.items

    @property
    def hits_word(self) -> str:
        return self.units.hit if self.hits == 1 else self.units.hits

    def __str__(self) -> str:
        """Like "12 of 44 formulae · 30 of 100 posts", or "30 of 100 answers"."""
        hits = f"{self.judged_hits} of {self.hits} {self.hits_word}"
        if not self.counts_items:
            return hits
        return f"{self.judged_items} of {self.items} {self.items_word} · {hits}"


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


ITEM_STATES = ("unjudged", "partial", "judged", "flagged", "previous")  # ItemStatus.state


@dataclass(frozen=True)
class ItemStatus:
    item_id: int
    position: int  # 1-based, in the pool's display order
    hits: int
    judged: int  # by this assessor or, after a continue-move, by a previous one
    flagged: int  # this assessor's own flags
    best_grade: int | None = None  # the highest grade this assessor gave a hit of the item
    previous: int = 0  # hits judged by a previous assessor (grades never shown)

    @property
    def state(self) -> str:
        if self.hits and self.judged >= self.hits:
            if self.previous >= self.hits:
                return "previous"
            return "flagged" if self.flagged else "judged"
        return "partial" if self.judged else "unjudged"


def _status_rows(
    assignment: Assignment, *, detail: bool, items: QuerySet[PoolItem] | None = None
) -> QuerySet[PoolItem]:
    """The pool items of ``item_statuses`` (or ``items``) with their counts as annotations."""
    mine = Q(hits__judgments__assignment=assignment)
    counts: dict[str, Count | Max] = {
        "n_hits": Count("hits", distinct=True),
        "n_judged": Count("hits__judgments", filter=line_judgments(assignment, prefix=_HJ)),
    }
    previous = previous_judgments(assignment, prefix=_HJ)
    if detail:
        counts["n_flagged"] = Count("hits__judgments", filter=mine & ~Q(hits__judgments__flag=""))
        counts["best"] = Max("hits__judgments__grade", filter=mine)
        if previous is not None:
            counts["n_previous"] = Count("hits__judgments", filter=previous)
    items = pool_items_of(assignment) if items is None else items
    return items.order_by("display_order").only("pk").annotate(**counts)


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


def _plain_status_rows(**ids: Any) -> QuerySet[PoolItem]:
    return _status_rows(assignment_from_ids(**ids), detail=False)


def item_statuses(assignment: Assignment, *, detail: bool = False) -> list[ItemStatus]:
    """Every pool item of the assignment's topic in display order with its judged hits.

    One query; the judgment join is restricted to the assignment's line (its own judgments
    and, after a continue-move, the previous assessors'). ``detail`` adds the flagged count
    and the best grade, both of the assessor's own judgments (the item list shows them; the
    judging page needs neither), and the hits judged by a previous assessor. Without detail
    (every judging page and submit asks) the query's SQL is built once (kernel.prepared).
    """
    rows: list[Any]  # pool items with the counts as attributes
    if detail:
        rows = list(_status_rows(assignment, detail=True))
    else:
        rows = prepared_rows(PoolItem, _plain_status_rows, **assignment_ids(assignment))
    return _statuses(rows, detail=detail)


def statuses_of_items(assignment: Assignment, items: QuerySet[PoolItem]) -> list[ItemStatus]:
    """``item_statuses`` with detail for other ``items`` of the assignment's topic (such as
    those taken out of its scope that it judged), positions counted among them. One query."""
    return _statuses(list(_status_rows(assignment, detail=True, items=items)), detail=True)


def _statuses(rows: list[Any], *, detail: bool) -> list[ItemStatus]:
    return [
        ItemStatus(
            item_id=row.pk,
            position=i,
            hits=row.n_hits,
            judged=row.n_judged,
            flagged=row.n_flagged if detail else 0,
            best_grade=row.best if detail else None,
            previous=getattr(row, "n_previous", 0) if detail else 0,
        )
        for i, row in enumerate(rows, start=1)
    ]


def next_unjudged_item_id(statuses: list[ItemStatus], after_item_id: int | None) -> int | None:
    """The first item after ``after_item_id`` (wrapping round) with a hit still unjudged."""
    start = next((s.position for s in statuses if s.item_id == after_item_id), 0)
    ordered = statuses[start:] + statuses[:start]
    return next((s.item_id for s in ordered if s.judged < s.hits), None)


def progress_of(statuses: list[ItemStatus], kind: str = "") -> Progress:
    """The progress of one assignment from its item statuses (no query); without the task's
    kind its units are neutral (the counts are the same)."""
    return Progress(
        kind,
        judged_items=sum(1 for s in statuses if s.hits and s.judged >= s.hits),
        items=len(statuses),
        judged_hits=sum(s.judged for s in statuses),
        hits=sum(s.hits for s in statuses),
    )


def official_item_counts(items: QuerySet[PoolItem], group: str) -> dict[int, tuple[int, int]]:
    """Items and fully judged items per ``group`` (a field path of PoolItem such as
    ``"topic_id"``), a hit counting as judged once an official judgment that still counts
    (``counted_judgments``: the hit counts are taken the same way) judged it. One grouped
    query."""
    judged = Judgment.objects.filter(
        counted_judgments(), hit=OuterRef("pk"), assignment__purpose=Assignment.Purpose.OFFICIAL
    )
    unjudged = Hit.objects.filter(item=OuterRef("pk")).exclude(Exists(judged))
    done = Q(Exists(Hit.objects.filter(item=OuterRef("pk")))) & ~Q(Exists(unjudged))
    rows = (
        items.order_by()
        .values(group)
        .annotate(n=Count("pk"), n_done=Count("pk", filter=done))
        .values_list(group, "n", "n_done")
    )
    return {key: (n, n_done) for key, n, n_done in rows}
