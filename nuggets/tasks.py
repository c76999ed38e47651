"""Celery tasks of the nuggets app: thin wrappers taking ids and calling one service."""

import logging

from celery import shared_task
from django.db import InterfaceError, OperationalError

from kernel.queue import JobSuperseded
from nuggets.models import NuggetProposalRun
from nuggets.services.proposing import nugget_proposal_execute, nugget_proposal_runs_reap

logger = logging.getLogger(__name__)


@shared_task(
    acks_late=True,  # a worker killed mid-request leaves the message to be redelivered
    reject_on_worker_lost=True,
    ignore_result=True,  # the run row is the result
    time_limit=3600,  # one question, retried with backoff behind a slow endpoint
    soft_time_limit=3500,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=3,
)
def nugget_proposal_task(run_id: int, attempt: int | None = None) -> int:
    """Run attempt ``attempt`` of the proposal request ``run_id``; a message for a request
    that is done, failed or on another attempt does nothing. Returns the proposals added."""
    run = NuggetProposalRun.objects.select_related("topic", "endpoint").filter(pk=run_id).first()
    if run is None:
        logger.warning("nugget proposal run %s no longer exists", run_id)
        return 0
    if run.status in (NuggetProposalRun.Status.DONE, NuggetProposalRun.Status.FAILED) or (
        attempt is not None and attempt != run.attempts
    ):
        return 0
    try:
        return nugget_proposal_execute(run=run).proposed
    except JobSuperseded as error:
        logger.warning("nugget proposal run %s stopped: %s", run_id, error)
        return 0


@shared_task(ignore_result=True, time_limit=60, soft_time_limit=50)
def reap_nugget_proposal_runs_task() -> int:
    """Re-queue proposal requests whose worker died (run by Celery beat, see settings)."""
    return len(nugget_proposal_runs_reap())
