"""Demo step: build the pools of every task of the demo campaign.

``demo_build_pools(campaign)`` builds (or incrementally rebuilds: nothing changes when nothing
is new) the answer, formula and document pools in-process; open-QA answers, if the campaign
has them, join the answer pools. Returns a summary for the demo command to print.
"""

from __future__ import annotations

from django.db.models import Count

from collection.models import Campaign, RetrievalTask
from pooling.models import PoolItem
from pooling.services.pools import pool_build

__all__ = ["demo_build_pools"]


def demo_build_pools(campaign: Campaign | None) -> str:
    """Build the pools of ``campaign``'s tasks (all but open QA); one summary line per task."""
    if campaign is None:
        return "  no campaign: skipped the pools"
    lines = []
    tasks = campaign.tasks.exclude(kind=RetrievalTask.Kind.OPENQA).order_by("kind", "name")
    for task in tasks:
        build = pool_build(task=task)
        figures = PoolItem.objects.filter(topic__task=task).aggregate(
            items=Count("id", distinct=True), hits=Count("hits")
        )
        lines.append(
            f"  {task.kind}: {figures['items']} pool items, {figures['hits']} hits over "
            f"{build.topics_done} topics (build {build.pk}): /pools/{task.pk}/"
        )
    return "\n".join(lines) or "  no tasks: skipped the pools"
