"""A worker killed in the middle of a pool build: building again gives the uninterrupted pool.

The build runs in a real ``celery -A config worker`` subprocess against Redis and the test
database; it is killed (SIGKILL, no clean shutdown) once some topics are written. Each topic is
written in its own transaction and the service is idempotent, so building again must leave
exactly what an uninterrupted build of the same runs leaves.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connection

from collection.models import RetrievalTask
from pooling.models import PoolBuild, PoolItem, Run
from pooling.services.pools import pool_build, pool_build_request
from tests.factories.collection import CampaignFactory, RetrievalTaskFactory
from tests.integration.pool_data import answer_rows, make_run, make_topics, pool_snapshot

REPO = Path(__file__).resolve().parents[2]
TOPICS, RUNS, ROWS = 60, 16, 120

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def campaign_with_runs(name: str) -> RetrievalTask:
    """The same topics and runs (same seeds) in a campaign of its own."""
    task = RetrievalTaskFactory.create(campaign=CampaignFactory.create(name=name), kind="answer")
    topics = make_topics(task, TOPICS)
    for i in range(RUNS):
        run = make_run(task, f"run{i}", Run.Role.PRIMARY if i % 4 == 0 else Run.Role.ALTERNATE)
        answer_rows(run, topics, rows=ROWS, posts=400, seed=i)
    return task


def worker_process() -> subprocess.Popen[bytes]:
    db = connection.settings_dict  # the test database, which the worker must use
    login = db["USER"] + (f":{quote(db['PASSWORD'])}" if db.get("PASSWORD") else "")
    host = db["HOST"] or "127.0.0.1"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"postgres://{login}@{host}:{db['PORT'] or 5432}/{db['NAME']}",
        "CONN_MAX_AGE": "0",
    }
    celery = str(Path(sys.executable).with_name("celery"))
    command = [celery, "-A", "config", "worker", "--pool=solo", "--loglevel=WARNING"]
    command += ["--without-gossip", "--without-mingle", "-n", f"kill-test-{os.getpid()}@%h"]
    return subprocess.Popen(command, cwd=REPO, env=env, start_new_session=True)  # noqa: S603


def wait_until_some_topics_done(build: PoolBuild, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        build.refresh_from_db()
        if build.topics_done >= 3:
            return
        time.sleep(0.02)
    raise AssertionError(f"the worker wrote no topics in {timeout}s ({build.status})")


def test_building_again_after_a_killed_worker_gives_the_uninterrupted_pool() -> None:
    uninterrupted = campaign_with_runs("Uninterrupted")
    pool_build(task=uninterrupted)
    killed = campaign_with_runs("Killed")
    from config.celery import app

    app.control.purge()
    worker = worker_process()
    try:
        build = pool_build_request(task=killed)
        wait_until_some_topics_done(build)
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=30)
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(timeout=30)
    build.refresh_from_db()
    assert build.status == PoolBuild.Status.RUNNING  # really interrupted ...
    assert 0 < build.topics_done < TOPICS  # ... half-way
    half = PoolItem.objects.filter(topic__task=killed).values("topic").distinct().count()
    assert 0 < half < TOPICS

    again = pool_build(task=killed)

    assert again.status == PoolBuild.Status.DONE
    assert pool_snapshot(killed) == pool_snapshot(uninterrupted)
