"""Celery tasks of the evaluation app: thin wrappers taking ids and calling one service."""

import logging

from celery import shared_task
from django.db import InterfaceError, OperationalError

from evaluation.models import EvaluationChunk, EvaluationJob, PoolPlanJob
from evaluation.services import evaluation_job_run
from evaluation.services.jobs import evaluation_chunk_task_run, evaluation_jobs_reap
from evaluation.services.planner import PlanRequestError, pool_plan_run, pool_plans_reap
from kernel.queue import JobSuperseded

logger = logging.getLogger(__name__)


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,  # the job row is the result
    time_limit=30 * 60,
    soft_time_limit=28 * 60,
    # Only a lost database connection is worth retrying; the service is idempotent.
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=3,
)
def evaluate_runs_task(job_id: int, attempt: int | None = None) -> dict[str, int]:
    """Run attempt ``attempt`` of the evaluation job ``job_id``
    (evaluation.services.jobs.evaluation_job_run): cut it into chunks and queue them, or, once
    every chunk is done, sum up. Without a broker (tasks run in-process) the chunks run here.

    A message for a job that is done, failed or on another attempt (a redelivery after the
    visibility timeout, or a re-queue by the reaper) does nothing."""
    job = EvaluationJob.objects.select_related("task__campaign", "qrels").filter(pk=job_id).first()
    if job is None:
        logger.warning("evaluation job %s no longer exists", job_id)
        return {}
    if job.status in (EvaluationJob.Status.DONE, EvaluationJob.Status.FAILED) or (
        attempt is not None and attempt != job.attempts
    ):
        logger.info("evaluation job %s attempt %s skipped: %s", job_id, attempt, job.status)
        return {"runs": job.runs_done}
    try:
        spread = not evaluate_chunk_task.app.conf.task_always_eager
        job = evaluation_job_run(job=job, spread=spread)
    except JobSuperseded as error:
        logger.warning("evaluation job %s stopped: %s", job_id, error)
    return {"runs": job.runs_done}


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,  # the results are the rows it stores
    time_limit=30 * 60,
    soft_time_limit=28 * 60,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=3,
)
def evaluate_chunk_task(chunk_id: int, attempt: int | None = None) -> int:
    """Score attempt ``attempt`` of an evaluation job's chunk of runs
    (evaluation.services.jobs.evaluation_chunk_task_run); the number of runs it stored.

    A message for a chunk that is done, failed or on another attempt does nothing."""
    chunk = (
        EvaluationChunk.objects.select_related("job__task__campaign", "job__qrels")
        .filter(pk=chunk_id)
        .first()
    )
    if chunk is None:
        logger.warning("evaluation chunk %s no longer exists", chunk_id)
        return 0
    if chunk.status in (EvaluationChunk.Status.DONE, EvaluationChunk.Status.FAILED) or (
        attempt is not None and attempt != chunk.attempts
    ):
        logger.info("evaluation chunk %s attempt %s skipped: %s", chunk_id, attempt, chunk.status)
        return 0
    try:
        evaluation_chunk_task_run(chunk=chunk)
    except JobSuperseded as error:
        logger.warning("evaluation chunk %s stopped: %s", chunk_id, error)
    return len(chunk.scored)


@shared_task(ignore_result=True, time_limit=60, soft_time_limit=50)
def reap_evaluation_jobs_task() -> int:
    """Re-queue evaluation jobs whose worker died (run by Celery beat, see settings)."""
    return len(evaluation_jobs_reap())


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,  # the job row is the result
    time_limit=30 * 60,
    soft_time_limit=28 * 60,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=3,
)
def plan_pools_task(job_id: int, attempt: int | None = None) -> int:
    """Run attempt ``attempt`` of the pool plan ``job_id`` (evaluation.services.planner)."""
    job = PoolPlanJob.objects.select_related("task").filter(pk=job_id).first()
    if job is None:
        logger.warning("pool plan %s no longer exists", job_id)
        return 0
    if job.status in (PoolPlanJob.Status.DONE, PoolPlanJob.Status.FAILED) or (
        attempt is not None and attempt != job.attempts
    ):
        return len(job.rows)
    try:
        job = pool_plan_run(job=job)
    except JobSuperseded as error:
        logger.warning("pool plan %s stopped: %s", job_id, error)
    except PlanRequestError as error:  # recorded on the job, which the organizer sees
        logger.warning("pool plan %s refused: %s", job_id, error)
    return len(job.rows)


@shared_task(ignore_result=True, time_limit=60, soft_time_limit=50)
def reap_pool_plans_task() -> int:
    """Re-queue pool plans whose worker died (run by Celery beat, see settings)."""
    return len(pool_plans_reap())
