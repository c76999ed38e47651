"""The items of one assignment with their statuses (judged, partial, flagged, ...), the
next one to judge, and the assignment's progress told from them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Max, Q, QuerySet

from assessment.models import Assignment
from assessment.selectors.handover import line_judgments, previous_judgments
from assessment.selectors.progress.coverage import pool_items_of
from assessment.selectors.progress.prepared import assignment_from_ids, assignment_ids
from assessment.selectors.progress.units import Progress
from kernel.prepared import prepared_rows
from pooling.models import PoolItem

ITEM_STATES = ("unjudged", "partial", "judged", "flagged", "previous")  # ItemStatus.state
_HJ = "hits__judgments__"  # from a pool item to its hits' judgments


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
