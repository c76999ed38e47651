"""Benchmark: pool 100 topics x 40 runs x 1,000 rows, answer task and formula task.

Loads synthetic runs into a scratch PostgreSQL database, then prints:
- ``pool_build`` end to end (load rows, pool, write items/hits/contributions), run as
  ``manage.py build_pools`` in a child process: the service's own time (the PoolBuild's start to
  finish), the command's wall time and the child's peak RSS; and an incremental rebuild with
  nothing new;
- the pure answer-pool algorithm alone on the same runs held in memory, and in the same run
  trectools' ``TrecPoolMaker().make_pool(runs, strategy="topX", topX=45)`` (the peer), checking
  that both give the same pool at depth 45;
- the pure formula-pool algorithm (visual-id walk, votes, choice of N instances) alone.
Targets: the pure answer pooling >= 5x faster than trectools; pool_build < 10 s per task.

    .venv/bin/python bench/pooling.py [--small] [--topics N] [--runs N] [--rows N]

The scratch database is ``<DATABASE_URL's name>_poolbench`` (created and dropped here).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.pooling_data import (  # noqa: E402 - after the path is set
    RUNS_PER_TEAM,
    formula_of,
    load_collection,
    load_runs,
    post_of,
    rankings,
    setup_campaign,
)

REPEAT = 3  # pure timings: best of 3, the machine is shared


def _scratch_database() -> str:
    url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/qrelsmith")
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + parts.path.lstrip("/") + "_poolbench"))


def _admin(url: str, sql: str) -> None:
    import psycopg2

    conn = psycopg2.connect(urlunsplit(urlsplit(url)._replace(path="/postgres")))
    try:
        conn.autocommit = True
        with conn.cursor() as cursor:
            cursor.execute(sql)
    finally:
        conn.close()


# The child reports its own peak RSS from /proc (VmHWM: this program's own memory since exec);
# getrusage would also count the parent's pages that the child shared until it exec'd.
CHILD = (
    "import atexit, resource, runpy, sys\n"
    "def peak():\n"
    "    try:\n"
    "        with open('/proc/self/status') as status:\n"
    "            return next(int(l.split()[1]) for l in status if l.startswith('VmHWM'))\n"
    "    except OSError:\n"
    "        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
    "atexit.register(lambda: print('PEAK_RSS_KB', peak(), file=sys.stderr))\n"
    "sys.argv = ['manage.py', *sys.argv[1:]]\n"
    "runpy.run_path('manage.py', run_name='__main__')\n"
)


def timed_build(campaign: str, kind: str) -> dict[str, float]:
    """``manage.py build_pools`` in a child: wall time, service time, the child's peak RSS."""
    from pooling.models import PoolBuild

    start = time.perf_counter()
    child = subprocess.run(
        [sys.executable, "-c", CHILD, "build_pools", "--campaign", campaign, "--task", kind],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - start
    peak_kb = next(
        int(line.split()[1]) for line in child.stderr.splitlines() if line.startswith("PEAK_RSS")
    )
    build = PoolBuild.objects.filter(task__kind=kind).latest("id")
    assert build.finished_at is not None
    service = (build.finished_at - build.created_at).total_seconds()
    return {"wall": wall, "service": service, "rss_mb": peak_kb / 1024}


def answer_runs_in_memory(ranked: dict, topics: int) -> dict[int, dict[int, list]]:
    """run -> topic -> (rank, score, post id) rows, the pure algorithm's input."""
    return {
        r: {t: [(rank, 2000.0 - rank, post_of(t, i)) for rank, i in enumerate(ranked[r][t], 1)]
            for t in range(topics)}
        for r in ranked
    }  # fmt: skip


def pure_answer(
    runs_rows: dict[int, dict[int, list]], depths: list[int], repeat: int = REPEAT
) -> tuple[float, dict[int, set]]:
    """Best of ``repeat`` timings of the pure answer pooling of every topic."""
    from pooling.core.algorithms import answer_pool

    topics = len(next(iter(runs_rows.values()), {}))
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        pools = {
            t: answer_pool((r, runs_rows[r][t], depths[r]) for r in runs_rows)
            for t in range(topics)
        }
        best = min(best, time.perf_counter() - start)
    return best, {t: set(pool) for t, pool in pools.items()}


def traced_peak_mb(action: Any) -> float:
    """Peak of the Python allocations ``action()`` makes (tracemalloc)."""
    tracemalloc.start()
    action()
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def trectools_pool(ranked: dict, topics: int, top_x: int) -> tuple[float, dict[int, set]]:
    import pandas as pd
    from trectools import TrecPoolMaker, TrecRun

    runs = []
    for r in ranked:
        frame = pd.DataFrame(
            [
                (f"A.{t + 1}", "Q0", str(post_of(t, i)), rank, 2000.0 - rank, f"run{r}")
                for t in range(topics)
                for rank, i in enumerate(ranked[r][t], start=1)
            ],
            columns=["query", "q0", "docid", "rank", "score", "system"],
        )
        run = TrecRun()
        run.load_run_from_dataframe(frame)
        runs.append(run)
    start = time.perf_counter()
    pool = TrecPoolMaker().make_pool(runs, strategy="topX", topX=top_x)
    seconds = time.perf_counter() - start
    found = {
        int(topic.split(".")[1]) - 1: {int(doc) for doc in docs}
        for topic, docs in pool.pool.items()
    }
    return seconds, found


def pure_formula(ranked: dict, topics: int, ks: list[int]) -> float:
    from pooling.core.algorithms import (
        FormulaRow,
        formula_pool,
        item_rng,
        select_instances,
    )

    runs_rows: dict[int, dict[int, list[FormulaRow]]] = {}
    for r in ranked:
        runs_rows[r] = {}
        for t in range(topics):
            rows = []
            for rank, i in enumerate(ranked[r][t], 1):
                fid = formula_of(t, i)
                rows.append(FormulaRow(rank, 2000.0 - rank, fid, fid // 2, fid // 6, str(fid // 4)))
            runs_rows[r][t] = rows
    best = float("inf")
    for _ in range(REPEAT):
        start = time.perf_counter()
        for t in range(topics):
            pool = formula_pool((r, runs_rows[r][t], ks[r]) for r in runs_rows)
            for visual_id, candidates in pool.candidates.items():
                rng = item_rng(0, str(t), visual_id)
                select_instances(list(candidates.values()), 5, "vote", rng)
        best = min(best, time.perf_counter() - start)
    return best


def report(label: str, seconds: float, note: str = "") -> None:
    print(f"{label:<46} {seconds:8.3f} s  {note}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--rows", type=int, default=1_000)
    parser.add_argument("--small", action="store_true", help="10 topics x 10 runs x 200 rows")
    parser.add_argument("--seed", type=int, default=2022)
    args = parser.parse_args()
    if args.small:
        args.topics, args.runs, args.rows = 10, 10, 200
    url = _scratch_database()
    name = urlsplit(url).path.lstrip("/")
    _admin(url, f'DROP DATABASE IF EXISTS "{name}"')
    _admin(url, f'CREATE DATABASE "{name}"')
    os.environ.update(DATABASE_URL=url, DJANGO_SETTINGS_MODULE="config.settings.dev")
    os.environ.pop("REDIS_URL", None)  # the command builds in-process
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    try:
        call_command("migrate", verbosity=0)
        run_benchmark(args)
    finally:
        connection.close()
        _admin(url, f'DROP DATABASE IF EXISTS "{name}"')


def cached_figures(task: Any, kind: str) -> None:
    """The pool figures and the hits export, computed then from the cache (the cache here is
    the in-process one, not Redis)."""
    for label, uncached, cached in pool_figure_times(task):
        note = f"cached: {cached * 1000:.1f} ms; target < 0.3 s"
        report(f"  pool {label} {kind}, uncached", uncached, note)


def pool_figure_times(task: Any) -> list[tuple[str, float, float]]:
    """(label, seconds uncached, seconds cached) of the pool statistics and the hits export."""
    from pooling.selectors.pool_cache import cached_pool_export, cached_pool_stats

    found = []
    for label, action in (
        ("figures", lambda: cached_pool_stats(task)),
        ("hits export", lambda: sum(len(piece) for piece in cached_pool_export(task, "hits"))),
    ):
        times = []
        for _ in range(2):
            start = time.perf_counter()
            action()
            times.append(time.perf_counter() - start)
        found.append((label, times[0], times[1]))
    return found


def run_benchmark(args: argparse.Namespace) -> None:
    from django.db import connection

    from pooling.models import Hit, PoolItem
    from pooling.services.pools import pool_build

    print(
        f"pooling: {args.topics} topics x {args.runs} runs x {args.rows} rows per task, "
        f"PostgreSQL, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    answer, formula, a_topics, f_topics, runs = setup_campaign(args.topics, args.runs)
    answer_ranked = rankings(args.topics, args.runs, args.rows, args.seed)
    formula_ranked = rankings(args.topics, args.runs, args.rows, args.seed + 1)
    start = time.perf_counter()
    load_collection(args.topics)
    loaded = load_runs(runs[: args.runs], [t.pk for t in a_topics], answer_ranked, "answer")
    loaded += load_runs(runs[args.runs :], [t.pk for t in f_topics], formula_ranked, "formula")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    report("setup: collection and run rows (COPY)", time.perf_counter() - start, f"{loaded:,} rows")

    for task, kind in ((answer, "answer"), (formula, "formula")):
        result = timed_build("Pool-Bench", kind)
        items = PoolItem.objects.filter(topic__task=task).count()
        hits = Hit.objects.filter(item__topic__task=task).count()
        report(
            f"pool_build {kind} (service: load, pool, write)",
            result["service"],
            f"{items:,} items, {hits:,} hits; target < 10 s",
        )
        report(
            f"  manage.py build_pools {kind} (wall)",
            result["wall"],
            f"peak RSS of the command {result['rss_mb']:.0f} MB",
        )
        start = time.perf_counter()
        again = pool_build(task=task)
        added = sum(v for k, v in again.stats.items() if k.endswith("added"))
        skipped = again.stats.get("topics_skipped", 0)
        note = f"{added} added, {skipped} topics skipped; target < 0.3 s"
        report(f"  rebuild {kind}, nothing new", time.perf_counter() - start, note)
        start = time.perf_counter()
        pool_build(task=task, full=True)
        report(f"  rebuild {kind}, nothing new, --full", time.perf_counter() - start)
        cached_figures(task, kind)

    roles = [45 if r % RUNS_PER_TEAM == 0 else 20 for r in range(args.runs)]
    rows_mb = traced_peak_mb(lambda: answer_runs_in_memory(answer_ranked, args.topics))
    in_memory = answer_runs_in_memory(answer_ranked, args.topics)
    seconds, _ = pure_answer(in_memory, roles)
    report("pure answer pooling (45 primary / 20 alternate)", seconds, "best of 3")
    ours, our_pool = pure_answer(in_memory, [45] * args.runs)
    memory = traced_peak_mb(lambda: pure_answer(in_memory, [45] * args.runs, repeat=1))
    report(
        "pure answer pooling (every run at 45)",
        ours,
        f"best of 3; allocates {memory:.1f} MB (the runs as tuples: {rows_mb:.0f} MB)",
    )
    peer, peer_pool = trectools_pool(answer_ranked, args.topics, 45)
    report("trectools TrecPoolMaker topX=45 (peer)", peer, f"ours is {peer / ours:.1f}x faster")
    same = our_pool == peer_pool
    print(f"{'same pool as trectools at depth 45':<46} {'yes' if same else 'NO'}", flush=True)
    ks = [25 if r % RUNS_PER_TEAM == 0 else 15 for r in range(args.runs)]
    report(
        "pure formula pooling + votes (k 25/15, N 5)",
        pure_formula(formula_ranked, args.topics, ks),
        "best of 3",
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{'peak RSS of this process (runs held 3 ways)':<46} {peak:8.0f} MB")
    print(f"{'load average at the end':<46} {os.getloadavg()[0]:8.1f}")


if __name__ == "__main__":
    main()
