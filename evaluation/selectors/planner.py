"""What the pool planner page reads: the task's runs as the planner takes them, its latest plan,
and the chart of a plan (docs/pooling.md, "The planner on the pool page").

Runs are named as budgeted pools name them (``pooling.selectors.strategy_inputs.run_names``:
the tag, or ``team/tag`` where two teams share one); a run's group is its team, as
leave-one-group-out needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from sys import intern
from typing import Any

from django.db import connection
from django.db.models import QuerySet
from django.db.models.expressions import RawSQL

from collection.models import RetrievalTask, Topic
from evaluation.models import PoolPlanJob
from pooling.models import Run, RunRow
from pooling.selectors.strategy_inputs import run_names

_RUNROW = RunRow._meta.db_table
_TOPIC = Topic._meta.db_table


@dataclass(frozen=True)
class TaskRuns:
    runs: dict[str, dict[str, dict[str, float]]]  # run name -> topic -> docno -> score
    groups: dict[str, str]  # run name -> its team


def planner_runs(task: RetrievalTask, topics: Sequence[str]) -> TaskRuns:
    """Every accepted run of ``task`` (all are pooled, all are scored) for ``topics``."""
    accepted = list(
        Run.objects.filter(task=task, status=Run.Status.ACCEPTED).values_list("id", "team__name")
    )
    names = run_names([pk for pk, _team in accepted])
    runs: dict[str, dict[str, dict[str, float]]] = {names[pk]: {} for pk, _team in accepted}
    wanted = set(topics)
    if accepted:
        ids = ", ".join(["%s"] * len(accepted))
        sql = (
            f"SELECT r.run_id, t.number, r.docno, r.score FROM {_RUNROW} r "  # noqa: S608
            f"JOIN {_TOPIC} t ON t.id = r.topic_id WHERE r.run_id IN ({ids})"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [pk for pk, _team in accepted])
            for run_id, number, docno, score in cursor.fetchall():
                if number in wanted:
                    runs[names[run_id]].setdefault(number, {})[intern(docno)] = score
    return TaskRuns(runs, {names[pk]: team for pk, team in accepted})


def accepted_run_names(task: RetrievalTask) -> list[str]:
    """The names of the task's accepted runs (as ``planner_runs`` names them), sorted: the
    runs a plan may pool from."""
    ids = Run.objects.filter(task=task, status=Run.Status.ACCEPTED).values_list("id", flat=True)
    return sorted(run_names(list(ids)).values())


def why_not_pooled(task: RetrievalTask, name: str) -> str:
    """Why ``name`` (a tag, or ``team/tag``) names none of the task's accepted runs."""
    team, _slash, tag = name.rpartition("/")
    runs = Run.objects.filter(tag=tag).select_related("task__campaign")
    if team:
        runs = runs.filter(team__name=team)
    found = list(runs.order_by("id")[:20])
    mine = [run for run in found if run.task_id == task.pk]
    if mine:
        if all(run.status == Run.Status.ACCEPTED for run in mine):
            # Two teams of this task share the tag: the name must say whose.
            return f"run {name!r} of {task} is ambiguous: name it team/tag"
        return f"run {name!r} of {task} is {mine[0].status}, not accepted"
    if found:
        return f"run {name!r} is a run of {found[0].task}, not of {task}"
    return f"{task} has no run {name!r}"


# The number of prior judgments, counted by PostgreSQL: a plan's prior may hold millions.
_PRIOR_JUDGMENTS = (
    "SELECT coalesce(sum((SELECT count(*) FROM jsonb_object_keys(docs.value))), 0) "  # noqa: S608
    f"FROM jsonb_each({PoolPlanJob._meta.db_table}.grades) AS docs"
)


def task_plans(task: RetrievalTask) -> QuerySet[PoolPlanJob]:
    """The task's plans, newest first, without their prior judgments and tables (read
    apart), each with ``prior_judgments``."""
    return (
        PoolPlanJob.objects.filter(task=task)
        .defer("grades", "rows")
        .annotate(prior_judgments=RawSQL(_PRIOR_JUDGMENTS, ()))  # noqa: S611
        .order_by("-pk")
    )


def latest_plan(task: RetrievalTask) -> PoolPlanJob | None:
    return PoolPlanJob.objects.filter(task=task).order_by("-pk").first()


def plan_status(job: PoolPlanJob | None) -> dict[str, Any]:
    """What the progress bar polls."""
    if job is None:
        return {"build": None, "status": "none", "steps_done": 0, "steps_total": 0}
    return {
        "build": job.pk,
        "status": job.status,
        "steps_done": job.steps_done,
        "steps_total": job.steps_total,
        "error": job.error,
        "attempts": job.attempts,
        "worker_lost_at": job.worker_lost_at.isoformat() if job.worker_lost_at else None,
    }


# The chart: relevant share (y) against budget (x), one line per strategy.
WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 720, 320, 56, 24, 16, 44


@dataclass(frozen=True)
class Line:
    strategy: str
    points: str  # the polyline's "x,y x,y ..."
    dots: list[tuple[float, float, str]]  # x, y, the point's title
    colour: int  # a class index (the stylesheet's palette)
    label_y: float


@dataclass(frozen=True)
class Chart:
    lines: list[Line]
    x_ticks: list[tuple[float, str]]
    y_ticks: list[tuple[float, str]]
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    bottom_y: int = HEIGHT - BOTTOM
    right_x: int = WIDTH - RIGHT
    top: int = TOP


def plan_chart(rows: Sequence[dict[str, Any]]) -> Chart | None:
    """The share of the prior relevant documents each strategy finds at each budget."""
    budgets = sorted({int(row["budget"]) for row in rows})
    if not budgets:
        return None
    low, high = budgets[0], budgets[-1]
    span_x = WIDTH - LEFT - RIGHT
    span_y = HEIGHT - TOP - BOTTOM

    def x(budget: int) -> float:
        return round(
            LEFT + (span_x * (budget - low) / (high - low) if high > low else span_x / 2), 1
        )

    def y(share: float) -> float:
        return round(TOP + span_y * (1 - share), 1)

    strategies = list(dict.fromkeys(str(row["strategy"]) for row in rows))
    lines = []
    for index, strategy in enumerate(strategies):
        mine = sorted(
            (int(r["budget"]), float(r["relevant_share"]))
            for r in rows
            if r["strategy"] == strategy
        )
        dots = [(x(b), y(s), f"{strategy} at {b}: {100 * s:.1f}% of the relevant") for b, s in mine]
        lines.append(
            Line(
                strategy,
                " ".join(f"{px},{py}" for px, py, _t in dots),
                dots,
                index % 8,
                dots[-1][1] + 4 if dots else TOP,
            )
        )
    return Chart(
        lines,
        [(x(b), str(b)) for b in budgets],
        [(y(share / 100), f"{share}%") for share in (0, 25, 50, 75, 100)],
    )


def plan_table(rows: Sequence[dict[str, Any]], measures: Sequence[str]) -> list[dict[str, Any]]:
    """The table's rows: each with ``cells`` (tau, tau-AP, drop, group) per measure, in order."""
    table = []
    for row in rows:
        cells: list[tuple[Any, Any, Any, Any]] = []
        if not row["judgments"]:
            # Nothing judged (a budget below one full level of depth pooling, say): every run
            # scores 0, so a tau of 0 would read as "no agreement" when there is no ranking.
            cells = [(None, None, None, None) for _ in measures]
            table.append({**row, "percent": 0.0, "cells": cells, "unjudged": True})
            continue
        for name in measures:
            drop = row["max_group_drop"].get(name) or {}
            cells.append(
                (row["tau"].get(name), row["tau_ap"].get(name), drop.get("drop"), drop.get("group"))
            )
        table.append(
            {**row, "percent": round(100 * float(row["relevant_share"]), 1), "cells": cells}
        )
    return table
