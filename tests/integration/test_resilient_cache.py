"""kernel.cache.ResilientRedisCache: a cache while Redis answers, misses while it does not."""

from __future__ import annotations

import time

from kernel.cache import SKIP_SECONDS, ResilientRedisCache
from tests.integration.workers import ThrowawayRedis, free_port


def cache_at(url: str) -> ResilientRedisCache:
    return ResilientRedisCache(url, {"KEY_PREFIX": "resilient-test"})


def test_cache_answers_misses_quickly_when_redis_is_unreachable() -> None:
    cache = cache_at(f"redis://127.0.0.1:{free_port()}/0")
    started = time.monotonic()
    assert cache.get("k", "default") == "default"
    cache.set("k", 1)
    assert cache.add("k", 1) is False
    assert cache.get_many(["k", "l"]) == {}
    assert cache.get_or_set("k", 5) == 5
    assert cache.delete("k") is False
    assert cache.has_key("k") is False
    cache.set_many({"a": 1})
    cache.delete_many(["a"])
    assert cache.touch("k") is False
    try:
        cache.incr("k")
    except ValueError as error:  # what incr() says of a missing key
        assert "not found" in str(error)  # noqa: PT017
    else:
        raise AssertionError("incr() of a missing key must raise ValueError")
    assert time.monotonic() - started < 1.0


def test_cache_serves_again_when_redis_comes_back() -> None:
    server = ThrowawayRedis()
    server.start()
    cache = cache_at(server.url)
    try:
        cache.set("k", {"v": 1})
        assert cache.get("k") == {"v": 1}
        server.stop()
        assert cache.get("k", "miss") == "miss"
        server.start()  # the same port, empty
        time.sleep(SKIP_SECONDS + 0.1)  # Redis is asked again after a failure
        cache.set("k", 2)
        assert cache.get("k") == 2
        assert cache.incr("k") == 3
    finally:
        server.stop()
