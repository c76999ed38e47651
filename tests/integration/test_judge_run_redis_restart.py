"""Redis (the broker and the endpoint limits' store) is killed in the middle of a judge run
and comes back on the same port: the run still ends with exactly one machine judgment per
pool item, equal to what the server answered, and a second run asks the server nothing.

A throwaway redis-server of the test's own (tests.integration.workers.ThrowawayRedis), never
the shared one; the worker is a real ``celery -A config worker`` subprocess pointed at it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from assessment.models import Judgment
from config.celery import app as celery_app
from judges.core.endpoints import EndpointFields
from judges.models import JudgeAnswer, JudgeRun
from judges.services.endpoints import endpoint_add
from judges.services.runs import judge_run_execute, judge_run_prepare, judge_run_request
from tests.factories.collection import UserFactory
from tests.integration.judge_server import (
    judge_server,
    judged_document_task,
    server_stats,
    write_qrels,
)
from tests.integration.workers import (
    ThrowawayRedis,
    celery_broker,
    kill,
    wait_for,
    worker_process,
)

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

OUTAGE_SECONDS = 3.0


def test_judge_run_ends_with_one_judgment_per_item_when_redis_restarts_mid_run(
    tmp_path: Path, settings: object
) -> None:
    settings.JOB_STALE_SECONDS, settings.JOB_HEARTBEAT_SECONDS = 5, 1  # type: ignore[attr-defined]
    beats = {"JOB_STALE_SECONDS": "5", "JOB_HEARTBEAT_SECONDS": "1"}
    task, truth = judged_document_task(topics=3, items=40, seed=12)
    qrels = write_qrels(tmp_path / "qrels.txt", truth)
    redis = ThrowawayRedis()
    redis.start()
    settings.REDIS_URL = redis.url  # type: ignore[attr-defined]
    worker = None
    try:
        with judge_server(qrels, "--latency-ms", "60") as url, celery_broker(redis.url):
            endpoint = endpoint_add(
                fields=EndpointFields(
                    name="fake",
                    base_url=url,
                    model="fake-judge",
                    concurrency=2,
                    requests_per_minute=6000,  # the limits live in Redis
                    timeout_seconds=5,
                )
            )
            celery_app.control.purge()
            worker = worker_process("judge-redis", redis_url=redis.url, **beats)
            run = judge_run_request(task=task, endpoint=endpoint, judge_name="llm")

            def some_written() -> bool:
                return JudgeAnswer.objects.filter(run=run).count() >= 10

            wait_for(some_written, 120, "the judge run to write its first answers")
            redis.stop()
            down_at = time.monotonic()
            written = JudgeAnswer.objects.filter(run=run).count()
            time.sleep(OUTAGE_SECONDS)
            redis.start()  # the same port, empty: no queue, no leases
            client = Client()
            client.force_login(UserFactory.create(username="organizer", is_staff=True))
            status_url = reverse("judges_api:run", args=[run.pk])

            def finished() -> bool:
                state = client.get(status_url).json()  # the progress bar's poll reaps
                return state["status"] in ("done", "failed")

            wait_for(finished, 120, "the judge run to finish after the restart", every=1.0)
            recovered = time.monotonic() - down_at
            asked = server_stats(url)
            again = judge_run_execute(
                run=judge_run_prepare(task=task, endpoint=endpoint, judge_name="llm")
            )
            after = server_stats(url)
    finally:
        if worker is not None:
            kill(worker)
        redis.stop()
    print(f"\nredis down {OUTAGE_SECONDS:.0f} s mid-run: run done {recovered:.1f} s after the stop")
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.DONE, run.error
    assert written < len(truth), "the outage came after the run had ended"
    rows = Judgment.objects.filter(assessor_id=run.judge.account_id).values_list(
        "hit__item__topic__number", "hit__item__key", "grade"
    )
    grades = {(number, key): grade for number, key, grade in rows}
    assert len(rows) == len(grades) == len(truth)
    assert grades == truth
    assert again.status == JudgeRun.Status.DONE
    assert (again.asked, again.from_cache) == (0, len(truth))
    assert after["requests"] == asked["requests"]
