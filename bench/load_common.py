"""What the load benches share (judging_load.py, nugget_labelling_load.py and the Turkle peer):
one gunicorn setup, one percentile, the common options and one fan-out of assessors."""

from __future__ import annotations

import argparse
import http.client
import multiprocessing
import os
import signal
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

Person = TypeVar("Person")


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


def load_options(parser: argparse.ArgumentParser, *, think_ms: float, port: int) -> None:
    """The options every load bench takes: think time, double sends, server and clients."""
    parser.add_argument("--think-ms", type=float, default=think_ms)
    parser.add_argument("--retry-share", type=float, default=0.05)
    parser.add_argument("--workers", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--client-procs", type=int, default=2)
    parser.add_argument("--port", type=int, default=port)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--keep-db", action="store_true")


def assessors_at_once(
    client_process: Callable[[tuple[int, list[Person], float, float, int]], Any],
    people: Sequence[Person],
    options: argparse.Namespace,
    server: subprocess.Popen,
) -> tuple[list[Any], float, tuple[float, float, float], tuple[float, float, float]]:
    """Every person's session at once, spread over ``--client-procs`` forked processes; stops
    ``server`` afterwards. Returns each process's result, the wall time and the load averages
    before and after."""
    try:
        shares = [list(people[i :: options.client_procs]) for i in range(options.client_procs)]
        jobs = [
            (options.port, share, options.think_ms, options.retry_share, options.seed + i)
            for i, share in enumerate(shares)
            if share
        ]
        start = time.perf_counter()
        load_before = os.getloadavg()
        with multiprocessing.get_context("fork").Pool(len(jobs)) as pool:
            results = pool.map(client_process, jobs)
        wall = time.perf_counter() - start
        load_after = os.getloadavg()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    return results, wall, load_before, load_after
