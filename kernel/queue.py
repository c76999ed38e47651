"""Jobs handed to the Celery queue (pool builds, evaluation jobs): enqueue, heartbeat, reaper.

One home for the rules every job follows. A job is a row of a ``kernel.models.JobRow`` table
(``status``: pending | running | done | failed, ``attempts``, ``heartbeat_at``,
``worker_lost_at``, ``celery_task_id``, ``error``, ``finished_at``); its Celery task takes
``(job_id, attempt)``.

- **Enqueue** (`job_enqueue`): publish the task; if the broker cannot be reached, the row is
  marked failed with a "try again" message and `QueueUnavailable` is raised, so no row waits in
  `pending` for a message that was never sent. Publishing fails within ~2 s (settings
  "Celery": socket timeouts, one publish retry).
- **Claim and heartbeat** (`job_claim`, `job_beat`, `job_heartbeat`): a worker marks the job
  running for its attempt and writes ``heartbeat_at`` every JOB_HEARTBEAT_SECONDS (a thread)
  and with each progress write. Every write names only its own columns and is conditional on
  the attempt, so a worker whose job was handed to another attempt stops (`JobSuperseded`)
  and never overwrites the newer attempt's progress or task id.
- **Reaper** (`jobs_reap`): a running job without a heartbeat for JOB_STALE_SECONDS lost its
  worker (killed, out of memory, machine gone). It is queued again as the next attempt, up to
  JOB_MAX_ATTEMPTS, then marked failed with "worker died …; retry". Celery beat runs it every
  30 s and the pages that show a job's status run it too, so a deployment without beat still
  recovers: with the defaults a dead worker's job is queued again within 90 s.
- **Lost messages** (`jobs_reap` too): a job pending for JOB_LOST_MESSAGE_SECONDS whose message
  the broker no longer holds, neither queued nor taken by a worker (Redis restarted without
  persistence; the web process died between commit and publish), is published again as the
  next attempt, so a worker holding the old message after all finds it superseded.

A redelivered message (the broker's visibility timeout, see settings) is harmless: a done,
failed or superseded job is skipped by `job_claim`.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection, models, transaction
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError
from redis import Redis, RedisError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from kernel.models import JobRow

logger = logging.getLogger(__name__)

PENDING, RUNNING, DONE, FAILED = "pending", "running", "done", "failed"
QUEUE_UNAVAILABLE = "The task queue is unavailable; try again in a minute."
# What publishing raises when Redis cannot be reached (kombu wraps most of them).
PUBLISH_ERRORS = (KombuOperationalError, RedisConnectionError, RedisTimeoutError, OSError)


class QueueUnavailable(Exception):
    """The broker could not take the job; the job row is marked failed (try again)."""

    def __init__(self, job_id: int | None = None) -> None:
        super().__init__(QUEUE_UNAVAILABLE)
        self.job_id = job_id


class JobSuperseded(Exception):
    """This attempt of a job is no longer current (reaped and re-queued, done or failed)."""


def job_enqueue(*, model: type[JobRow], job_id: int, attempt: int, celery_task: Any) -> None:
    """Publish ``celery_task(job_id, attempt)``; on a broker outage mark the job failed and raise
    `QueueUnavailable`. Call it through `job_enqueue_on_commit` where the row is being written.
    """
    # Results live on the job row; not subscribing to a result keeps the publish to one Redis
    # command (the result backend would otherwise be contacted first, with its own retries).
    publish = partial(celery_task.apply_async, args=(job_id, attempt), ignore_result=True)
    if celery_task.app.conf.task_always_eager:  # no broker: the task runs here and now
        publish()
        return
    try:
        result = publish()
    except PUBLISH_ERRORS as error:
        logger.warning("job %s#%s not queued: %s", model.__name__, job_id, error)
        model._default_manager.filter(pk=job_id, attempts=attempt, status=PENDING).update(
            status=FAILED, error=QUEUE_UNAVAILABLE, finished_at=timezone.now()
        )
        raise QueueUnavailable(job_id) from error
    model._default_manager.filter(pk=job_id, attempts=attempt).update(
        celery_task_id=result.id or ""
    )


def job_enqueue_on_commit(
    *, model: type[JobRow], job_id: int, attempt: int, celery_task: Any
) -> None:
    """Enqueue once the current transaction commits (the worker must see the row).

    A broker outage then raises `QueueUnavailable` where the outermost ``atomic()`` block
    ends, after the row was committed and marked failed."""
    transaction.on_commit(
        partial(job_enqueue, model=model, job_id=job_id, attempt=attempt, celery_task=celery_task)
    )


def _current(model: type[JobRow], job_id: int, attempt: int | None) -> models.QuerySet:
    jobs = model._default_manager.filter(pk=job_id)
    return jobs if attempt is None else jobs.filter(attempts=attempt)


def job_claim(*, model: type[JobRow], job_id: int, attempt: int | None, **fields: Any) -> bool:
    """Mark the job running for ``attempt`` (None: whatever attempt it is on), writing
    ``fields`` too; False if it is done, failed or another attempt took it over."""
    jobs = _current(model, job_id, attempt).filter(status__in=(PENDING, RUNNING))
    return jobs.update(status=RUNNING, heartbeat_at=timezone.now(), **fields) == 1


def job_beat(*, model: type[JobRow], job_id: int, attempt: int | None, **progress: Any) -> None:
    """Record progress (and that the worker is alive); raise `JobSuperseded` if this attempt
    is no longer the running one."""
    jobs = _current(model, job_id, attempt).filter(status=RUNNING)
    if jobs.update(heartbeat_at=timezone.now(), **progress) != 1:
        raise JobSuperseded(f"{model.__name__} {job_id} attempt {attempt} was superseded")


@contextmanager
def job_heartbeat(*, model: type[JobRow], job_id: int, attempt: int | None) -> Iterator[None]:
    """Write the job's heartbeat from a thread while the body runs, so a long step with no
    progress to report (significance tests, one large chunk) is not mistaken for a dead worker.
    """
    stop = threading.Event()
    beats = threading.Thread(
        target=_beat_until,
        args=(stop, model, job_id, attempt, float(settings.JOB_HEARTBEAT_SECONDS)),
        name=f"heartbeat-{model.__name__}-{job_id}",
        daemon=True,
    )
    beats.start()
    try:
        yield
    finally:
        stop.set()  # not joined: it may be waiting for a lock the caller's transaction holds


def _beat_until(
    stop: threading.Event,
    model: type[JobRow],
    job_id: int,
    attempt: int | None,
    every: float,
) -> None:
    try:
        while not stop.wait(every):
            try:
                if connection.vendor == "postgresql":  # never wait long behind the job's locks
                    with connection.cursor() as cursor:
                        cursor.execute("SET lock_timeout = '2s'")
                jobs = _current(model, job_id, attempt).filter(status=RUNNING)
                jobs.update(heartbeat_at=timezone.now())
            except DatabaseError as error:  # the next beat may succeed; the job goes on
                logger.warning("heartbeat of %s %s failed: %s", model.__name__, job_id, error)
    finally:
        connection.close()  # this thread's own connection


@dataclass(frozen=True)
class Reaped:
    """A job the reaper found without a worker or message, and what it did: "requeued" |
    "failed" | "republished"."""

    job_id: int
    action: str
    attempt: int


def jobs_reap(
    *, model: type[JobRow], celery_task: Any, alive: models.Q | None = None
) -> list[Reaped]:
    """Queue again (or fail) every running job whose heartbeat is older than JOB_STALE_SECONDS,
    and publish again every pending job whose message the broker lost (one query for both).
    ``alive``: running jobs it matches are not silent whatever their heartbeat (a job whose
    parts run as jobs of their own and beat for it).

    Safe to run anywhere and often: each job is taken with a conditional update, so two
    reapers never both re-queue it. Without a broker (tasks run in-process), the job is marked
    failed-and-retryable instead of being re-run inside the request that noticed it."""
    now = timezone.now()
    silent = models.Q(
        status=RUNNING, heartbeat_at__lt=now - timedelta(seconds=settings.JOB_STALE_SECONDS)
    )
    if alive is not None:
        silent &= ~alive
    # Pending that long: created before the cutoff and not queued again since (a re-queue
    # sets heartbeat_at to its own time).
    waited = now - timedelta(seconds=settings.JOB_LOST_MESSAGE_SECONDS)
    waiting = models.Q(status=PENDING, created_at__lt=waited) & (
        models.Q(heartbeat_at__isnull=True) | models.Q(heartbeat_at__lt=waited)
    )
    wanted = silent if settings.CELERY_TASK_ALWAYS_EAGER else silent | waiting
    rows = model._default_manager.filter(wanted).values_list(
        "pk", "status", "attempts", "heartbeat_at", "celery_task_id"
    )
    running: list[tuple[int, int, datetime]] = []
    pending = []
    for job_id, status, attempt, beat, task_id in rows:
        if status == RUNNING:
            if beat is not None:  # always, by ``silent``'s heartbeat_at__lt
                running.append((job_id, attempt, beat))
        else:
            pending.append((job_id, attempt, task_id))
    return [
        *_reap_silent(model, celery_task, running, now),
        *_reap_lost(model, celery_task, pending),
    ]


def _reap_silent(
    model: type[JobRow],
    celery_task: Any,
    stale: list[tuple[int, int, datetime]],
    now: datetime,
) -> list[Reaped]:
    reaped = []
    for job_id, attempt, beat in stale:
        taken = model._default_manager.filter(
            pk=job_id, status=RUNNING, attempts=attempt, heartbeat_at=beat
        )
        if attempt < settings.JOB_MAX_ATTEMPTS and not settings.CELERY_TASK_ALWAYS_EAGER:
            # heartbeat_at = now: pending since now, for the lost-message check.
            requeued = taken.update(
                status=PENDING,
                attempts=attempt + 1,
                worker_lost_at=beat,
                heartbeat_at=now,
                celery_task_id="",
                error="",
            )
            if requeued:
                logger.warning(
                    "%s %s lost its worker; queued again as attempt %s",
                    model.__name__,
                    job_id,
                    attempt + 1,
                )
                reaped.append(Reaped(job_id, "requeued", attempt + 1))
                # After this job's update commits (at once outside a transaction); robust: no
                # error of one job's enqueue stops the reaper (or the page that runs it).
                transaction.on_commit(
                    _enqueuer(model, job_id, attempt + 1, celery_task), robust=True
                )
        elif taken.update(
            status=FAILED, worker_lost_at=beat, error=worker_died_message(beat), finished_at=now
        ):
            reaped.append(Reaped(job_id, "failed", attempt))
    return reaped


def _reap_lost(
    model: type[JobRow], celery_task: Any, waiting: list[tuple[int, int, str]]
) -> list[Reaped]:
    if not waiting:
        return []
    held = broker_task_ids(celery_task.app)
    if held is None:  # the broker cannot be asked: nothing is known to be lost
        return []
    reaped = []
    for job_id, attempt, task_id in waiting:
        if task_id and task_id in held:
            continue
        taken = model._default_manager.filter(
            pk=job_id, status=PENDING, attempts=attempt, celery_task_id=task_id
        )
        if taken.update(attempts=attempt + 1, celery_task_id=""):
            logger.warning(
                "%s %s: its queued message was lost; published again as attempt %s",
                model.__name__,
                job_id,
                attempt + 1,
            )
            reaped.append(Reaped(job_id, "republished", attempt + 1))
            transaction.on_commit(_enqueuer(model, job_id, attempt + 1, celery_task), robust=True)
    return reaped


def broker_task_ids(app: Any) -> set[str] | None:
    """The ids of the task messages the Redis broker holds: queued, or taken by a worker and
    not yet acknowledged (kombu's ``unacked`` hash). None when it cannot be asked."""
    url = app.conf.broker_url
    if not str(url).startswith(("redis://", "rediss://", "unix://")):
        return None
    queues = [queue.name for queue in app.amqp.queues.values()] or ["celery"]
    unacked = app.conf.broker_transport_options.get("unacked_key", "unacked")
    try:
        client = Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
        with client.pipeline(transaction=False) as pipe:
            for queue in queues:
                pipe.lrange(queue, 0, -1)
            pipe.hvals(unacked)
            replies = pipe.execute()
    except (RedisError, OSError) as error:
        logger.warning("cannot read the broker's queues: %s", error)
        return None
    messages = [m for reply in replies[:-1] for m in reply]
    # An unacked entry is [message, exchange, routing key].
    messages += [json.loads(entry)[0] for entry in replies[-1]]
    return {_task_id(message) for message in messages} - {""}


def _task_id(message: bytes | str | dict) -> str:
    try:
        body = message if isinstance(message, dict) else json.loads(message)
        return str(body.get("headers", {}).get("id", ""))
    except (ValueError, AttributeError):
        return ""


def _enqueuer(
    model: type[JobRow], job_id: int, attempt: int, celery_task: Any
) -> Callable[[], None]:
    # A named function, not a partial: on_commit(robust=True) logs the callback's __qualname__.
    def enqueue_attempt() -> None:
        # On a broker outage job_enqueue logged it and marked the job failed (to retry).
        with suppress(QueueUnavailable):
            job_enqueue(model=model, job_id=job_id, attempt=attempt, celery_task=celery_task)

    return enqueue_attempt


def worker_died_message(at: datetime) -> str:
    return f"The worker died at {at:%Y-%m-%d %H:%M:%S} UTC; retry."


def job_checkpoint(kind: str, done: int) -> None:
    """Test-only hook: a place where a job can be made to stop, so a test kills its worker at
    a known point. Off unless settings.JOB_TEST_HOOKS (test settings only); then, with
    ``JOB_TEST_PAUSE=<kind>:<n>`` in the environment, the job blocks once ``done`` >= n after
    writing ``done`` to the file JOB_TEST_PAUSED_FILE names."""
    if not getattr(settings, "JOB_TEST_HOOKS", False):
        return
    wanted, _, after = os.environ.get("JOB_TEST_PAUSE", "").partition(":")
    if wanted != kind or not after.isdecimal() or done < int(after):
        return
    Path(os.environ["JOB_TEST_PAUSED_FILE"]).write_text(str(done))
    while True:  # until the test kills this process
        time.sleep(1)
