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
