"""An endpoint's concurrency is shared by every worker through Redis: two limiters of one
endpoint (two workers) never hold more leases than the endpoint allows, and a limiter's
leases come free when it closes."""

from __future__ import annotations

import threading
import time

import pytest
from django.conf import settings

from judges.limits import EndpointLimiter

pytestmark = pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis")


def test_two_workers_limiters_share_the_endpoints_concurrency() -> None:
    endpoint_id = 10_000_000 + int(time.time() * 1000) % 1_000_000  # keys of its own
    first, second = (
        EndpointLimiter(endpoint_id=endpoint_id, concurrency=2, rpm=0, lease_seconds=30)
        for _ in range(2)
    )
    held = []
    for _ in range(2):  # two threads of the first worker take both slots
        thread = threading.Thread(target=lambda: held.append(first.acquire()))
        thread.start()
        thread.join()
    assert len(set(held)) == 2
    got: list[str | None] = []
    waiting = threading.Thread(target=lambda: got.append(second.acquire()), daemon=True)
    waiting.start()
    waiting.join(0.5)
    assert got == []  # the second worker waits: the endpoint's two slots are taken
    first.close()
    waiting.join(5)
    assert len(got) == 1
    assert got[0] not in held
    second.close()


def test_a_rate_limit_spaces_requests_after_the_burst() -> None:
    endpoint_id = 20_000_000 + int(time.time() * 1000) % 1_000_000
    limiter = EndpointLimiter(endpoint_id=endpoint_id, concurrency=2, rpm=600, lease_seconds=30)
    started = time.monotonic()
    for _ in range(12):  # 2 at once (the burst), then one every 100 ms
        limiter.release(limiter.acquire())
    assert time.monotonic() - started >= 0.9
    limiter.close()


def test_limits_go_in_process_and_say_so_once_when_redis_is_gone(
    caplog: pytest.LogCaptureFixture, settings: object
) -> None:
    from tests.integration.workers import free_port

    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"  # type: ignore[attr-defined]
    limiter = EndpointLimiter(endpoint_id=30_000_000, concurrency=1, rpm=0, lease_seconds=30)
    with caplog.at_level("WARNING", logger="judges.limits"):
        tokens = []
        for _ in range(20):
            tokens.append(limiter.acquire())
            limiter.release(tokens[-1])
    assert tokens == [None] * 20  # in-process slots: no lease
    warnings = [r for r in caplog.records if "limiting in-process" in r.getMessage()]
    assert len(warnings) == 1
    limiter.close()
