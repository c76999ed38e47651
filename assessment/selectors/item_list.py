"""An assignment's pool items with their hits, for a script judging over REST: the items in
the judging page's order, each hit by the ids the page shows (post id, candidate formula,
docno) and this assessor's own judgment of it.

Blind like the page: the hits come from ``own_hits`` (this assignment's judgments only; a
hit a previous assessor judged is marked, never graded). Nothing here reads a run, a rank, a
vote, a score or another assignment's judgment. A fixed number of queries for a page of
items, whatever the pool's size.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from assessment.models import Assignment
from assessment.selectors.judging import ItemPage, item_page, own_hits, own_judgment
from assessment.selectors.progress import ItemStatus, item_statuses
from assessment.selectors.taken_out import items_in_reach_of, taken_out_statuses
from collection.models import Document, Formula

__all__ = ["HitEntry", "ItemDetail", "ItemEntry", "item_detail", "item_entries"]


@dataclass(frozen=True)
class HitEntry:
    """One hit as a script sees it: what identifies it on the page, and the assessor's own
    judgment (``revision`` 0 when not judged; ``previous`` when a previous assessor judged
    it, which leaves nothing to do and nothing shown)."""

    hit_id: int
    position: int
    post_id: int | None
    formula_id: int | None
    formula_latex: str
    docno: str
    previous: bool
    grade: int | None
    flag: str
    comment: str
    answers: dict[str, bool]
    revision: int
    updated_at: datetime | None


@dataclass(frozen=True)
class ItemEntry:
    """A pool item in page order, its state as the item list shows it, and its hits."""

    status: ItemStatus
    answer: str  # a generated answer's text (open QA items), else ""
    hits: list[HitEntry]


def item_entries(assignment: Assignment, statuses: Sequence[ItemStatus]) -> list[ItemEntry]:
    """The items of ``statuses`` (a page of ``item_statuses(assignment)``) with their hits.
    Three queries at most: hits with their own judgments, candidate formulas, docnos."""
    wanted = [s.item_id for s in statuses]
    hits = list(own_hits(assignment, items_in_reach_of(assignment).filter(pk__in=wanted)))
    formula_ids = {h.formula_id for h in hits if h.formula_id is not None}
    latex = (
        dict(Formula.objects.filter(pk__in=formula_ids).values_list("pk", "latex"))
        if formula_ids
        else {}
    )
    document_ids = {h.document_id for h in hits if h.document_id}
    docnos = (
        dict(Document.objects.filter(pk__in=document_ids).values_list("pk", "docno"))
        if document_ids
        else {}
    )
    by_item: dict[int, list[HitEntry]] = defaultdict(list)
    items = {}
    for hit in hits:
        items[hit.item_id] = hit.item
        by_item[hit.item_id].append(
            HitEntry(
                hit_id=hit.pk,
                position=hit.position,
                post_id=hit.post_id,
                formula_id=hit.formula_id,
                formula_latex=latex.get(hit.formula_id, "") if hit.formula_id else "",
                docno=docnos.get(hit.document_id, "") if hit.document_id else "",
                previous=bool(getattr(hit, "by_previous", False)),
                **own_judgment(hit),
            )
        )
    return [
        ItemEntry(
            status=status,
            answer=items[status.item_id].answer if status.item_id in items else "",
            hits=by_item.get(status.item_id, []),
        )
        for status in statuses
    ]


@dataclass(frozen=True)
class ItemDetail:
    """One item as a list entry, with what its judging page shows: the topic, and each open
    hit's post or document as the page renders it (``item_page``, the page's own selector)."""

    entry: ItemEntry
    page: ItemPage


def item_detail(assignment: Assignment, item_id: int) -> ItemDetail | None:
    """The item of the assignment's topic with its content, or None when not within the
    assessor's reach. A fixed number of queries (the judging page's and the list entry's)."""
    statuses = [s for s in item_statuses(assignment, detail=True) if s.item_id == item_id]
    if not statuses:  # taken out of the scope after it was judged: still open to revise
        statuses = [s for s in taken_out_statuses(assignment) if s.item_id == item_id]
    if not statuses:
        return None
    page = item_page(assignment, item_id)
    if page is None:
        return None
    [entry] = item_entries(assignment, statuses)
    return ItemDetail(entry, page)
