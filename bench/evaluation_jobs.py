"""Benchmark: one evaluation job over 400 runs on one Celery worker, then on two.

A document task of ``--runs`` runs x ``--topics`` topics x ``--rows`` rows (string docnos;
graded qrels) is stored in a scratch database; an evaluation job is started through the
service the qrels page calls, and real ``celery -A config worker`` processes (solo pool, each
its own process) take its chunks of ``--chunk`` runs from the bench's own Redis database.
Printed for each number of workers: the wall time until every run is scored and stored
(the part spread over the workers), and the job's total when it ends within ``--summary-wait``
seconds (the significance tests over every pair of runs, on one worker, come last: at 400
runs, 79,800 pairs per measure).

    .venv/bin/python bench/evaluation_jobs.py [--small] [--runs 400] [--workers 1,2]

The scratch database is ``<DATABASE_URL's name>_evaljobs_bench`` (created and dropped here);
Redis is BENCH_REDIS_URL (default redis://127.0.0.1:6379/14), flushed before each job.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
LOADAVG = Path("/proc/loadavg")


def _scratch(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "_evaljobs_bench"))


def _admin(url: str, sql: str) -> None:
    import psycopg2

    conn = psycopg2.connect(urlunsplit(urlsplit(url)._replace(path="/postgres")))
    try:
        conn.autocommit = True
        with conn.cursor() as cursor:
            cursor.execute(sql)
    finally:
        conn.close()


def _store_task(runs: int, topics: int, rows: int, judged: int, seed: int) -> tuple[int, int]:
    """The task and its imported qrels; runs' rows loaded with COPY."""
    from django.utils import timezone

    from collection.models import Campaign, DocumentCollection, RetrievalTask, Topic
    from evaluation.services import qrels_import
    from kernel.bulkload import bulk_insert
    from pooling.models import Run, RunRow, Team

    rng = random.Random(seed)
    campaign = Campaign.objects.create(name="Jobs bench")
    collection = DocumentCollection.objects.create(name="jobs-bench")
    task = RetrievalTask.objects.create(
        campaign=campaign, kind=RetrievalTask.Kind.DOCUMENT, name="document", collection=collection
    )
    numbers = [str(401 + t) for t in range(topics)]
    topic_ids = {n: Topic.objects.create(task=task, number=n, title=n).pk for n in numbers}
    universe = {n: [f"LA{n}{i:06d}" for i in range(rows * 5)] for n in numbers}
    pools = {n: rng.sample(universe[n], judged) for n in numbers}
    teams = [Team.objects.create(name=f"team{i:02d}") for i in range(max(1, runs // 10))]
    now = timezone.now()
    made = Run.objects.bulk_create(
        Run(
            task=task,
            team=teams[i % len(teams)],
            tag=f"run{i:04d}",
            role="primary",
            uploaded_at=now,
        )
        for i in range(runs)
    )

    def run_rows() -> Iterator[tuple[object, ...]]:
        for run in made:
            for n in numbers:
                docs = rng.sample(pools[n], judged // 3) + rng.sample(universe[n], rows)
                for rank, doc in enumerate(dict.fromkeys(docs[:rows]), 1):
                    yield (run.pk, topic_ids[n], doc, rank, 100.0 - rank / 7 + rng.random(), "", "")

    bulk_insert(RunRow, ["run", "topic", "docno", "rank", "score", "answer", "sources"], run_rows())
    grades = (0, 0, 0, 0, 1, 2)
    text = "".join(f"{n}\t0\t{d}\t{rng.choice(grades)}\n" for n in numbers for d in pools[n])
    qrels = qrels_import(task=task, text=text, label="official")
    return task.pk, qrels.pk


def _workers(count: int, env: dict[str, str]) -> list[subprocess.Popen[bytes]]:
    celery = str(Path(sys.executable).with_name("celery"))
    return [
        subprocess.Popen(
            [
                celery,
                "-A",
                "config",
                "worker",
                "--pool=solo",
                "--loglevel=ERROR",
                "--without-gossip",
                "--without-mingle",
                "-n",
                f"bench{i}-{os.getpid()}@%h",
            ],
            cwd=REPO,
            env=env,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for i in range(count)
    ]


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)


def _one_job(task_id: int, qrels_id: int, workers: int, env: dict[str, str], wait: float) -> None:
    from redis import Redis

    from config.celery import app
    from evaluation.models import EvaluationResult
    from evaluation.services import evaluation_job_start

    EvaluationResult.objects.all().delete()
    Redis.from_url(env["REDIS_URL"]).flushdb()  # the bench's own db: no message left over
    processes = _workers(workers, env)
    try:
        deadline = time.monotonic() + 120
        while len(app.control.ping(timeout=1.0) or []) < workers:
            if time.monotonic() > deadline:
                sys.exit("the workers did not start within 120 s")
        from collection.models import RetrievalTask
        from evaluation.models import QrelsVersion

        task = RetrievalTask.objects.get(pk=task_id)
        start = time.monotonic()
        job = evaluation_job_start(task=task, qrels=QrelsVersion.objects.get(pk=qrels_id))
        scored = None
        while time.monotonic() - start < 3600:
            time.sleep(0.5)
            job.refresh_from_db()
            if job.status == "failed":
                sys.exit(f"job failed: {job.error}")
            if scored is None and job.runs_total and not job.chunks.exclude(status="done"):
                scored = time.monotonic() - start
                chunks = job.chunks.count()
                print(
                    f"  {workers} worker{'s' if workers > 1 else ''}: {job.runs_done} runs "
                    f"({chunks} chunks) scored and stored in {scored:6.1f} s; "
                    f"load {LOADAVG.read_text().split()[0]}",
                    flush=True,
                )
                summary_from = time.monotonic()
            if job.status == "done":
                total = time.monotonic() - start
                print(f"    job done (summaries included) in {total:6.1f} s", flush=True)
                break
            if scored is not None and time.monotonic() - summary_from > wait:
                pairs = job.runs_total * (job.runs_total - 1) // 2
                print(
                    f"    summaries (significance over {pairs:,} pairs of runs) not done "
                    f"within --summary-wait {wait:.0f} s: not timed",
                    flush=True,
                )
                break
    finally:
        _stop(processes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--topics", type=int, default=25)
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--judged", type=int, default=60)
    parser.add_argument("--chunk", type=int, default=25, help="runs per chunk")
    parser.add_argument("--workers", default="1,2", help="worker counts, in turn")
    parser.add_argument("--summary-wait", type=float, default=600.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--small", action="store_true", help="40 runs x 5 topics x 50 rows")
    args = parser.parse_args()
    if args.small:
        args.runs, args.topics, args.rows, args.judged, args.chunk = 40, 5, 50, 20, 10
    url = _scratch(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/qrelsmith"))
    name = urlsplit(url).path.lstrip("/")
    redis_url = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14")
    _admin(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    _admin(url, f'CREATE DATABASE "{name}"')
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "REDIS_URL": redis_url,
        "DJANGO_SETTINGS_MODULE": "config.settings.dev",
        "DEBUG": "0",
        "EVALUATION_CHUNK_RUNS": str(args.chunk),
    }
    os.environ.update(env)
    import django

    django.setup()
    logging.getLogger("celery").setLevel(logging.WARNING)
    from django.core.management import call_command
    from django.db import connection

    try:
        call_command("migrate", verbosity=0)
        start = time.monotonic()
        task_id, qrels_id = _store_task(args.runs, args.topics, args.rows, args.judged, args.seed)
        print(
            f"evaluation_jobs bench: {args.runs} runs x {args.topics} topics x {args.rows} rows "
            f"(stored in {time.monotonic() - start:.0f} s), chunks of {args.chunk} runs, "
            f"the task's default measures; load {LOADAVG.read_text().strip()} "
            f"({os.cpu_count()} CPUs)",
            flush=True,
        )
        for workers in (int(w) for w in args.workers.split(",")):
            _one_job(task_id, qrels_id, workers, env, args.summary_wait)
        print(f"  load after: {LOADAVG.read_text().strip()}")
    finally:
        connection.close()
        _admin(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
