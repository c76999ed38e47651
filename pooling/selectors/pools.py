"""What organizers read about a task's pools: sizes, unique contributions, overlap, depths.

Every figure comes from a handful of aggregate queries over the annotated pool (Contribution
rows), whatever the number of topics and runs, and the overlap of runs from bit sets of their
items (pooling.core.algorithms.overlap). A run's pool depth on a topic is the largest rank among its
contributions there: for answer pools the rank of its ``depth``-th distinct post, for formula
pools the rank of the first instance of its k-th visually distinct formula.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

from django.db.models import Count, Max, Q

from collection.models import RetrievalTask, Topic
from pooling.core.algorithms.overlap import Overlap, pool_overlap
from pooling.models import Contribution, Hit, PoolBuild, PoolItem, Run
from pooling.selectors.joined_text import JoinedText
from pooling.selectors.pool_inputs import pooled_task


@dataclass
class TopicStats:
    topic_id: int
    number: str
    items: int = 0
    hits: int = 0
    orphaned: int = 0


@dataclass
class RunStats:
    run_id: int
    label: str  # team/tag
    team: str
    role: str
    task_kind: str
    is_baseline: bool = False
    pool_as_primary: bool = False
    depth_override: int | None = None
    pooled: int = 0
    unique: int = 0
    depth_min: int | None = None
    depth_median: float | None = None
    depth_max: int | None = None


@dataclass
class PoolStats:
    task_id: int
    pooled_task_id: int  # the answer task, for an open-QA task
    kind: str
    topics: list[TopicStats] = field(default_factory=list)
    runs: list[RunStats] = field(default_factory=list)
    teams: list[dict[str, Any]] = field(default_factory=list)  # team, unique
    overlap: list[dict[str, Any]] = field(default_factory=list)  # run_a, run_b, shared
    totals: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _topic_stats(target: RetrievalTask) -> list[TopicStats]:
    topics = {
        pk: TopicStats(pk, number)
        for pk, number in Topic.objects.filter(task=target)
        .order_by("id")
        .values_list("id", "number")
    }
    per_topic = (
        PoolItem.objects.filter(topic__task=target)
        .values("topic_id")
        .annotate(items=Count("id"), orphaned=Count("id", filter=Q(is_orphaned=True)))
    )
    for row in per_topic:
        topics[row["topic_id"]].items = row["items"]
        topics[row["topic_id"]].orphaned = row["orphaned"]
    hits = Hit.objects.filter(item__topic__task=target).values("item__topic_id")
    for topic_id, count in hits.annotate(n=Count("id")).values_list("item__topic_id", "n"):
        topics[topic_id].hits = count
    return list(topics.values())


def _pooled(target: RetrievalTask) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
    """Run -> its pool depth on each topic it contributed to; run -> the items it pooled.

    A row per run and topic, however many contributions: the overlap is then counted on bit
    sets in Python (pooling.core.algorithms.overlap), not by a self-join."""
    rows = (
        Contribution.objects.filter(item__topic__task=target)
        .values("run_id", "item__topic_id")
        .annotate(depth=Max("rank"), items=JoinedText("item_id"))
        .values_list("run_id", "depth", "items")
    )
    depths: dict[int, list[int]] = defaultdict(list)
    chunks: dict[int, list[str]] = defaultdict(list)
    for run_id, depth, items in rows:
        depths[run_id].append(depth)
        chunks[run_id].append(items)
    return depths, {run: [int(i) for i in ",".join(c).split(",")] for run, c in chunks.items()}


def _run_stats(target: RetrievalTask) -> tuple[list[RunStats], list[dict[str, Any]], Overlap]:
    depths, items = _pooled(target)
    fields = ["id", "team_id", "team__name", "tag", "role", "task__kind"]
    fields += ["is_baseline", "pool_as_primary", "depth_override"]
    found = Run.objects.filter(Q(task=target) | Q(pk__in=list(items))).order_by("team__name", "tag")
    rows = list(found.values(*fields))
    overlap = pool_overlap(items, {row["id"]: row["team_id"] for row in rows})
    runs = []
    for row in rows:
        stats = RunStats(
            row["id"],
            f"{row['team__name']}/{row['tag']}",
            row["team__name"],
            row["role"],
            row["task__kind"],
            row["is_baseline"],
            row["pool_as_primary"],
            row["depth_override"],
            pooled=overlap.pooled.get(row["id"], 0),
            unique=overlap.unique.get(row["id"], 0),
        )
        if row["id"] in depths:
            values = sorted(depths[row["id"]])
            stats.depth_min, stats.depth_max = values[0], values[-1]
            stats.depth_median = statistics.median(values)
        runs.append(stats)
    teams = {row["team_id"]: row["team__name"] for row in rows}
    return runs, _team_stats(overlap, teams), overlap


def _team_stats(overlap: Overlap, names: dict[int, str]) -> list[dict[str, Any]]:
    """Items only one team's runs put in the pool, per team that has any."""
    return sorted(
        ({"team": names[pk], "unique": n} for pk, n in overlap.team_unique.items() if n),
        key=lambda row: (-row["unique"], row["team"]),
    )


def pool_stats(task: RetrievalTask) -> PoolStats:
    """Per topic, per run, per team and per run pair figures of ``task``'s pools."""
    target = pooled_task(task)
    stats = PoolStats(task.pk, target.pk, task.kind, topics=_topic_stats(target))
    stats.runs, stats.teams, overlap = _run_stats(target)
    stats.overlap = [
        {"run_a": a, "run_b": b, "shared": shared} for (a, b), shared in overlap.shared.items()
    ]
    stats.totals = {
        "topics": len(stats.topics),
        "items": sum(t.items for t in stats.topics),
        "hits": sum(t.hits for t in stats.topics),
        "orphaned": sum(t.orphaned for t in stats.topics),
        "runs": len(stats.runs),
    }
    return stats


def overlap_matrix(stats: PoolStats) -> list[dict[str, Any]]:
    """Rows of a run-by-run table of shared items (the diagonal: the run's pooled items)."""
    shared = {(o["run_a"], o["run_b"]): o["shared"] for o in stats.overlap}
    rows = []
    for a in stats.runs:
        cells = []
        for b in stats.runs:
            if a.run_id == b.run_id:
                count = a.pooled
            else:
                pair = (min(a.run_id, b.run_id), max(a.run_id, b.run_id))
                count = shared.get(pair, 0)
            share = count / a.pooled if a.pooled else 0.0
            cells.append({"count": count, "share": share, "self": a.run_id == b.run_id})
        rows.append({"run": a, "cells": cells})
    return rows


def latest_build(task: RetrievalTask) -> PoolBuild | None:
    return PoolBuild.objects.filter(task=task).order_by("-id").first()


def build_status(build: PoolBuild | None) -> dict[str, Any]:
    """What the progress bar polls."""
    if build is None:
        return {"build": None, "status": "none", "topics_done": 0, "topics_total": 0}
    return {
        "build": build.pk,
        "status": build.status,
        "topics_done": build.topics_done,
        "topics_total": build.topics_total,
        "stats": build.stats,
        "error": build.error,
        "created_at": build.created_at.isoformat(),
        "finished_at": build.finished_at.isoformat() if build.finished_at else None,
        "attempts": build.attempts,
        "worker_lost_at": build.worker_lost_at.isoformat() if build.worker_lost_at else None,
    }


def pooled_tasks() -> Iterator[tuple[RetrievalTask, PoolBuild | None, int]]:
    """Every task with its latest build and the number of pool items its topics hold."""
    tasks = RetrievalTask.objects.select_related("campaign").order_by(
        "campaign__name", "kind", "name"
    )
    items = dict(
        PoolItem.objects.values("topic__task_id")
        .annotate(n=Count("id"))
        .values_list("topic__task_id", "n")
    )
    last = PoolBuild.objects.values("task_id").annotate(last=Max("id")).values_list("last")
    builds = {build.task_id: build for build in PoolBuild.objects.filter(pk__in=last)}
    for task in tasks:
        yield task, builds.get(task.pk), items.get(task.pk, 0)
