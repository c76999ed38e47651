"""Fixtures for integration tests: a real Celery worker against the test settings' Redis.

``celery_worker`` starts a worker of the project's Celery app (``config.celery.app``) in a thread
of the test process, consuming from REDIS_URL (export your own Redis db number), with the solo
pool, and stops it after the test. Tasks it runs see the test database, so a test using it gets
``transactional_db``: the data a test writes is committed, the worker can read it, and it is
flushed afterwards. Use it as::

    def test_something_when_run_by_a_worker(celery_worker) -> None:
        result = some_task.delay(some_id)
        assert result.get(timeout=60) == ...

Messages left in the queue by an earlier, interrupted test session are purged first.
"""

from collections.abc import Iterator
from typing import Any

import pytest
from celery.contrib.testing.worker import start_worker
from celery.signals import task_postrun
from django.db import connections

from config.celery import app as celery_app


def _close_worker_connections(**_kwargs: Any) -> None:
    # The worker thread's own connections must not outlive the test: the test database is
    # flushed (and finally dropped) by the main thread.
    connections.close_all()


@pytest.fixture
def celery_worker(transactional_db: None) -> Iterator[Any]:
    """A running Celery worker of the project app (solo pool, in a thread)."""
    celery_app.control.purge()
    task_postrun.connect(_close_worker_connections, weak=False)
    try:
        with start_worker(
            celery_app,
            pool="solo",
            perform_ping_check=False,
            shutdown_timeout=60,
            loglevel="WARNING",
        ) as worker:
            yield worker
    finally:
        task_postrun.disconnect(_close_worker_connections)
