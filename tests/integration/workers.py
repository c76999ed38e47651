"""Real processes for the fault tests: a ``celery -A config worker`` and a throwaway Redis.

Both run as subprocesses in their own session, so a test can SIGKILL them like a crash would.
The worker uses the test database (committed data: the tests using it are transactional).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import redis
from django.db import connection

from config.celery import app as celery_app

REPO = Path(__file__).resolve().parents[2]


def worker_process(
    name: str, *, redis_url: str | None = None, **env: str
) -> subprocess.Popen[bytes]:
    """A solo-pool worker of the project app against the test database (and ``redis_url``,
    default REDIS_URL), with extra environment ``env``."""
    db = connection.settings_dict  # the test database, which the worker must use
    login = db["USER"] + (f":{quote(db['PASSWORD'])}" if db.get("PASSWORD") else "")
    host = db["HOST"] or "127.0.0.1"
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"postgres://{login}@{host}:{db['PORT'] or 5432}/{db['NAME']}",
        "CONN_MAX_AGE": "0",
        **({"REDIS_URL": redis_url} if redis_url else {}),
        **env,
    }
    celery = str(Path(sys.executable).with_name("celery"))
    command = [celery, "-A", "config", "worker", "--pool=solo", "--loglevel=WARNING"]
    command += ["--without-gossip", "--without-mingle", "-n", f"{name}-{os.getpid()}@%h"]
    return subprocess.Popen(command, cwd=REPO, env=environment, start_new_session=True)  # noqa: S603


def kill(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the process and its children (no clean shutdown), and reap it."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)


def wait_for(condition: object, timeout: float, what: str, every: float = 0.05) -> float:
    """Poll ``condition()`` until true; the seconds it took. Fails after ``timeout``."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if condition():  # type: ignore[operator]
            return time.monotonic() - start
        time.sleep(every)
    raise AssertionError(f"{what}: not within {timeout} s")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ThrowawayRedis:
    """A redis-server of our own on a spare port, without persistence, to stop and restart."""

    def __init__(self) -> None:
        server = shutil.which("redis-server")
        if server is None:
            raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
        self.server = server
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = [self.server, "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no", "--loglevel", "warning"]
        self.process = subprocess.Popen(  # noqa: S603
            command, start_new_session=True, stdout=subprocess.DEVNULL
        )
        client = redis.Redis.from_url(self.url, socket_connect_timeout=0.2)
        wait_for(lambda: self._answers(client), 20, "redis-server to start")

    def stop(self) -> None:
        """SIGKILL, as if the machine had lost it."""
        if self.process is not None:
            kill(self.process)
            self.process = None

    @staticmethod
    def _answers(client: redis.Redis) -> bool:
        try:
            return bool(client.ping())
        except redis.RedisError:
            return False


@contextmanager
def celery_broker(url: str) -> Iterator[None]:
    """Point the project's Celery app at ``url`` for publishing, and back afterwards."""
    previous = celery_app.conf.broker_url

    def use(broker: str) -> None:
        celery_app.conf.update(broker_url=broker)
        # The app caches its connection and producer pools; forget them (as after a fork).
        celery_app._pool = None  # type: ignore[attr-defined]
        celery_app.amqp._producer_pool = None  # type: ignore[attr-defined]

    use(url)
    try:
        yield
    finally:
        use(previous)
