"""/healthz: the database, Redis and the worker, each with its own status."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import connection
from django.test import Client

from tests.integration.workers import (
    ThrowawayRedis,
    celery_broker,
    free_port,
    kill,
    wait_for,
    worker_process,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def redis_server() -> Iterator[ThrowawayRedis]:
    server = ThrowawayRedis()
    server.start()
    try:
        with celery_broker(server.url):
            yield server
    finally:
        server.stop()


def health(client: Client) -> tuple[int, dict]:
    response = client.get("/healthz")
    return response.status_code, response.json()


def test_health_is_503_down_when_the_database_does_not_answer(client: Client) -> None:
    port = connection.settings_dict["PORT"]
    connection.close()
    connection.settings_dict["PORT"] = str(free_port())
    try:
        code, body = health(client)
    finally:
        connection.close()
        connection.settings_dict["PORT"] = port
    assert code == 503
    assert (body["status"], body["database"]) == ("down", {"status": "down"})
    assert body["redis"] == {"status": "ok"}  # each part on its own


@pytest.mark.worker
def test_health_names_the_worker_down_then_ok_when_a_worker_starts(
    client: Client, redis_server: ThrowawayRedis
) -> None:
    code, body = health(client)
    assert (code, body["status"]) == (200, "degraded")
    assert body["worker"] == {"status": "down", "alive": 0}
    worker = worker_process("healthz", redis_url=redis_server.url)
    try:
        wait_for(lambda: health(client)[1]["worker"]["status"] == "ok", 60, "the worker's beat")
        code, body = health(client)
        assert (code, body) == (
            200,
            {
                "status": "ok",
                "database": {"status": "ok"},
                "redis": {"status": "ok"},
                "worker": {"status": "ok", "alive": 1},
            },
        )
    finally:
        kill(worker)
    redis_server.stop()
    code, body = health(client)
    assert (code, body["status"], body["redis"], body["worker"]) == (
        200,
        "degraded",
        {"status": "down"},
        {"status": "unknown"},
    )
