"""What organizers read about a task's pools: sizes, unique contributions, overlap, depths.

Every figure comes from a handful of aggregate queries over the annotated pool (Contribution
rows), whatever the number of topics and runs. A run's pool depth on a topic is the largest
rank among its contributions there: for answer pools the rank of its ``depth``-th distinct post,
for formula pools the rank of the first instance of its k-th visually distinct formula.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

from django.db import connection
from django.db.models import Count, Max, Q

from collection.models import RetrievalTask, Topic
from pooling.models import Contribution, Hit, PoolBuild, PoolItem, Run, Team
from pooling.selectors.pool_inputs import pooled_task

_CONTRIBUTION = Contribution._meta.db_table
_ITEM = PoolItem._meta.db_table
_TOPIC = Topic._meta.db_table
_RUN = Run._meta.db_table


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


def _fetch(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


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


# Contributions of the task's items, with how many runs / teams share each item.
_SHARED = f"""
    SELECT c.item_id, c.run_id, c.rank, i.topic_id, r.team_id,
           COUNT(*) OVER (PARTITION BY c.item_id) AS runs
    FROM {_CONTRIBUTION} c
    JOIN {_ITEM} i ON i.id = c.item_id
    JOIN {_TOPIC} t ON t.id = i.topic_id
    JOIN {_RUN} r ON r.id = c.run_id
    WHERE t.task_id = %s
"""  # noqa: S608


def _run_stats(target: RetrievalTask) -> tuple[list[RunStats], list[dict[str, Any]]]:
    contributions = _fetch(_SHARED, [target.pk])
    run_ids = {row[1] for row in contributions}
    fields = ["id", "team__name", "tag", "role", "task__kind"]
    fields += ["is_baseline", "pool_as_primary", "depth_override"]
    found = Run.objects.filter(Q(task=target) | Q(pk__in=run_ids)).order_by("team__name", "tag")
    runs = {
        row["id"]: RunStats(
            row["id"],
            f"{row['team__name']}/{row['tag']}",
            row["team__name"],
            row["role"],
            row["task__kind"],
            row["is_baseline"],
            row["pool_as_primary"],
            row["depth_override"],
        )
        for row in found.values(*fields)
    }
    depths: dict[int, dict[int, int]] = defaultdict(dict)  # run -> topic -> max rank
    item_teams: dict[int, set[int]] = defaultdict(set)
    for item_id, run_id, rank, topic_id, team_id, sharing in contributions:
        stats = runs[run_id]
        stats.pooled += 1
        stats.unique += sharing == 1
        depths[run_id][topic_id] = max(rank, depths[run_id].get(topic_id, 0))
        item_teams[item_id].add(team_id)
    for run_id, by_topic in depths.items():
        values = sorted(by_topic.values())
        runs[run_id].depth_min, runs[run_id].depth_max = values[0], values[-1]
        runs[run_id].depth_median = statistics.median(values)
    return list(runs.values()), _team_stats(item_teams)


def _team_stats(item_teams: dict[int, set[int]]) -> list[dict[str, Any]]:
    """Items only one team's runs put in the pool, per team."""
    unique_by_team: dict[int, int] = defaultdict(int)
    for teams in item_teams.values():
        if len(teams) == 1:
            unique_by_team[next(iter(teams))] += 1
    names = dict(Team.objects.filter(pk__in=unique_by_team).values_list("id", "name"))
    return sorted(
        ({"team": names[pk], "unique": n} for pk, n in unique_by_team.items()),
        key=lambda row: (-row["unique"], row["team"]),
    )


_OVERLAP = f"""
    SELECT a.run_id, b.run_id, COUNT(*)
    FROM {_CONTRIBUTION} a
    JOIN {_CONTRIBUTION} b ON b.item_id = a.item_id AND b.run_id > a.run_id
    JOIN {_ITEM} i ON i.id = a.item_id
    JOIN {_TOPIC} t ON t.id = i.topic_id
    WHERE t.task_id = %s
    GROUP BY a.run_id, b.run_id
"""  # noqa: S608


def _overlap(target: RetrievalTask) -> list[dict[str, Any]]:
    return [
        {"run_a": a, "run_b": b, "shared": shared} for a, b, shared in _fetch(_OVERLAP, [target.pk])
    ]


def pool_stats(task: RetrievalTask) -> PoolStats:
    """Per topic, per run, per team and per run pair figures of ``task``'s pools."""
    target = pooled_task(task)
    stats = PoolStats(task.pk, target.pk, task.kind, topics=_topic_stats(target))
    stats.runs, stats.teams = _run_stats(target)
    stats.overlap = _overlap(target)
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
    tasks = RetrievalTask.objects.select_related("campaign").order_by("campaign__name", "kind")
    items = dict(
        PoolItem.objects.values("topic__task_id")
        .annotate(n=Count("id"))
        .values_list("topic__task_id", "n")
    )
    last = PoolBuild.objects.values("task_id").annotate(last=Max("id")).values_list("last")
    builds = {build.task_id: build for build in PoolBuild.objects.filter(pk__in=last)}
    for task in tasks:
        yield task, builds.get(task.pk), items.get(task.pk, 0)
