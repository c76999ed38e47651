"""A Redis cache that turns an unreachable Redis into cache misses instead of errors.

Django's RedisCache raises on every connection error, so with Redis down every page that
touches the cache (a DRF throttle, for one) answered 500. Here a connection
error or a timeout is a miss: reads return the default, writes do nothing, and a warning is
logged (at most once a minute). Callers therefore must treat the cache as a cache: never the
only copy of anything (sessions live in the database, see settings "Sessions").

Redis is given short socket timeouts and no client-side retries, and after a failure it is
not asked again for a few seconds, so an outage costs a page a few milliseconds, not seconds.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

logger = logging.getLogger(__name__)

UNREACHABLE = (RedisConnectionError, RedisTimeoutError)
# After a failure Redis is skipped for this long: a page pays for one failed attempt, not one
# per cache call, and a Redis that is back is used again within seconds.
SKIP_SECONDS = 5.0
WARN_EVERY_SECONDS = 60.0
DEFAULT_OPTIONS: dict[str, Any] = {
    "socket_connect_timeout": 0.5,
    "socket_timeout": 0.5,  # a healthy Redis answers in a millisecond
}

F = TypeVar("F", bound=Callable[..., Any])


class _Outage:
    """When Redis failed last and when that was last logged, shared by every thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.skip_until = 0.0
        self.warned_at = -WARN_EVERY_SECONDS

    def skipping(self) -> bool:
        return time.monotonic() < self.skip_until

    def failed(self, error: Exception) -> None:
        now = time.monotonic()
        with self.lock:
            self.skip_until = now + SKIP_SECONDS
            warn = now - self.warned_at >= WARN_EVERY_SECONDS
            if warn:
                self.warned_at = now
        if warn:
            logger.warning("Redis cache unreachable, serving cache misses: %s", error)


_OUTAGES: dict[tuple[str, ...], _Outage] = {}


def _miss(answer: Callable[..., Any]) -> Callable[[F], F]:
    """Call the Redis client method, or answer ``answer(*args)`` while Redis is unreachable."""

    def decorate(method: F) -> F:
        @functools.wraps(method)
        def wrapper(self: ResilientRedisCacheClient, *args: Any) -> Any:
            if self.outage.skipping():
                return answer(*args)
            try:
                return method(self, *args)
            except UNREACHABLE as error:
                self.outage.failed(error)
                return answer(*args)

        return wrapper  # type: ignore[return-value]

    return decorate


def _not_found(key: str, _delta: int) -> int:
    raise ValueError(f"Key '{key}' not found.")  # what incr() says of a missing key


class ResilientRedisCacheClient(RedisCacheClient):
    """Django's Redis client with every operation answered as a miss during an outage."""

    def __init__(self, servers: list[str], **options: Any) -> None:
        # No client-side retries: a miss now beats a hit after seconds of backoff.
        options = {**DEFAULT_OPTIONS, "retry": Retry(NoBackoff(), 0), **options}
        super().__init__(servers, **options)
        # Django keeps a cache object per thread; the outage is a fact about the server.
        self.outage = _OUTAGES.setdefault(tuple(servers), _Outage())

    add = _miss(lambda *_: False)(RedisCacheClient.add)
    get = _miss(lambda _key, default: default)(RedisCacheClient.get)
    set = _miss(lambda *_: None)(RedisCacheClient.set)
    touch = _miss(lambda *_: False)(RedisCacheClient.touch)
    delete = _miss(lambda *_: False)(RedisCacheClient.delete)
    get_many = _miss(lambda *_: {})(RedisCacheClient.get_many)
    has_key = _miss(lambda *_: False)(RedisCacheClient.has_key)
    incr = _miss(_not_found)(RedisCacheClient.incr)
    set_many = _miss(lambda *_: None)(RedisCacheClient.set_many)
    delete_many = _miss(lambda *_: None)(RedisCacheClient.delete_many)
    clear = _miss(lambda *_: False)(RedisCacheClient.clear)


class ResilientRedisCache(RedisCache):
    """``CACHES`` backend: Django's RedisCache whose outages are cache misses (see above)."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = ResilientRedisCacheClient
