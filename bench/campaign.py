"""Benchmark: a whole ARQMath campaign at full scale on one machine.

Every step goes through the service the app itself uses, on a scratch PostgreSQL database:

1. files: a synthetic collection of 2.5 M posts (625,000 threads of a question and three
   answers), 1.25 M comments and 28 M formula instances, with an ARQMath v3 formula index and
   an SLT TSV (bench/collection_dump.py); topic files of 100 topics (demo/synthetic);
   40 runs x 1,000 rows per topic for Tasks 1 and 2 and 20 Task 3 runs (bench/campaign_data.py);
2. ``collection_import`` (what ``manage.py import_collection`` runs), file by file;
3. ``topics_import`` for the three tasks (Task 3 answers Task 1's topics, as in ARQMath-3);
4. ``run_submit`` for every run (what the REST upload and the upload page call);
5. ``pool_build`` for the three tasks (Task 3's answers join Task 1's pools), and the pool
   statistics and hits export, uncached and cached;
6. ``assignments_balance`` over 20 assessors and ``dual_assignments_create`` for 10%;
7. every hit judged through ``item_submit`` (the judging page's submit), ARQMath-like grades;
8. ``task_agreement``; 9. ``qrels_export``, checked against the judgments submitted;
10. ``evaluation_job_start`` for every task: every run scored, significance tests, intervals
    (the job runs in this process: Celery eager, no worker).

Prints per phase: wall time, items per second, the peak RSS of this process and of its
PostgreSQL backend, the earlier benchmark's figure; at the end the database size and the goals:
the whole rehearsal under 25 minutes, no process over 1 GB.

    .venv/bin/python bench/campaign.py [--small | --scale F] [--seed N] [--tmp DIR] [--keep-db]

``--scale F`` multiplies the collection, the run rows (runs and rows per topic by sqrt(F)) and
so the judged hits (pool depths by sqrt(F)); topics (100 per task) and assessors (20) stay.
``--small`` is ``--scale 0.01`` (under a minute). The scratch database is
``<DATABASE_URL's name>_campaign`` (``--database`` names another), created and dropped here.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.campaign_report import Phases  # noqa: E402

# Disk needed per formula instance: by the generated files (the SLT TSV dominates) and by the
# database at the end (measured at scale 0.01: 214 MB for 280,000 formulas).
FILE_BYTES_PER_FORMULA = 420
DATABASE_BYTES_PER_FORMULA = 800


@dataclass(frozen=True)
class Plan:
    scale: float
    posts: int
    formulas: int
    topics: int
    runs: int
    rows: int
    openqa_runs: int
    depths: dict[str, int]
    assessors: int = 20
    dual_share: float = 0.1

    @classmethod
    def at(cls, scale: float) -> Plan:
        root = math.sqrt(scale)
        return cls(
            scale=scale,
            posts=max(400, round(2_500_000 * scale)),
            formulas=max(4_000, round(28_000_000 * scale)),
            topics=100,
            runs=max(2, round(40 * root)),
            rows=max(20, round(1_000 * root)),
            openqa_runs=max(2, round(20 * root)),
            depths={
                "primary_depth": max(2, round(45 * root)),
                "alternate_depth": max(1, round(20 * root)),
                "primary_k": max(2, round(25 * root)),
                "alternate_k": max(1, round(15 * root)),
            },
        )


def _scratch_database(name: str | None) -> str:
    url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/qrelsmith")
    parts = urlsplit(url)
    name = name or parts.path.lstrip("/") + "_campaign"
    return urlunsplit(parts._replace(path="/" + name))


def _admin(url: str, sql: str) -> None:
    import psycopg2

    conn = psycopg2.connect(urlunsplit(urlsplit(url)._replace(path="/postgres")))
    try:
        conn.autocommit = True
        with conn.cursor() as cursor:
            cursor.execute(sql)
    finally:
        conn.close()


def _check_disk(folder: Path, plan: Plan) -> None:
    files = plan.formulas * FILE_BYTES_PER_FORMULA
    database = plan.formulas * DATABASE_BYTES_PER_FORMULA
    free = shutil.disk_usage(folder).free
    print(
        f"files go to {folder} (about {files / 2**30:,.1f} GiB, deleted at the end; the "
        f"database takes about {database / 2**30:,.1f} GiB more); {free / 2**30:,.1f} GiB free",
        flush=True,
    )
    if free < files * 1.2:
        sys.exit(f"not enough space under {folder}: use --tmp DIR on a larger disk")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="1 = ARQMath's full size")
    parser.add_argument("--small", action="store_true", help="--scale 0.01, under a minute")
    parser.add_argument("--seed", type=int, default=2022)
    parser.add_argument("--tmp", type=Path, default=None, help="folder for the generated files")
    parser.add_argument("--database", default=None, help="scratch database name")
    parser.add_argument("--keep-db", action="store_true", help="leave the database for a look")
    parser.add_argument(
        "--judging-threads", type=int, default=20, help="assessors judging at once (1: in turn)"
    )
    args = parser.parse_args()
    plan = Plan.at(0.01 if args.small else args.scale)
    url = _scratch_database(args.database)
    name = urlsplit(url).path.lstrip("/")
    _admin(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    _admin(url, f'CREATE DATABASE "{name}"')
    # In-process: no Redis, so Celery runs jobs eagerly here and the cache is this process's.
    os.environ.update(DATABASE_URL=url, DJANGO_SETTINGS_MODULE="config.settings.dev", DEBUG="0")
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    logging.getLogger("celery").setLevel(logging.WARNING)  # eager jobs log every success
    logging.getLogger("kombu").setLevel(logging.ERROR)  # and the in-memory broker its host
    from django.core.management import call_command
    from django.db import connection

    try:
        start = time.perf_counter()
        call_command("migrate", verbosity=0)
        print(f"set-up: database {name} migrated in {time.perf_counter() - start:.1f} s")
        with tempfile.TemporaryDirectory(prefix="qs-campaign-", dir=args.tmp) as folder:
            _check_disk(Path(folder), plan)
            rehearse(plan, Path(folder), args.seed, args.judging_threads)
    finally:
        connection.close()
        if not args.keep_db:
            _admin(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def rehearse(plan: Plan, folder: Path, seed: int, threads: int) -> None:
    from django.db import connection

    from bench import campaign_steps as steps

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"campaign rehearsal at scale {plan.scale:g}: {plan.posts:,} posts, {plan.formulas:,} "
        f"formulas, {plan.topics} topics per task, {plan.runs} runs x {plan.rows:,} rows per "
        f"topic (Tasks 1, 2), {plan.openqa_runs} Task 3 runs, {plan.assessors} assessors, "
        f"{plan.dual_share:.0%} dual; pool depths {plan.depths}",
        flush=True,
    )
    print(f"load average at the start: {load} on {os.cpu_count()} CPUs; PostgreSQL "
          f"{connection.settings_dict['NAME']}", flush=True)  # fmt: skip
    print(
        "processes: every step runs in this one (Celery eager: no worker process; the pool "
        f"builds and evaluation jobs run here); judging runs {threads} assessor threads, each "
        "with its own PostgreSQL backend",
        flush=True,
    )
    phases = Phases()
    state: dict[str, Any] = {}
    phases.run("generate files", "files", lambda: steps.generate(plan, folder, seed, state))
    for role, unit in (
        ("posts", "posts"),
        ("comments", "comments"),
        ("formulas", "formulas"),
        ("slt", "SLT rows"),
    ):
        label = "import SLT" if role == "slt" else f"import {role}"
        phases.run(label, unit, partial(steps.import_file, role, state))
    phases.run("import topics", "topics", lambda: steps.import_topics(plan, state))
    phases.run("upload runs", "rows", lambda: steps.upload_runs(state))
    for kind in ("answer", "formula", "openqa"):
        phases.run(f"pools {kind}", "hits", partial(steps.build_pools, kind, state))
    phases.run("assignments", "assignments", lambda: steps.assign(plan, seed, state))
    phases.run("judging", "judgments", lambda: steps.judge(seed, threads, state))
    phases.run("agreement", "judgments", lambda: steps.agreement(state))
    phases.run("qrels export", "rows", lambda: steps.export_qrels(state))
    phases.run("evaluation", "runs", lambda: steps.evaluate(state))
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_database_size(current_database())")
        size = int(cursor.fetchone()[0])
    phases.summary(size, generated="generate files")
    problems = state.get("problems", [])
    for problem in problems:
        print(f"PROBLEM: {problem}")
    print("campaign rehearsal: every phase done" + (", with problems" if problems else ""))
    if problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
