"""Handing pool builds to the Celery workers (kernel.queue), and re-queuing those whose worker
died. The build itself is pooling.services.pools.pool_build."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from collection.models import RetrievalTask
from kernel.queue import Reaped, job_enqueue_on_commit, jobs_reap
from pooling.core.algorithms.strategies.priority import PoolStrategy
from pooling.models import PoolBuild


def pool_build_request(
    *,
    task: RetrievalTask,
    requested_by: Any = None,
    seed: int | None = None,
    strategy: PoolStrategy | None = None,
) -> PoolBuild:
    """Record a pending build (with its budgeted ``strategy``, if any) and hand it to a Celery
    worker once the transaction commits.

    Raises `kernel.queue.QueueUnavailable` (the build is then recorded as failed) when the
    task queue cannot be reached."""
    from pooling.tasks import build_pools_task  # the tasks import the services

    with transaction.atomic():
        build = PoolBuild.objects.create(
            task=task,
            requested_by=requested_by,
            parameters={"seed": seed, "strategy": strategy.as_dict() if strategy else None},
        )
        job_enqueue_on_commit(
            model=PoolBuild, job_id=build.pk, attempt=build.attempts, celery_task=build_pools_task
        )
    return build


def pool_builds_reap() -> list[Reaped]:
    """Re-queue (or fail) builds whose worker died (kernel.queue.jobs_reap)."""
    from pooling.tasks import build_pools_task

    return jobs_reap(model=PoolBuild, celery_task=build_pools_task)
