"""One measured Turkle run beside qrelsmith's, and the side-by-side report."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from bench.judging_peer_turkle.assessors import PeerRun, client_process, verify, warm_up
from bench.judging_peer_turkle.provision import (
    PEER_DB,
    REPO,
    PeerUnavailable,
    ensure_venv,
    peer_env,
    recreate_peer_database,
    seed_turkle,
)


def measure_turkle(spec: list[dict[str, Any]], admin_url: str, options: Any) -> PeerRun:
    """Install, seed, serve and load Turkle like qrelsmith's side; raises PeerUnavailable."""
    python = ensure_venv()
    db_url = urlunsplit(urlsplit(admin_url)._replace(path=f"/{PEER_DB}"))
    rounds = options.workers * options.threads * 3
    # A user of its own warms every worker up (accept, page, submit), as qrelsmith's side does.
    warm = {**spec[0], "username": "warmup", "items": (spec[0]["items"] * rounds)[:rounds]}
    env = peer_env(db_url)
    recreate_peer_database(admin_url)
    try:
        people = seed_turkle(python, env, [*spec, warm])
        for person, entry in zip(people, [*spec, warm], strict=True):
            person["posts"] = len(entry["items"][0])
        result = serve_and_load(python, env, people, rounds, options)
        verify(db_url, result)
        versions = subprocess.run(
            [python, "-c", "import django, turkle; print(turkle.__version__, django.__version__)"],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.split()
        result.versions = f"Turkle {versions[0]} on Django {versions[1]}" if versions else ""
        return result
    finally:
        if not options.keep_db:
            recreate_peer_database(admin_url, drop_only=True)


def serve_and_load(
    python: Path, env: dict[str, str], people: list[dict], rounds: int, options: Any
) -> PeerRun:
    """Turkle under gunicorn, warmed up by the last person, loaded by the others."""
    from bench.load_common import start_gunicorn

    port = options.port + 1
    try:
        server = start_gunicorn(
            python.parent / "gunicorn",
            "turkle_site.wsgi:application",
            port=port,
            workers=options.workers,
            threads=options.threads,
            cwd=REPO,
            env=env,
            ready_path="/login/",
        )
    except RuntimeError as error:
        raise PeerUnavailable(str(error)) from error
    try:
        warm_up(port, people[-1], rounds)
        assessors = people[:-1]
        shares = [assessors[i :: options.client_procs] for i in range(options.client_procs)]
        jobs = [
            (port, share, options.think_ms, options.seed + i)
            for i, share in enumerate(shares)
            if share
        ]
        result = PeerRun()
        start = time.perf_counter()
        load_before = os.getloadavg()[0]
        with multiprocessing.get_context("fork").Pool(len(jobs)) as pool:
            for outcome in pool.map(client_process, jobs):
                result.merge(outcome)
        result.wall = time.perf_counter() - start
        result.load = (load_before, os.getloadavg()[0])
        return result
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


def report(
    ours: tuple[list[float], list[float], int, float],
    spec: list[dict[str, Any]] | None,
    admin_url: str,
    options: Any,
) -> None:
    """Measure Turkle and print it beside qrelsmith's (page and submit times in ms, requests,
    wall seconds); never raises: a peer that cannot run says why in one line."""
    if spec is None:
        print("peer unavailable: skipped (--no-peer)")
        return
    try:
        peer = measure_turkle(spec, admin_url, options)
    except PeerUnavailable as error:
        print(f"peer unavailable: {error}")
        return
    except Exception as failure:  # the peer must never fail qrelsmith's benchmark
        print(f"peer unavailable: Turkle's run failed: {failure!r}")
        return
    print_side_by_side(ours, peer, options)


def print_side_by_side(
    ours: tuple[list[float], list[float], int, float], peer: PeerRun, options: Any
) -> None:
    from bench.load_common import percentile

    print(
        f"peer: {peer.versions}, gunicorn gthread {options.workers} workers x {options.threads} "
        f"threads, PostgreSQL; load average (1 min) {peer.load[0]:.1f} before, "
        f"{peer.load[1]:.1f} after"
    )
    print(
        f"peer: {peer.requests} requests in {peer.wall:.1f} s; {len(peer.sent)} tasks "
        f"submitted, {peer.stored} stored, {peer.wrong} with a wrong grade; "
        f"errors: {len(peer.errors)}"
    )
    for message in peer.errors[:5]:
        print(f"  peer error: {message}")
    print(
        f"peer page breakdown p95: accept (302) {percentile(peer.accept_ms, 95):.1f} ms, "
        f"task HTML (iframe) {percentile(peer.frame_ms, 95):.1f} ms"
    )
    header = f"{'p50 / p95 / p99 ms':>24}  {'qrelsmith':>22}  {'Turkle':>22}"
    print(f"{header}  p95 ratio (qrelsmith/Turkle)")
    slower = []
    for name, mine, theirs in (
        ("page (Turkle: 3 GETs)", ours[0], peer.page_ms),
        ("submit", ours[1], peer.submit_ms),
    ):
        cells = [
            " / ".join(f"{percentile(v, q):6.1f}" for q in (50, 95, 99)) for v in (mine, theirs)
        ]
        ratio = percentile(mine, 95) / percentile(theirs, 95) if mine and theirs else float("nan")
        print(f"{name:>24}  {cells[0]:>22}  {cells[1]:>22}  {ratio:.2f}")
        if not ratio <= 1:  # a missing figure (nan) counts as not met
            slower.append(name.split()[0])
    sides = ((len(ours[0]), ours[2], ours[3]), (len(peer.page_ms), peer.requests, peer.wall))
    throughput = [
        f"{items / wall:.1f} items/s, {requests / wall:.0f} req/s"
        for items, requests, wall in sides
    ]
    print(f"{'throughput':>24}  {throughput[0]:>22}  {throughput[1]:>22}")
    print(
        "goal (qrelsmith p95 no slower than Turkle's, page and submit): "
        + (f"NOT met for {', '.join(slower)}" if slower else "met")
    )
