"""Organizer progress: items fully judged by official judgments that still count."""

from __future__ import annotations

from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from assessment.models import Assignment, Judgment
from assessment.selectors.handover import counted_judgments
from pooling.models import Hit, PoolItem


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
