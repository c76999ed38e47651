"""An endpoint's concurrency and requests-per-minute, shared by every worker through Redis.

Concurrency is a semaphore of leases (a sorted set of lease expiry times): a worker that dies
holding one loses it when the lease ends, so a killed worker never starves the endpoint. A
thread keeps its lease from one request to the next (it asks again at once) and gives it back
when the run's questions are done; without a rate limit it renews the lease only when a third
of it has passed, so most requests cost no Redis round trip at all.
Requests per minute follow the generic cell rate algorithm (GCRA, as in ATM traffic shaping):
one key holds the theoretical arrival time of the next request; a burst of up to the
endpoint's concurrency is allowed. Both are one Lua script: one round trip per request.

Without Redis (no REDIS_URL, or Redis gone for a moment) the same limits hold within the
process, so a run goes on; they are then per process rather than shared.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid
from typing import Any

import redis
from django.conf import settings

logger = logging.getLogger(__name__)

__all__ = ["EndpointLimiter"]

_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
local rpm, burst = tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZSCORE', KEYS[1], ARGV[5])
if not held and redis.call('ZCARD', KEYS[1]) >= limit then return -1 end
if rpm > 0 then
  local interval = 60000 / rpm
  local tat = tonumber(redis.call('GET', KEYS[2]) or now)
  if tat < now then tat = now end
  if tat - now > burst * interval then return math.ceil(tat - now - burst * interval) end
  redis.call('SET', KEYS[2], tostring(tat + interval), 'PX', math.ceil(tat + interval - now) + 1000)
end
redis.call('ZADD', KEYS[1], now + lease, ARGV[5])
redis.call('PEXPIRE', KEYS[1], lease * 2)
return 0
"""
SHARED_RETRY_SECONDS = 1.0  # how long the limits stay in-process after Redis failed
_POLL_SECONDS = 0.002


class _LocalLimits:
    """The same limits within one process."""

    def __init__(self, concurrency: int, rpm: int) -> None:
        self.slots = threading.BoundedSemaphore(concurrency)
        self.interval = 60.0 / rpm if rpm else 0.0
        self.burst = concurrency
        self.lock = threading.Lock()
        self.tat = 0.0

    def acquire(self) -> None:
        self.slots.acquire()
        if not self.interval:
            return
        while True:
            with self.lock:
                now = time.monotonic()
                tat = max(self.tat, now)
                wait = tat - now - self.burst * self.interval
                if wait <= 0:
                    self.tat = tat + self.interval
                    return
            time.sleep(wait)

    def release(self) -> None:
        self.slots.release()


class EndpointLimiter:
    """``with limiter.slot(): ask()``: at most ``concurrency`` requests at once and
    ``rpm`` a minute (0: no limit) to endpoint ``endpoint_id``, across workers."""

    def __init__(
        self, *, endpoint_id: int, concurrency: int, rpm: int, lease_seconds: float
    ) -> None:
        self.keys = [f"judges:endpoint:{endpoint_id}:slots", f"judges:endpoint:{endpoint_id}:rpm"]
        self.args = [int(lease_seconds * 1000), concurrency, rpm, concurrency]
        self.local = _LocalLimits(concurrency, rpm)
        self.client: Any = None
        self.script: Any = None
        url = getattr(settings, "REDIS_URL", "")
        if url:
            self.client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
            self.script = self.client.register_script(_ACQUIRE)
        # While Redis is gone the limits are kept in-process, and Redis is tried again only
        # after a pause: every request would otherwise wait for a refused (or timed-out)
        # connection and log it.
        self.shared_retry_at = 0.0
        self.waited = 0.0  # seconds spent waiting for a slot or the rate (for the report)
        self.mine = threading.local()  # this thread's lease: token, renew_at
        self.held: set[str] = set()
        self.lock = threading.Lock()

    def acquire(self) -> str | None:
        """A lease token (Redis), or None when the process-local limits were used."""
        if self.script is not None and time.monotonic() >= self.shared_retry_at:
            mine = self.mine
            token = getattr(mine, "token", None)
            now = time.monotonic()
            if token is not None and not self.args[2] and now < mine.renew_at:
                return str(token)  # a lease held and fresh, no rate to keep: no round trip
            token = token or uuid.uuid4().hex
            try:
                while (wait := int(self.script(keys=self.keys, args=[*self.args, token]))) != 0:
                    time.sleep(_POLL_SECONDS if wait < 0 else wait / 1000)
            except redis.RedisError as error:
                if not self.shared_retry_at:
                    logger.warning(
                        "shared endpoint limits unavailable, limiting in-process: %s", error
                    )
                self.shared_retry_at = time.monotonic() + SHARED_RETRY_SECONDS
            else:
                if self.shared_retry_at:
                    logger.warning("shared endpoint limits available again")
                    self.shared_retry_at = 0.0
                mine.token = token
                mine.renew_at = time.monotonic() + self.args[0] / 3000
                with self.lock:
                    self.held.add(token)
                self.waited += time.monotonic() - now
                return str(token)
        self.local.acquire()
        return None

    def release(self, token: str | None) -> None:
        """After a request: a process-local slot is given back; a Redis lease is kept by its
        thread for the next request (``close`` gives them all back)."""
        if token is None:
            self.local.release()

    def close(self) -> None:
        """Give back every lease this limiter's threads hold."""
        with self.lock:
            tokens, self.held = list(self.held), set()
        if tokens and self.client is not None:
            with contextlib.suppress(redis.RedisError):  # else the leases end by themselves
                self.client.zrem(self.keys[0], *tokens)
