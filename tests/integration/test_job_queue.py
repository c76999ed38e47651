"""Queued jobs (kernel.queue): enqueue failures, heartbeats, the reaper, redelivered messages.

These run the services and tasks in this process against the real database and the test
Redis (messages the reaper queues are purged); the worker-kill and Redis-outage tests run the
same rules with real worker processes.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from collection.models import RetrievalTask
from config.celery import app as celery_app
from evaluation.models import EvaluationJob
from evaluation.services import qrels_export
from kernel.queue import (
    QUEUE_UNAVAILABLE,
    JobSuperseded,
    QueueUnavailable,
    broker_task_ids,
    jobs_reap,
)
from pooling.models import PoolBuild, Run
from pooling.services.pool_jobs import pool_build_request, pool_builds_reap
from pooling.services.pools import pool_build
from pooling.tasks import build_pools_task
from tests.factories.collection import CampaignFactory, RetrievalTaskFactory, UserFactory
from tests.integration.evaluation_data import judged_answer_task
from tests.integration.pool_data import answer_rows, make_run, make_topics, pool_snapshot
from tests.integration.workers import celery_broker, free_port

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _empty_queue() -> Iterator[None]:
    celery_app.control.purge()
    yield
    celery_app.control.purge()  # what the reaper queued here has no worker to run it


@pytest.fixture
def task() -> RetrievalTask:
    task = RetrievalTaskFactory.create(campaign=CampaignFactory.create(), kind="answer")
    topics = make_topics(task, 25)
    for i in range(3):
        run = make_run(task, f"run{i}", Run.Role.PRIMARY if i == 0 else Run.Role.ALTERNATE)
        answer_rows(run, topics, rows=30, posts=80, seed=i)
    return task


def running(task: RetrievalTask, *, silent_for: int, attempts: int = 1) -> PoolBuild:
    """A build a worker started and stopped beating for ``silent_for`` seconds."""
    beat = timezone.now() - timedelta(seconds=silent_for)
    return PoolBuild.objects.create(
        task=task, status="running", attempts=attempts, heartbeat_at=beat, topics_done=10
    )


def test_silent_running_build_is_queued_again_as_next_attempt_when_reaped(
    task: RetrievalTask,
) -> None:
    build = running(task, silent_for=61)
    beat = build.heartbeat_at

    reaped = pool_builds_reap()

    build.refresh_from_db()
    assert [(r.job_id, r.action, r.attempt) for r in reaped] == [(build.pk, "requeued", 2)]
    assert (build.status, build.attempts, build.worker_lost_at) == ("pending", 2, beat)
    assert build.celery_task_id  # the new attempt's message
    assert pool_builds_reap() == []  # a second reaper finds nothing to do


def test_build_is_failed_with_a_retry_message_when_its_last_attempt_lost_the_worker(
    task: RetrievalTask, settings: object
) -> None:
    build = running(task, silent_for=61, attempts=settings.JOB_MAX_ATTEMPTS)  # type: ignore[attr-defined]

    pool_builds_reap()

    build.refresh_from_db()
    assert build.status == "failed"
    assert build.error.startswith("The worker died at ")
    assert build.error.endswith("; retry.")
    assert build.finished_at is not None
    organizer = Client()
    organizer.force_login(UserFactory.create(username="olga", is_staff=True))
    page = organizer.get(reverse("pooling:pool", args=[task.pk])).content.decode()
    assert "Retry the build" in page
    assert "The worker died at " in page


def pending_since(build: PoolBuild, seconds: int) -> None:
    PoolBuild.objects.filter(pk=build.pk).update(
        created_at=timezone.now() - timedelta(seconds=seconds)
    )


def test_pending_build_is_published_again_when_the_broker_lost_its_message(
    task: RetrievalTask,
) -> None:
    build = pool_build_request(task=task)
    build.refresh_from_db()
    lost = build.celery_task_id
    assert lost in (broker_task_ids(celery_app) or set())
    celery_app.control.purge()  # what a Redis restart without persistence does to the queue
    pending_since(build, 61)

    reaped = pool_builds_reap()

    build.refresh_from_db()
    assert [(r.job_id, r.action, r.attempt) for r in reaped] == [(build.pk, "republished", 2)]
    assert (build.status, build.attempts) == ("pending", 2)
    assert build.celery_task_id not in ("", lost)
    assert build.celery_task_id in (broker_task_ids(celery_app) or set())
    assert pool_builds_reap() == []  # its message is queued now


def test_pending_build_is_left_alone_when_its_message_is_queued_or_young(
    task: RetrievalTask,
) -> None:
    queued = pool_build_request(task=task)
    pending_since(queued, 600)
    queued.refresh_from_db()  # waiting behind a long build, say
    young = PoolBuild.objects.create(task=task, status="pending", celery_task_id="not-yet")

    assert pool_builds_reap() == []

    for build in (queued, young):
        before = build.celery_task_id
        build.refresh_from_db()
        assert (build.status, build.attempts, build.celery_task_id) == ("pending", 1, before)


def test_pending_build_is_left_alone_when_the_broker_cannot_be_asked(task: RetrievalTask) -> None:
    build = PoolBuild.objects.create(task=task, status="pending", celery_task_id="gone")
    pending_since(build, 61)
    with celery_broker(f"redis://127.0.0.1:{free_port()}/0"):
        assert pool_builds_reap() == []  # nothing is known to be lost
    build.refresh_from_db()
    assert (build.status, build.attempts) == ("pending", 1)


def test_beating_build_is_left_alone_when_reaped(task: RetrievalTask) -> None:
    build = running(task, silent_for=30)
    assert pool_builds_reap() == []
    build.refresh_from_db()
    assert (build.status, build.attempts) == ("running", 1)


def test_pool_page_shows_the_rerun_when_the_reaper_requeued_a_build(task: RetrievalTask) -> None:
    running(task, silent_for=61)
    organizer = Client()
    organizer.force_login(UserFactory.create(username="olga", is_staff=True))
    page = organizer.get(reverse("pooling:pool", args=[task.pk])).content.decode()
    assert "re-run (attempt 2)" in page  # the page ran the reaper itself


def test_redelivered_message_does_nothing_when_build_done_failed_or_superseded(
    task: RetrievalTask,
) -> None:
    for status, attempts, message_attempt in [
        ("done", 1, 1),
        ("failed", 1, 1),
        ("pending", 2, 1),  # the reaper handed the build to attempt 2
    ]:
        build = PoolBuild.objects.create(task=task, status=status, attempts=attempts)
        build_pools_task(build.pk, message_attempt)
        build.refresh_from_db()
        assert (build.status, build.topics_total) == (status, 0), status
    assert not task.topics.filter(pool_items__isnull=False).exists()


def test_superseded_attempt_stops_without_touching_the_build_when_reaped_mid_build(
    task: RetrievalTask,
) -> None:
    build = PoolBuild.objects.create(task=task, celery_task_id="attempt-1")

    def reaper_takes_over(done: int, _total: int) -> None:
        if done == 10:  # as if this worker had been silent: the reaper queues attempt 2
            PoolBuild.objects.filter(pk=build.pk).update(
                status="pending", attempts=2, celery_task_id="attempt-2"
            )

    with pytest.raises(JobSuperseded):
        pool_build(task=task, build=build, progress=reaper_takes_over)

    build.refresh_from_db()
    assert (build.status, build.attempts, build.celery_task_id) == ("pending", 2, "attempt-2")
    assert build.topics_done == 10  # written before the take-over, and nothing after it


def test_build_writes_its_own_columns_only_when_it_runs(task: RetrievalTask) -> None:
    build = PoolBuild.objects.create(task=task, celery_task_id="from-the-web")
    requested_by = UserFactory.create(username="olga")
    PoolBuild.objects.filter(pk=build.pk).update(requested_by=requested_by)
    build.refresh_from_db()
    stale = PoolBuild.objects.get(pk=build.pk)  # an old copy, as a task would hold

    finished = pool_build(task=task, build=stale)

    build.refresh_from_db()
    assert (build.status, build.topics_done, build.topics_total) == ("done", 25, 25)
    assert (build.celery_task_id, build.requested_by) == ("from-the-web", requested_by)
    assert build.heartbeat_at is not None
    assert finished.stats == build.stats


def test_rerun_attempt_gives_the_uninterrupted_pool_when_first_attempt_stopped_half_way(
    task: RetrievalTask,
) -> None:
    build = PoolBuild.objects.create(task=task)

    def stop_after_first_chunk(done: int, _total: int) -> None:
        if done == 10:
            raise KeyboardInterrupt  # not an Exception: the build stays running, like a kill

    with pytest.raises(KeyboardInterrupt):
        pool_build(task=task, build=build, progress=stop_after_first_chunk)
    PoolBuild.objects.filter(pk=build.pk).update(
        heartbeat_at=timezone.now() - timedelta(seconds=61)
    )
    pool_builds_reap()
    build.refresh_from_db()
    assert (build.status, build.attempts) == ("pending", 2)

    build_pools_task(build.pk, 2)  # what the worker does with the re-queued message

    build.refresh_from_db()
    assert (build.status, build.topics_done) == ("done", 25)
    again = RetrievalTaskFactory.create(campaign=CampaignFactory.create(), kind="answer")
    topics = make_topics(again, 25)
    for i in range(3):
        run = make_run(again, f"run{i}", Run.Role.PRIMARY if i == 0 else Run.Role.ALTERNATE)
        answer_rows(run, topics, rows=30, posts=80, seed=i)
    pool_build(task=again)
    assert pool_snapshot(task) == pool_snapshot(again)


def test_enqueue_fails_fast_and_marks_the_job_failed_when_the_broker_is_down(
    task: RetrievalTask,
) -> None:
    with celery_broker(f"redis://127.0.0.1:{free_port()}/0"), pytest.raises(QueueUnavailable):
        pool_build_request(task=task)
    build = PoolBuild.objects.get()
    assert (build.status, build.error) == ("failed", QUEUE_UNAVAILABLE)
    assert build.finished_at is not None


def test_reaper_fails_the_job_instead_of_leaving_it_pending_when_the_broker_is_down(
    task: RetrievalTask,
) -> None:
    build = running(task, silent_for=61)
    with celery_broker(f"redis://127.0.0.1:{free_port()}/0"):
        jobs_reap(model=PoolBuild, celery_task=build_pools_task)  # logs, does not raise
    build.refresh_from_db()
    assert (build.status, build.attempts, build.error) == ("failed", 2, QUEUE_UNAVAILABLE)


def test_failed_evaluation_is_started_again_when_organizer_presses_retry() -> None:
    data = judged_answer_task()
    qrels = qrels_export(task=data.task)
    failed = EvaluationJob.objects.create(
        task=data.task, qrels=qrels, seed=7, status="failed", error="The worker died …; retry."
    )
    organizer = Client()
    organizer.force_login(UserFactory.create(username="olga", is_staff=True))
    url = reverse("evaluation:qrels", args=[data.task.pk])
    assert "Retry</button>" in organizer.get(url).content.decode()

    response = organizer.post(url, {"action": "retry", "job": failed.pk})

    assert response.status_code == 302
    again = EvaluationJob.objects.exclude(pk=failed.pk).get()
    assert (again.status, again.qrels_id, again.seed) == ("pending", qrels.pk, 7)
    assert again.celery_task_id
    failed.refresh_from_db()
    assert failed.status == "failed"  # kept, with its reason
    for bad in ["x", "²", "99999999999999999999999", str(again.pk)]:  # not a failed job
        assert organizer.post(url, {"action": "retry", "job": bad}).status_code == 404


def test_beat_schedule_names_the_reaper_tasks_when_celery_loads(settings: object) -> None:
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}  # type: ignore[attr-defined]
    assert scheduled == {
        "pooling.tasks.reap_pool_builds_task",
        "judges.tasks.reap_judge_runs_task",
        "evaluation.tasks.reap_evaluation_jobs_task",  # jobs and their chunks
        "evaluation.tasks.reap_pool_plans_task",
        "nuggets.tasks.reap_nugget_proposal_runs_task",
    }
    celery_app.loader.import_default_modules()  # what a worker does first: every app's tasks
    assert scheduled <= set(celery_app.tasks)
