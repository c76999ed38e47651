"""What both sides of bench/judging_load.py share: one gunicorn setup and one percentile."""

from __future__ import annotations

import http.client
import statistics
import subprocess
import time
from pathlib import Path


def percentile(values: list[float], q: int) -> float:
    if not values:
        return float("nan")
    return (
        statistics.quantiles(values, n=100, method="inclusive")[q - 1]
        if len(values) > 1
        else values[0]
    )


def start_gunicorn(
    gunicorn: Path,
    app: str,
    *,
    port: int,
    workers: int,
    threads: int,
    cwd: Path,
    env: dict[str, str],
    ready_path: str,
) -> subprocess.Popen:
    """gthread workers, keep-alive, the app imported once before the workers fork; returns
    once ``ready_path`` answers 200, raises RuntimeError after 30 s."""
    server = subprocess.Popen(
        [
            str(gunicorn),
            app,
            "--bind",
            f"127.0.0.1:{port}",
            "--worker-class",
            "gthread",
            "--workers",
            str(workers),
            "--threads",
            str(threads),
            "--keep-alive",
            "30",
            "--preload",  # import the app once, before the workers fork
            "--log-level",
            "warning",
        ],
        cwd=cwd,
        env=env,
    )
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", ready_path, headers={"Host": "127.0.0.1"})
            if connection.getresponse().status == 200:
                return server
        except OSError:
            time.sleep(0.3)
    server.kill()
    server.wait()
    raise RuntimeError(f"gunicorn ({app}) did not answer {ready_path} within 30 s")
