"""A worker killed in the middle of a job: the job is re-run and gives the uninterrupted result.

The job runs in a real ``celery -A config worker`` subprocess against Redis and the test
database. A test-only hook (kernel.queue.job_checkpoint, on in the test settings) stops it at a
known point (after 30 of 60 topics; after the first of two runs), where the test kills the
worker with SIGKILL, as a crash would. A fresh worker is started, and the status endpoint the
page polls (which runs the reaper) is polled until the job is done: the reaper must notice the
dead worker and queue the job again, and building again must leave exactly what an
uninterrupted build leaves, all within 2 minutes.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from collection.models import RetrievalTask
from config.celery import app as celery_app
from evaluation.models import EvaluationJob, EvaluationResult
from evaluation.services import evaluation_job_run, evaluation_job_start, qrels_export
from pooling.models import PoolBuild, PoolItem, Run
from pooling.services.pool_jobs import pool_build_request
from pooling.services.pools import TOPICS_PER_PASS, pool_build
from tests.factories.collection import CampaignFactory, RetrievalTaskFactory, UserFactory
from tests.integration.evaluation_data import judged_answer_task
from tests.integration.pool_data import answer_rows, make_run, make_topics, pool_snapshot
from tests.integration.workers import kill, wait_for, worker_process

TOPICS, RUNS, ROWS = 60, 16, 120
PAUSE_AFTER = 30  # topics
RECOVERY_BOUND = 120.0  # seconds from the kill to the job done

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def campaign_with_runs(name: str) -> RetrievalTask:
    """The same topics and runs (same seeds) in a campaign of its own."""
    task = RetrievalTaskFactory.create(campaign=CampaignFactory.create(name=name), kind="answer")
    topics = make_topics(task, TOPICS)
    for i in range(RUNS):
        run = make_run(task, f"run{i}", Run.Role.PRIMARY if i % 4 == 0 else Run.Role.ALTERNATE)
        answer_rows(run, topics, rows=ROWS, posts=400, seed=i)
    return task


def organizer() -> Client:
    client = Client()
    client.force_login(UserFactory.create(username="organizer", is_staff=True))
    return client


def test_killed_workers_build_is_rerun_to_the_uninterrupted_pool_when_reaped(
    tmp_path: Path,
) -> None:
    assert PAUSE_AFTER % TOPICS_PER_PASS == 0  # the hook runs after each chunk of topics
    uninterrupted = campaign_with_runs("Uninterrupted")
    pool_build(task=uninterrupted)
    killed = campaign_with_runs("Killed")
    paused = tmp_path / "paused"
    celery_app.control.purge()
    first = worker_process(
        "kill-first", JOB_TEST_PAUSE=f"pool_build:{PAUSE_AFTER}", JOB_TEST_PAUSED_FILE=str(paused)
    )
    second = None
    try:
        build = pool_build_request(task=killed)
        wait_for(paused.exists, 120, "the build to reach its pause point")
        build.refresh_from_db()
        assert (build.status, build.topics_done, build.attempts) == ("running", PAUSE_AFTER, 1)
        kill(first)
        killed_at = time.monotonic()
        half = PoolItem.objects.filter(topic__task=killed).values("topic").distinct().count()
        assert half == PAUSE_AFTER  # whole chunks of topics were written, nothing more

        second = worker_process("kill-second")
        status_url = reverse("pooling_api:pool-build", args=[killed.pk])
        client = organizer()
        seen: list[tuple[str, int]] = []

        def done() -> bool:
            state = client.get(status_url).json()  # the progress bar's poll runs the reaper
            seen.append((state["status"], state["attempts"]))
            return state["status"] in ("done", "failed")

        wait_for(done, RECOVERY_BOUND, "the killed build to be re-run", every=1.0)
        recovery = time.monotonic() - killed_at
    finally:
        kill(first)
        if second is not None:
            kill(second)
    print(f"\nworker killed mid-build: build done {recovery:.1f} s after the kill")
    build.refresh_from_db()
    assert build.status == PoolBuild.Status.DONE, build.error
    assert build.attempts == 2
    assert build.worker_lost_at is not None
    assert ("pending", 2) in seen or ("running", 2) in seen  # the page showed the re-run
    assert ("running", 1) in seen  # ... after showing the dead worker's attempt as running
    assert pool_snapshot(killed) == pool_snapshot(uninterrupted)
    assert recovery < RECOVERY_BOUND


def test_killed_workers_evaluation_is_rerun_to_the_same_results_when_reaped(
    tmp_path: Path, settings: object
) -> None:
    # Short heartbeats here (the build test above measures the real defaults): same rules.
    settings.JOB_STALE_SECONDS, settings.JOB_HEARTBEAT_SECONDS = 5, 1  # type: ignore[attr-defined]
    beats = {"JOB_STALE_SECONDS": "5", "JOB_HEARTBEAT_SECONDS": "1"}
    data = judged_answer_task()
    qrels = qrels_export(task=data.task)
    paused = tmp_path / "paused"
    celery_app.control.purge()
    first = worker_process(
        "eval-first",
        JOB_TEST_PAUSE="evaluation_job:1",
        JOB_TEST_PAUSED_FILE=str(paused),
        **beats,
    )
    second = None
    try:
        job = evaluation_job_start(task=data.task, qrels=qrels, seed=3)
        wait_for(paused.exists, 120, "the evaluation to reach its pause point")
        kill(first)
        killed_at = time.monotonic()
        second = worker_process("eval-second", **beats)
        progress_url = reverse("evaluation:job-progress", args=[job.pk])
        client = organizer()
        wait_for(
            lambda: client.get(progress_url).json()["status"] in ("done", "failed"),
            RECOVERY_BOUND,
            "the killed evaluation to be re-run",
            every=0.5,
        )
        recovery = time.monotonic() - killed_at
    finally:
        kill(first)
        if second is not None:
            kill(second)
    print(f"\nworker killed mid-evaluation: job done {recovery:.1f} s after the kill")
    job.refresh_from_db()
    assert (job.status, job.runs_done) == ("done", 2), job.error
    # Its one chunk of runs lost the worker: the reaper queued the chunk again, not the job.
    (chunk,) = job.chunks.all()
    assert (chunk.status, chunk.attempts, len(chunk.scored)) == ("done", 2, 2)
    assert job.worker_lost_at is not None
    rerun = _results(job)

    again = EvaluationJob.objects.create(task=data.task, qrels=qrels, seed=3)
    evaluation_job_run(job=again)  # uninterrupted, in this process

    assert _results(again) == rerun
    assert recovery < RECOVERY_BOUND


def _results(job: EvaluationJob) -> dict[str, object]:
    job.refresh_from_db()
    return {
        "results": {
            r.run_id: (r.measures, r.per_topic)
            for r in EvaluationResult.objects.filter(qrels=job.qrels)
        },
        "significance": job.significance,
        "intervals": job.intervals,
        "reusability": job.reusability,
    }
