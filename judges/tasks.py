"""Celery tasks of the judges app: thin wrappers taking ids and calling one service."""

import logging

from celery import shared_task
from django.db import InterfaceError, OperationalError

from judges.models import JudgeRun
from judges.services.runs import judge_run_execute, judge_runs_reap
from kernel.queue import JobSuperseded

logger = logging.getLogger(__name__)


@shared_task(
    acks_late=True,  # a worker killed mid-run leaves the message to be redelivered
    reject_on_worker_lost=True,
    ignore_result=True,  # the run row is the result
    time_limit=24 * 3600,  # a large pool behind a slow endpoint takes hours
    soft_time_limit=24 * 3600 - 120,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=3,
)
def judge_run_task(run_id: int, attempt: int | None = None) -> int:
    """Run attempt ``attempt`` of the judge run ``run_id``; a message for a run that is done,
    failed or on another attempt does nothing."""
    run = JudgeRun.objects.select_related("task", "judge", "endpoint").filter(pk=run_id).first()
    if run is None:
        logger.warning("judge run %s no longer exists", run_id)
        return 0
    if run.status in (JudgeRun.Status.DONE, JudgeRun.Status.FAILED) or (
        attempt is not None and attempt != run.attempts
    ):
        return run.items_done
    try:
        return judge_run_execute(run=run).items_done
    except JobSuperseded as error:
        logger.warning("judge run %s stopped: %s", run_id, error)
        return 0


@shared_task(ignore_result=True, time_limit=60, soft_time_limit=50)
def reap_judge_runs_task() -> int:
    """Re-queue runs whose worker died (run by Celery beat, see settings)."""
    return len(judge_runs_reap())
