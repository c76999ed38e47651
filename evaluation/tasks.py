"""Celery tasks of the evaluation app: thin wrappers taking ids and calling one service."""

from celery import shared_task
from django.db import InterfaceError, OperationalError

from evaluation.models import EvaluationJob
from evaluation.services import evaluation_job_run


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=30 * 60,
    soft_time_limit=28 * 60,
    # Only a lost database connection is worth retrying; the service is idempotent.
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=3,
)
def evaluate_runs_task(job_id: int) -> dict[str, int]:
    """Run the evaluation job ``job_id`` (see evaluation.services.jobs.evaluation_job_run)."""
    job = EvaluationJob.objects.select_related("task__campaign", "qrels").get(pk=job_id)
    if job.status != EvaluationJob.Status.DONE:  # a redelivered message after success
        job = evaluation_job_run(job=job)
    return {"runs": job.runs_done}
