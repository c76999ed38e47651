"""The Celery application: tasks are discovered in each app's ``tasks.py``.

Each worker also records that it is alive in a Redis hash (``qrelsmith:workers``: hostname ->
time of its last beat, written by a thread every WORKER_BEAT_SECONDS), which /healthz reads: a
cheaper question than a broadcast ping.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

from celery import Celery
from celery.signals import worker_ready, worker_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")

app = Celery("qrelsmith")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

logger = logging.getLogger(__name__)

WORKERS_KEY = "qrelsmith:workers"
WORKER_BEAT_SECONDS = 10
WORKER_FRESH_SECONDS = 30  # three beats missed: the worker is gone


def broker_redis() -> Any | None:
    """A Redis client of the broker with short timeouts, or None without a Redis broker."""
    url = app.conf.broker_url or ""
    if not url.startswith(("redis://", "rediss://", "unix://")):
        return None
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return redis.Redis.from_url(
        url,
        socket_connect_timeout=0.5,
        socket_timeout=1.0,
        retry=Retry(NoBackoff(), 0),
        decode_responses=True,
    )


def workers_alive(client: Any) -> int:
    """How many workers beat within WORKER_FRESH_SECONDS (forgetting those that did not)."""
    beats = client.hgetall(WORKERS_KEY)
    cutoff = time.time() - WORKER_FRESH_SECONDS
    gone = [name for name, at in beats.items() if float(at) < cutoff]
    if gone:
        client.hdel(WORKERS_KEY, *gone)
    return len(beats) - len(gone)


_beating: dict[str, threading.Event] = {}  # hostname -> set to stop its beat


@worker_ready.connect
def _beat_while_alive(sender: Any = None, **_kwargs: Any) -> None:
    hostname = getattr(sender, "hostname", None) or "worker"
    client = broker_redis()
    if client is None:
        return
    stop = _beating[hostname] = threading.Event()

    def beat() -> None:
        while True:
            try:
                client.hset(WORKERS_KEY, hostname, time.time())
            except Exception as error:
                logger.debug("worker heartbeat not written: %s", error)
            if stop.wait(WORKER_BEAT_SECONDS):
                return

    threading.Thread(target=beat, name="worker-heartbeat", daemon=True).start()


@worker_shutdown.connect
def _stop_beat(sender: Any = None, **_kwargs: Any) -> None:
    hostname = getattr(sender, "hostname", None) or "worker"
    stop = _beating.pop(hostname, None)
    client = broker_redis()
    if stop is None or client is None:
        return
    stop.set()
    try:
        client.hdel(WORKERS_KEY, hostname)
    except Exception as error:
        logger.debug("worker heartbeat not removed: %s", error)
