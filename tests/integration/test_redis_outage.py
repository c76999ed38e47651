"""Redis stops in the middle of a campaign day: judging and organizing go on.

The test runs its own redis-server on a spare port (no persistence) and points the app's cache
and Celery at it, with a real ``celery -A config worker`` subprocess consuming from it. An
assessor logs in and judges; then that Redis is killed. Logged-in sessions, login, the judging
pages and submits, organizer pages and run uploads must still work; queue-bound actions must
answer "the task queue is unavailable, try again" at once (503 over REST), leaving no row in
`pending`; /healthz must say Redis is down. Redis then comes back on the same port, and the
queue must work again: a build is accepted and the worker (which lived through the outage)
completes it. The recovery times are printed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from assessment.models import Assignment, Judgment
from collection.models import RetrievalTask
from evaluation.models import EvaluationJob
from evaluation.services import qrels_import
from kernel.queue import QUEUE_UNAVAILABLE
from pooling.models import PoolBuild, Run, Team
from tests.factories.collection import RetrievalTaskFactory, UserFactory
from tests.factories.pooling import TeamFactory
from tests.integration.pool_data import answer_rows, make_run, make_topics
from tests.integration.test_judging_pools import Pool, answer_pool, assign
from tests.integration.workers import (
    ThrowawayRedis,
    celery_broker,
    kill,
    wait_for,
    worker_process,
)

PASSWORD = "secret-pass-123"  # tests.factories.UserFactory's
FAIL_FAST = 3.5  # seconds an enqueue may take with Redis down (publishing fails in ~2 s)
# Redis stays down at least this long, so the worker is deep in its reconnection backoff
# (2, 4, 6, ... s) when Redis comes back, as after a real outage.
OUTAGE_SECONDS = 20.0

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


@dataclass
class Campaign:
    pool: Pool
    assignment: Assignment
    task: RetrievalTask  # with topics A.1 to A.3 and two runs, to build and upload to


@pytest.fixture
def redis_server(settings: object) -> Iterator[ThrowawayRedis]:
    """A throwaway Redis behind the app's cache and Celery (restored afterwards)."""
    server = ThrowawayRedis()
    server.start()
    settings.CACHES = {  # type: ignore[attr-defined]
        "default": {"BACKEND": "kernel.cache.ResilientRedisCache", "LOCATION": server.url}
    }
    try:
        with celery_broker(server.url):
            yield server
    finally:
        server.stop()


@pytest.fixture
def campaign() -> Campaign:
    pool = answer_pool(items=3)
    assignment = assign(pool, "alice")
    UserFactory.create(username="bob")
    UserFactory.create(username="olga", is_staff=True)
    carol = UserFactory.create(username="carol")
    TeamFactory.create(name="Lemma").members.add(carol)
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.ANSWER)
    topics = make_topics(task, 3)
    for i in range(2):
        answer_rows(make_run(task, f"run{i}"), topics, rows=20, posts=50, seed=i)
    return Campaign(pool, assignment, task)


def login(username: str) -> Client:
    """A real login through the login form (a session in the database)."""
    client = Client()
    response = client.post(
        reverse("login"), {"username": username, "password": PASSWORD}, follow=True
    )
    assert response.status_code == 200, username
    assert response.context["user"].username == username, "login failed"
    return client


def health(client: Client) -> dict:
    response = client.get("/healthz")
    return {"code": response.status_code, **response.json()}


def judge(client: Client, campaign: Campaign, item: int, grade: int) -> None:
    """The judging page, a submit without JavaScript, and one through the JSON API."""
    assignment, pool = campaign.assignment, campaign.pool
    page = reverse("assessment:judge", args=[assignment.pk, pool.items[item].pk])
    assert client.get(page).status_code == 200
    hit = pool.hits[item][0]
    assert client.post(page, {f"choice-{hit.pk}": str(grade)}).status_code in (200, 302)
    api = reverse("assessment_api:item-judgments", args=[assignment.pk, pool.items[item].pk])
    body = {"judgments": [{"hit": hit.pk, "grade": grade}]}
    response = client.post(api, data=json.dumps(body), content_type="application/json")
    assert response.status_code == 200, response.content
    assert Judgment.objects.get(hit=hit, assignment=assignment).grade == grade


def request_build(client: Client, task: RetrievalTask) -> tuple[int, dict, float]:
    started = time.monotonic()
    response = client.post(reverse("pooling_api:pool-build", args=[task.pk]))
    return response.status_code, response.json(), time.monotonic() - started


def build_done(build_id: int) -> bool:
    return PoolBuild.objects.get(pk=build_id).status == PoolBuild.Status.DONE


def upload_runs(campaign: Campaign, tag: str) -> None:
    """A run through the web form and one over REST (whose throttle uses the cache)."""
    carol = login("carol")
    post = campaign.pool.items[0].post_id  # an answer post of the collection
    form = {
        "task": campaign.task.pk,
        "team": Team.objects.get(name="Lemma").pk,
        "tag": f"{tag}web",
        "role": "primary",
        "declared_data": "both",
        "description": "",
        "file": SimpleUploadedFile("r.tsv", f"A.1 Q0 {post} 1 0.9 {tag}web\n".encode()),
    }
    response = carol.post(reverse("pooling:runs"), form)
    assert response.status_code == 302, response.content.decode()
    rest = {
        **{name: value for name, value in form.items() if name != "team"},  # her only team
        "tag": f"{tag}api",
        "role": "alternate",
        "file": SimpleUploadedFile("r.tsv", f"A.2 Q0 {post} 1 0.9 {tag}api\n".encode()),
    }
    response = carol.post("/api/runs/", rest)
    assert response.status_code == 201, response.content
    assert Run.objects.filter(tag__in=[f"{tag}web", f"{tag}api"]).count() == 2


def test_judging_and_organizing_go_on_and_the_queue_says_try_again_when_redis_stops(
    redis_server: ThrowawayRedis, campaign: Campaign
) -> None:
    worker = worker_process("outage", redis_url=redis_server.url)
    try:
        anonymous = Client()
        wait_for(lambda: health(anonymous)["worker"]["status"] == "ok", 60, "worker heartbeat")
        assert health(anonymous)["status"] == "ok"
        alice = login("alice")
        judge(alice, campaign, item=0, grade=3)
        olga = login("olga")
        code, state, _ = request_build(olga, campaign.task)
        assert code == 202
        wait_for(lambda: build_done(state["build"]), 60, "a build before the outage")

        redis_server.stop()
        stopped = time.monotonic()
        _assert_everything_but_the_queue_works(campaign, alice, olga)
        time.sleep(max(0.0, OUTAGE_SECONDS - (time.monotonic() - stopped)))

        redis_server.start()
        back = time.monotonic()
        accepted: list[dict] = []

        def build_accepted() -> bool:
            code, state, _ = request_build(olga, campaign.task)
            if code == 202:
                accepted.append(state)
            return code == 202

        wait_for(build_accepted, 60, "a build accepted after Redis came back", every=0.2)
        accepted_after = time.monotonic() - back
        wait_for(lambda: build_done(accepted[0]["build"]), 120, "the worker to build again")
        done_after = time.monotonic() - back
        print(
            f"\nRedis back after {OUTAGE_SECONDS:.0f} s down: build accepted after "
            f"{accepted_after:.1f} s, built by the surviving worker after {done_after:.1f} s"
        )
        assert health(anonymous)["redis"] == {"status": "ok"}
    finally:
        kill(worker)


def _assert_everything_but_the_queue_works(campaign: Campaign, alice: Client, olga: Client) -> None:
    # Queue-bound actions fail fast and leave nothing pending.
    code, state, took = request_build(olga, campaign.task)
    assert (code, state["detail"], state["status"]) == (503, QUEUE_UNAVAILABLE, "failed")
    assert took < FAIL_FAST, f"the enqueue took {took:.1f} s with Redis down"
    print(f"\nRedis down: the build request answered 503 in {took:.2f} s")
    assert PoolBuild.objects.get(pk=state["build"]).error == QUEUE_UNAVAILABLE
    page = olga.post(reverse("pooling:pool-build", args=[campaign.task.pk]), follow=True)
    assert page.status_code == 200
    assert QUEUE_UNAVAILABLE in page.content.decode()
    qrels = qrels_import(task=campaign.task, text="A.1\t0\t1001\t2\nA.2\t0\t1002\t0\n")
    qrels_page = reverse("evaluation:qrels", args=[campaign.task.pk])
    page = olga.post(qrels_page, {"action": "evaluate", "qrels": qrels.pk}, follow=True)
    assert page.status_code == 200
    assert QUEUE_UNAVAILABLE in page.content.decode()
    assert EvaluationJob.objects.get().status == EvaluationJob.Status.FAILED
    assert not PoolBuild.objects.filter(status=PoolBuild.Status.PENDING).exists()
    assert not EvaluationJob.objects.filter(status=EvaluationJob.Status.PENDING).exists()

    # The logged-in assessor goes on judging; a new login works.
    assert alice.get(reverse("assessment:home")).status_code == 200
    judge(alice, campaign, item=1, grade=2)
    judge(login("alice"), campaign, item=2, grade=1)
    assert login("bob").get(reverse("assessment:home")).status_code == 200

    # Organizer pages, and a participant's uploads.
    for url in [
        reverse("home"),
        reverse("assessment:organize"),
        reverse("assessment:organize_task", args=[campaign.pool.topic.task_id]),
        reverse("pooling:pools"),
        reverse("pooling:pool", args=[campaign.task.pk]),
        reverse("pooling_api:pool-build", args=[campaign.task.pk]),
        qrels_page,
        reverse("evaluation:results", args=[campaign.task.pk]),
    ]:
        assert olga.get(url).status_code == 200, url
    upload_runs(campaign, "outage")

    status = health(Client())
    assert status["code"] == 200
    assert (status["status"], status["database"]["status"]) == ("degraded", "ok")
    assert (status["redis"]["status"], status["worker"]["status"]) == ("down", "unknown")
