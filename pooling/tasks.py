"""Celery tasks of the pooling app: thin wrappers taking ids and calling one service."""

import logging

from celery import shared_task
from django.db import InterfaceError, OperationalError

from pooling.models import PoolBuild
from pooling.services.pools import PoolBuildError, pool_build

logger = logging.getLogger(__name__)


@shared_task(
    acks_late=True,  # a worker killed mid-build leaves the message to be redelivered
    reject_on_worker_lost=True,
    time_limit=30 * 60,
    soft_time_limit=28 * 60,
    # Only a lost database connection is worth retrying; the service is idempotent.
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=3,
)
def build_pools_task(build_id: int) -> dict[str, int]:
    """Run the pool build recorded as ``build_id`` (see pooling.services.pools.pool_build)."""
    build = PoolBuild.objects.select_related("task").filter(pk=build_id).first()
    if build is None:  # deleted since it was queued (e.g. its task was): nothing to build
        logger.warning("pool build %s no longer exists", build_id)
        return {}
    if build.status == PoolBuild.Status.DONE:  # a redelivered message after success
        return dict(build.stats)
    seed = build.parameters.get("seed")
    try:
        finished = pool_build(task=build.task, seed=seed, build=build)
    except PoolBuildError as error:  # recorded on the build, which the organizer sees
        logger.warning("pool build %s refused: %s", build_id, error)
        return {}
    return dict(finished.stats)
