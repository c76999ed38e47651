"""The pool planner as a background job on a task's runs (docs/pooling.md, "The planner on the
pool page"): the organizer picks the prior judgments (an uploaded qrels file, a relevance-only
file, or the judgments made so far), strategies and budgets; a worker replays them with
``evaluation.core.pool_planner`` over every accepted run of the task, a strategy at a time,
and stores the table. The same core as ``manage.py simulate_pools``, on the database's runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from django.db import transaction
from django.utils import timezone

from collection.models import RetrievalTask
from evaluation.core.official import official_measure_names
from evaluation.core.pool_planner import Planner, PlannerInput
from evaluation.core.qrels import qrels_from_judgments, qrels_grades
from evaluation.core.trec_measures import parse_measures
from evaluation.models import PoolPlanJob
from evaluation.selectors import judgment_records
from evaluation.selectors.planner import planner_runs
from evaluation.services.qrels import qrels_policy
from kernel.queue import (
    JobSuperseded,
    Reaped,
    job_beat,
    job_claim,
    job_enqueue_on_commit,
    job_heartbeat,
    jobs_reap,
)
from pooling.core.algorithms.strategies import Strategy, parse_strategy

# Shares of the prior judgments tried when no budget is given, as simulate_pools does.
DEFAULT_SHARES = (0.1, 0.2, 0.4)
MAX_BUDGETS = 12
MAX_STRATEGIES = 12


class PlanRequestError(ValueError):
    """A plan that cannot start (shown to the organizer)."""


def judgments_so_far(task: RetrievalTask) -> dict[str, dict[str, int]]:
    """The task's judgments as qrels would take them today (the task's policy), incomplete
    topics included: topic -> docno -> grade."""
    policy = replace(qrels_policy(task=task, min_relevant=0), relevant_from=task.relevance_level)
    build = qrels_from_judgments(judgment_records(task), kind=task.kind, policy=policy)  # type: ignore[arg-type]
    return qrels_grades(build.entries, kind="document")


def default_budgets(grades: dict[str, dict[str, int]]) -> list[int]:
    judged = sum(len(docs) for docs in grades.values())
    return sorted({max(1, round(judged * share)) for share in DEFAULT_SHARES})


def pool_plan_request(
    *,
    task: RetrievalTask,
    source: str,
    grades: dict[str, dict[str, int]],
    strategies: Sequence[Strategy],
    budgets: Sequence[int],
    source_name: str = "",
    seed: int = 0,
    requested_by: Any = None,
) -> PoolPlanJob:
    """Record a plan and hand it to a Celery worker once the record is committed. Raises
    `kernel.queue.QueueUnavailable` (the job is then failed) when the queue is down."""
    from evaluation.tasks import plan_pools_task  # the tasks module imports this one

    if task.kind != RetrievalTask.Kind.DOCUMENT:
        raise PlanRequestError("the planner replays document tasks' runs")
    if not grades:
        raise PlanRequestError("the prior judgments hold no judgment")
    if not strategies or len(strategies) > MAX_STRATEGIES:
        raise PlanRequestError(f"pick 1 to {MAX_STRATEGIES} strategies")
    budgets = sorted(set(budgets)) or default_budgets(grades)
    if len(budgets) > MAX_BUDGETS or min(budgets) < 1:
        raise PlanRequestError(f"give 1 to {MAX_BUDGETS} budgets, each at least 1 judgment")
    measures = official_measure_names(task.kind, task.official_measures) or []
    with transaction.atomic():
        job = PoolPlanJob.objects.create(
            task=task,
            source=source,
            source_name=source_name[:255],
            grades=grades,
            strategies=[s.label for s in strategies],
            budgets=budgets,
            measures=measures,
            seed=seed,
            steps_total=len(strategies),
            requested_by=requested_by,
        )
        job_enqueue_on_commit(
            model=PoolPlanJob, job_id=job.pk, attempt=job.attempts, celery_task=plan_pools_task
        )
    return job


def pool_plans_reap() -> list[Reaped]:
    from evaluation.tasks import plan_pools_task

    return jobs_reap(model=PoolPlanJob, celery_task=plan_pools_task)


def pool_plan_run(*, job: PoolPlanJob) -> PoolPlanJob:
    """Replay the job's strategies at its budgets and store the table (idempotent: the rows
    are written whole at the end). Raises JobSuperseded when another attempt owns the job."""
    attempt = job.attempts
    if not job_claim(model=PoolPlanJob, job_id=job.pk, attempt=attempt, error="", steps_done=0):
        raise JobSuperseded(f"pool plan {job.pk} attempt {attempt} is not to be run")
    try:
        with job_heartbeat(model=PoolPlanJob, job_id=job.pk, attempt=attempt):
            rows = _replay(job)
    except JobSuperseded:
        raise
    except Exception as error:
        PoolPlanJob.objects.filter(pk=job.pk, attempts=attempt).update(
            status=PoolPlanJob.Status.FAILED, error=str(error), finished_at=timezone.now()
        )
        raise
    now = timezone.now()
    finished = PoolPlanJob.objects.filter(
        pk=job.pk, attempts=attempt, status=PoolPlanJob.Status.RUNNING
    )
    if not finished.update(
        status=PoolPlanJob.Status.DONE, rows=rows, finished_at=now, heartbeat_at=now
    ):
        raise JobSuperseded(f"pool plan {job.pk} attempt {attempt} was superseded")
    job.status, job.rows, job.finished_at = PoolPlanJob.Status.DONE, rows, now
    return job


def _replay(job: PoolPlanJob) -> list[dict[str, Any]]:
    task = job.task
    grades = {topic: dict(docs) for topic, docs in job.grades.items()}
    found = planner_runs(task, sorted(grades))
    if not found.runs:
        raise PlanRequestError(f"{task} has no accepted runs to replay")
    data = PlannerInput(
        grades=grades,
        runs=found.runs,
        pool_tags=sorted(found.runs),
        groups=found.groups,
        measures=parse_measures(job.measures),
        relevance_level=task.relevance_level,
    )
    planner = Planner(data, job.seed)
    rows: list[dict[str, Any]] = []
    for done, label in enumerate(job.strategies, start=1):
        rows += [row.as_dict() for row in planner.rows([parse_strategy(label)], job.budgets)]
        job_beat(model=PoolPlanJob, job_id=job.pk, attempt=job.attempts, steps_done=done)
    return rows
