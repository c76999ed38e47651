"""Benchmark: pool a document task, 50 topics x 100 runs x 1,000 rows with string docnos.

Loads a synthetic collection and runs into a scratch PostgreSQL database (docnos
like ``news-2026-000123``; the runs' rows stored by the run service's COPY path,
``document_rows_store``; one more run submitted end to end through ``run_submit``: parse,
docno check against the collection, COPY), then prints:
- ``pool_build`` of the whole task, run as ``manage.py build_pools`` in a child process: the
  service's own time, the command's wall time and its peak RSS (target < 10 s);
- a rebuild with nothing new (every topic skipped by its fingerprint), and one with ``--full``;
- the pool figures and hits export, uncached and cached;
- the pure pooling of the same runs in memory, and trectools' ``TrecPoolMaker`` top-X (the
  peer) on the same runs in the same process, checking that both give the same pool.

    .venv/bin/python bench/pooling_documents.py [--small] [--topics N] [--runs N] [--rows N]

The scratch database is ``<DATABASE_URL's name>_docpoolbench`` (created and dropped here).
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.pooling import (  # noqa: E402 - after the path is set
    _admin,
    _scratch_database,
    cached_figures,
    report,
    timed_build,
)
from bench.pooling_data import RUNS_PER_TEAM, UNIVERSE, rankings  # noqa: E402

CAMPAIGN = "DocPool-Bench"
PRIMARY_DEPTH, ALTERNATE_DEPTH = 45, 20


def docno(topic: int, index: int) -> str:
    return f"news-2026-{topic * UNIVERSE + index:06d}"


def setup_task(topics: int, runs: int) -> tuple[Any, list[Any], list[Any]]:
    from django.utils import timezone

    from collection.models import Campaign, Document, DocumentCollection, RetrievalTask, Topic
    from kernel.bulkload import bulk_insert
    from pooling.models import Run, Team

    news = DocumentCollection.objects.create(name="news-2026")
    fields = ("collection_id", "docno", "title", "body", "body_format", "url", "metadata")
    bulk_insert(
        Document,
        (*fields, "checksum"),
        (
            (news.pk, docno(t, i), f"Story {i}", "Body.", "text", "", "{}", "0" * 32)
            for t in range(topics)
            for i in range(UNIVERSE)
        ),
    )
    campaign = Campaign.objects.create(name=CAMPAIGN, max_primary_runs=100, max_alternate_runs=100)
    task = RetrievalTask.objects.create(
        campaign=campaign, kind="document", name="document", collection=news
    )
    made_topics = Topic.objects.bulk_create(
        Topic(task=task, number=str(301 + t), title=f"topic {t}") for t in range(topics)
    )
    teams = [Team.objects.create(name=f"team{i}") for i in range(-(-runs // RUNS_PER_TEAM))]
    made_runs = [
        Run.objects.create(
            task=task,
            team=teams[r // RUNS_PER_TEAM],
            tag=f"run{r}",
            role="primary" if r % RUNS_PER_TEAM == 0 else "alternate",
            uploaded_at=timezone.now(),
        )
        for r in range(runs)
    ]
    return task, made_topics, made_runs


def store_runs(runs: list[Any], topics: list[Any], ranked: dict) -> int:
    """Each run's rows through the run service's COPY path for document runs."""
    from django.db import transaction

    from pooling.core.formats.model import RunColumns
    from pooling.services.runs_storage import document_rows_store

    topic_ids = {topic.number: topic.pk for topic in topics}
    total = 0
    for r, run in enumerate(runs):
        columns = RunColumns()
        for t, topic in enumerate(topics):
            for rank, index in enumerate(ranked[r][t], start=1):
                columns.topic.append(topic.number)
                columns.docno.append(docno(t, index))
                columns.rank.append(rank)
                columns.score.append(2000.0 - rank)
        with transaction.atomic():
            total += document_rows_store(run_id=run.pk, columns=columns, topic_ids=topic_ids)
    return total


def run_file(topics: int, ranked_run: dict[int, list[int]], tag: str) -> bytes:
    return "".join(
        f"{301 + t} Q0 {docno(t, index)} {rank} {2000.0 - rank} {tag}\n"
        for t in range(topics)
        for rank, index in enumerate(ranked_run[t], start=1)
    ).encode()


def submit_one(task: Any, topics: int, ranked_run: dict[int, list[int]]) -> tuple[float, int]:
    """One more run through run_submit (parse, check docnos, COPY): seconds and rows."""
    from pooling.models import Team
    from pooling.services.runs import run_submit

    data = run_file(topics, ranked_run, "late")
    team = Team.objects.create(name="late-team")
    start = time.perf_counter()
    submission = run_submit(
        task=task,
        team=team,
        tag="late",
        role="alternate",
        stream=io.BytesIO(data),
        file_name="late.run",
        uploaded_by=None,
    )
    return time.perf_counter() - start, submission.run.row_count


def pure_and_peer(ranked: dict, topics: int, depths: list[int]) -> None:
    """Our pooling of the runs held in memory, and trectools' top-X, on the same runs."""
    import pandas as pd
    from trectools import TrecPoolMaker, TrecRun

    from pooling.core.algorithms import answer_pool

    rows = {
        r: {t: [(rank, 2000.0 - rank, docno(t, i)) for rank, i in enumerate(ranked[r][t], 1)]
            for t in range(topics)}
        for r in ranked
    }  # fmt: skip
    start = time.perf_counter()
    ours = {
        str(301 + t): set(answer_pool((r, rows[r][t], depths[r]) for r in rows))
        for t in range(topics)
    }
    mine = time.perf_counter() - start
    report("pure document pooling (45 primary / 20 alternate)", mine)
    trec_runs = {}
    for r in ranked:
        frame = pd.DataFrame(
            [
                (str(301 + t), "Q0", docno(t, i), rank, 2000.0 - rank, f"run{r}")
                for t in range(topics)
                for rank, i in enumerate(ranked[r][t], start=1)
            ],
            columns=["query", "q0", "docid", "rank", "score", "system"],
        )
        run = TrecRun()
        run.load_run_from_dataframe(frame)
        trec_runs[r] = run
    start = time.perf_counter()
    peer: dict[str, set[str]] = {}
    for depth in sorted(set(depths)):  # one top-X pool per depth, then their union
        chosen = [trec_runs[r] for r in ranked if depths[r] == depth]
        for topic, docs in TrecPoolMaker().make_pool(chosen, "topX", topX=depth).pool.items():
            peer.setdefault(str(topic), set()).update(docs)
    seconds = time.perf_counter() - start
    report("trectools TrecPoolMaker topX (peer)", seconds, f"ours is {seconds / mine:.1f}x faster")
    same = "yes" if ours == peer else "NO"
    print(f"{'same pool as trectools':<46} {same}", flush=True)


def run_benchmark(args: argparse.Namespace) -> None:
    from django.db import connection

    from pooling.models import Hit, PoolItem
    from pooling.services.pools import pool_build

    print(
        f"document pooling: {args.topics} topics x {args.runs} runs x {args.rows} rows, string "
        f"docnos, PostgreSQL, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    start = time.perf_counter()
    task, topics, runs = setup_task(args.topics, args.runs)
    report("setup: collection", time.perf_counter() - start, f"{args.topics * UNIVERSE:,} docs")
    ranked = rankings(args.topics, args.runs + 1, args.rows, args.seed)
    start = time.perf_counter()
    stored = store_runs(runs, topics, ranked)
    seconds = time.perf_counter() - start
    report("store runs (document_rows_store COPY)", seconds, f"{stored / seconds:,.0f} rows/s")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    seconds, rows = submit_one(task, args.topics, ranked[args.runs])
    report("  one run through run_submit", seconds, f"{rows:,} rows, {rows / seconds:,.0f} rows/s")

    result = timed_build(CAMPAIGN, "document")
    items = PoolItem.objects.filter(topic__task=task).count()
    hits = Hit.objects.filter(item__topic__task=task).count()
    report(
        "pool_build document (service: load, pool, write)",
        result["service"],
        f"{items:,} items, {hits:,} hits; target < 10 s",
    )
    report(
        "  manage.py build_pools document (wall)",
        result["wall"],
        f"peak RSS {result['rss_mb']:.0f} MB",
    )
    start = time.perf_counter()
    again = pool_build(task=task)
    added = sum(v for k, v in again.stats.items() if k.endswith("added"))
    skipped = again.stats.get("topics_skipped", 0)
    report(
        "  rebuild, nothing new",
        time.perf_counter() - start,
        f"{added} added, {skipped} topics skipped",
    )
    start = time.perf_counter()
    full = pool_build(task=task, full=True)
    added = sum(v for k, v in full.stats.items() if k.endswith("added"))
    report("  rebuild, nothing new, --full", time.perf_counter() - start, f"{added} added")
    cached_figures(task, "document")
    depths = [
        PRIMARY_DEPTH if r % RUNS_PER_TEAM == 0 else ALTERNATE_DEPTH for r in range(args.runs)
    ]
    pure_and_peer({r: ranked[r] for r in range(args.runs)}, args.topics, depths)
    print(f"{'load average at the end':<46} {os.getloadavg()[0]:8.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--rows", type=int, default=1_000)
    parser.add_argument("--small", action="store_true", help="10 topics x 10 runs x 200 rows")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    if args.small:
        args.topics, args.runs, args.rows = 10, 10, 200
    url = _scratch_database().replace("_poolbench", "_docpoolbench")
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


if __name__ == "__main__":
    main()
