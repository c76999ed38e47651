"""Celery tasks of the pooling app: thin wrappers taking ids and calling one service."""

import logging

from celery import shared_task
from django.db import InterfaceError, OperationalError

from collection.models import RetrievalTask
from kernel.queue import PUBLISH_ERRORS, JobSuperseded
from pooling.core.algorithms.strategies.priority import pool_strategy_from
from pooling.models import PoolBuild
from pooling.selectors.pool_cache import pool_cache_warm
from pooling.services.pool_jobs import pool_builds_reap
from pooling.services.pools import PoolBuildError, pool_build

logger = logging.getLogger(__name__)


@shared_task(
    acks_late=True,  # a worker killed mid-build leaves the message to be redelivered
    reject_on_worker_lost=True,
    ignore_result=True,  # the build row is the result
    time_limit=30 * 60,
    soft_time_limit=28 * 60,
    # Only a lost database connection is worth retrying; the service is idempotent.
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=3,
)
def build_pools_task(build_id: int, attempt: int | None = None) -> dict[str, int]:
    """Run attempt ``attempt`` of the pool build ``build_id`` (pooling.services.pools.pool_build).

    A message for a build that is done, failed or on another attempt (a redelivery after the
    visibility timeout, or a re-queue by the reaper) does nothing."""
    build = PoolBuild.objects.select_related("task").filter(pk=build_id).first()
    if build is None:  # deleted since it was queued (e.g. its task was): nothing to build
        logger.warning("pool build %s no longer exists", build_id)
        return {}
    if build.status in (PoolBuild.Status.DONE, PoolBuild.Status.FAILED) or (
        attempt is not None and attempt != build.attempts
    ):
        logger.info("pool build %s attempt %s skipped: %s", build_id, attempt, build.status)
        return dict(build.stats)
    seed = build.parameters.get("seed")
    try:
        strategy = pool_strategy_from(build.parameters.get("strategy"))
        finished = pool_build(task=build.task, seed=seed, build=build, strategy=strategy)
    except PoolBuildError as error:  # recorded on the build, which the organizer sees
        logger.warning("pool build %s refused: %s", build_id, error)
        return {}
    except JobSuperseded as error:  # another attempt owns it now
        logger.warning("pool build %s stopped: %s", build_id, error)
        return {}
    try:  # a separate job: the build is done now, whatever becomes of the warming
        warm_pool_cache_task.delay(build.task_id)
    except PUBLISH_ERRORS as error:  # the pages compute on their first request instead
        logger.warning("pool cache of task %s not warmed: %s", build.task_id, error)
    return dict(finished.stats)


@shared_task(ignore_result=True, time_limit=10 * 60, soft_time_limit=9 * 60)
def warm_pool_cache_task(task_id: int) -> int:
    """Fill the pool figures and exports cache after a build (pooling/selectors/pool_cache)."""
    task = RetrievalTask.objects.filter(pk=task_id).first()
    return 0 if task is None else pool_cache_warm(task)


@shared_task(ignore_result=True, time_limit=60, soft_time_limit=50)
def reap_pool_builds_task() -> int:
    """Re-queue builds whose worker died (run by Celery beat, see settings)."""
    return len(pool_builds_reap())
