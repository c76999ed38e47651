"""Run ingestion benchmark: validation + storage of ARQMath-sized runs.

``.venv/bin/python bench/ingest_runs.py [--small] [--topics 100 --rows 1000 --runs 40]``

Against PostgreSQL (DATABASE_URL, default the local server; a throwaway ``test_...`` database
is created and dropped). Prints, for one run and for the whole set: rows/s end to end
(run_submit: parse, validate, collection check, COPY in one transaction), time per run, peak
memory; the raw COPY time of the same rows into the same table (the limit; and, for context, the
same rows as binary COPY, the format the upload sends); and the time
trectools' TrecRun takes just to read the same files (the peer).
And where the time goes: each stage of an upload timed alone (checksum, reading, parsing and
validating, the collection check, warnings, COPY data, COPY, commit, bookkeeping).
Targets: >= 500,000 rows/s end to end, within 1.5x of raw COPY (2x before),
faster than trectools.
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import random
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/qs_bench")

import django  # noqa: E402

django.setup()

from django.db import connection, transaction  # noqa: E402
from django.utils import timezone  # noqa: E402

ANSWER_POSTS = 200_000


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="10 topics x 1,000 rows x 4 runs")
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--rows", type=int, default=1000, help="rows per topic")
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument(
        "--no-collection", action="store_true", help="skip the answer-post check (empty collection)"
    )
    args = parser.parse_args()
    if args.small:
        args.topics, args.rows, args.runs = 10, 1000, 4
    return args


def write_runs(folder: Path, topics: int, rows: int, runs: int) -> list[Path]:
    """TREC files (the layout trectools reads), ranked by descending score, ARQMath-sized."""
    rng = random.Random(20220)
    paths = []
    for n in range(runs):
        lines: list[str] = []
        for t in range(1, topics + 1):
            docs = rng.sample(range(1, ANSWER_POSTS + 1), rows)
            lines.extend(
                f"A.{t}\tQ0\t{doc}\t{rank}\t{(rows - rank) / 7.0 + 0.5:.4f}\trun{n}\n"
                for rank, doc in enumerate(docs, 1)
            )
        path = folder / f"Team{n}-task1-run{n}-auto-both-A.tsv"
        path.write_text("".join(lines))
        paths.append(path)
    return paths


def setup_campaign(topics: int, with_collection: bool):  # type: ignore[no-untyped-def]
    from collection.models import Campaign, Post, RetrievalTask, Thread, Topic
    from kernel.bulkload import bulk_insert

    campaign = Campaign.objects.create(name="Bench", max_primary_runs=100, max_alternate_runs=100)
    task = RetrievalTask.objects.create(campaign=campaign, kind="answer", name="answer")
    Topic.objects.bulk_create(
        Topic(task=task, number=f"A.{t}", title="t", question="q") for t in range(1, topics + 1)
    )
    if with_collection:
        bulk_insert(Thread, ["id", "title", "tags"], [(10**9, "bench", "[]")])
        bulk_insert(
            Post,
            ["id", "thread_id", "kind", "body", "score"],
            ((i, 10**9, 2, "", 0) for i in range(1, ANSWER_POSTS + 1)),
        )
    return task


def time_submission(task, path: Path) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    """run_submit end to end: read, validate (with the collection check), COPY, commit."""
    from pooling.models import Team
    from pooling.services.runs import run_submit

    team = Team.objects.create(name=path.stem)
    gc.collect()
    start = time.perf_counter()
    with path.open("rb") as stream:
        submission = run_submit(
            task=task,
            team=team,
            tag=path.stem.split("-")[2],
            role="alternate",
            stream=stream,
            file_name=path.name,
            uploaded_by=None,
        )
    return time.perf_counter() - start, submission.run.row_count


def time_raw_copy(task, path: Path, topic_ids: dict[str, int]) -> float:  # type: ignore[no-untyped-def]
    """COPY of the same rows as ready-made COPY text, and its commit: the floor any loader pays."""
    from pooling.models import Run, RunRow, Team

    team, _ = Team.objects.get_or_create(name="RawCopy")
    run = Run.objects.create(
        task=task, team=team, tag=f"raw-{path.stem}", role="alternate", uploaded_at=timezone.now()
    )
    text = "".join(
        f"{run.pk}\t{topic_ids[f[0]]}\t{f[2]}\t\\N\t{f[3]}\t{f[4]}\t\t\n"
        for f in (line.split() for line in path.read_text().splitlines())
    )
    sql = (
        f"COPY {RunRow._meta.db_table} (run_id, topic_id, post_id, formula_id, rank, score, "
        "answer, sources) FROM STDIN"
    )
    gc.collect()
    start = time.perf_counter()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.cursor.copy_expert(sql, io.StringIO(text))
    return time.perf_counter() - start


def time_raw_binary_copy(task, path: Path, topic_ids: dict[str, int]) -> float:  # type: ignore[no-untyped-def]
    """The same rows as ready-made binary COPY data (the format the upload sends), and the
    commit: for context beside the text COPY above, which is the issue's limit."""
    from pooling.core.formats import read_run_path
    from pooling.models import Run, Team
    from pooling.services import runs_binary

    team, _ = Team.objects.get_or_create(name="RawCopy")
    run = Run.objects.create(
        task=task, team=team, tag=f"bin-{path.stem}", role="alternate", uploaded_at=timezone.now()
    )
    columns = read_run_path(path).columns
    rows = runs_binary.binary_rows(run.pk, columns, topic_ids, 0, len(columns))
    data = runs_binary.HEADER + rows + runs_binary.TRAILER
    gc.collect()
    start = time.perf_counter()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.cursor.copy_expert(runs_binary.copy_sql(), io.BytesIO(data))
    return time.perf_counter() - start


def stage_breakdown(task, path: Path) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Each stage of run_submit timed on its own, one after the other, with the service's own
    pieces (run_submit overlaps parsing with the COPY, so its time is less than the sum):
    checksum, reading the lines, parsing + validating the rows, the collection check, the
    order warnings, building the binary COPY data, COPY, commit, and the run's bookkeeping (context
    queries, team lock, run row)."""
    from pooling.core.formats import RunReading
    from pooling.core.formats.collection_checks import check_collection
    from pooling.core.formats.lines import line_blocks
    from pooling.core.formats.model import ParsedRun
    from pooling.core.formats.order import warn_about_order_and_missing_topics
    from pooling.models import Run, Team
    from pooling.services import runs_binary
    from pooling.services.runs import run_file_checksum, run_limits_check
    from pooling.services.runs_context import run_context, task_topic_ids

    tag = path.stem.split("-")[2]
    spent: dict[str, float] = {}
    clock = time.perf_counter

    def timed(stage: str, action):  # type: ignore[no-untyped-def]
        start = clock()
        result = action()
        spent[stage] = spent.get(stage, 0.0) + clock() - start
        return result

    gc.collect()
    with path.open("rb") as stream:
        timed("checksum", lambda: run_file_checksum(stream))
        timed("read lines", lambda: sum(1 for _ in line_blocks(stream, ParsedRun(), 1 << 30)))
    start = clock()
    team = Team.objects.create(name=f"Stages-{path.stem}")
    run_limits_check(task, team, tag, "alternate")
    topic_ids = task_topic_ids(task)
    context, _ = run_context(task, topic_ids)
    spent["bookkeeping"] = clock() - start
    with path.open("rb") as stream:
        reading = RunReading(stream, name=path.name, context=context, tag=tag)
        timed("parse + validate rows", lambda: sum(1 for _ in reading.rows()))
    parsed = reading.run
    timed("collection check", lambda: check_collection(parsed, context))
    timed("order warnings", lambda: warn_about_order_and_missing_topics(parsed, context))
    assert parsed.ok, parsed.report()
    rows = len(parsed.columns)
    with transaction.atomic():
        start = clock()
        Team.objects.select_for_update().get(pk=team.pk)
        run = Run.objects.create(
            task=task, team=team, tag=tag, role="alternate", uploaded_at=timezone.now()
        )
        spent["bookkeeping"] += clock() - start
        data = timed(
            "COPY data (binary)",
            lambda: (
                runs_binary.HEADER
                + runs_binary.binary_rows(run.pk, parsed.columns, topic_ids, 0, rows)
                + runs_binary.TRAILER
            ),
        )
        with connection.cursor() as cursor:
            timed(
                "COPY",
                lambda: cursor.cursor.copy_expert(runs_binary.copy_sql(), io.BytesIO(data)),
            )
        start = clock()
        run.report = parsed.report()
        run.row_count = rows
        run.save()
        spent["bookkeeping"] += clock() - start
        start = clock()
    spent["commit"] = clock() - start
    return spent


def time_parse_only(path: Path) -> float:
    from pooling.core.formats import RunContext, read_run_path

    start = time.perf_counter()
    read_run_path(path, context=RunContext(task_kind="answer"))
    return time.perf_counter() - start


def time_trectools(path: Path) -> float:
    from trectools import TrecRun

    start = time.perf_counter()
    TrecRun(str(path))
    return time.perf_counter() - start


def traced_peak(task, path: Path) -> float:  # type: ignore[no-untyped-def]
    from pooling.models import Team
    from pooling.services.runs import run_submit

    team = Team.objects.create(name="Traced")
    tracemalloc.start()
    with path.open("rb") as stream:
        run_submit(
            task=task,
            team=team,
            tag=path.stem.split("-")[2],
            role="alternate",
            stream=stream,
            file_name=path.name,
            uploaded_by=None,
        )
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    args = parse_args()
    per_run = args.topics * args.rows
    print(f"load average at the start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(
        f"ingest_runs: {args.runs} runs x {args.topics} topics x {args.rows} rows "
        f"= {args.runs * per_run:,} rows; PostgreSQL {connection.settings_dict['NAME']}"
    )
    old_name = connection.settings_dict["NAME"]
    connection.settings_dict["TEST"]["NAME"] = f"{old_name}_bench_ingest"  # not pytest's db
    test_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            paths = write_runs(Path(tmp), args.topics, args.rows, args.runs)
            size = sum(p.stat().st_size for p in paths) / 2**20
            print(f"files: {len(paths)} TREC files, {size:,.1f} MB")
            task = setup_campaign(args.topics, not args.no_collection)
            report(args, task, paths, per_run)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
        print(f"(dropped {test_name})")


def report(args: argparse.Namespace, task, paths: list[Path], per_run: int) -> None:  # type: ignore[no-untyped-def]
    """Each file is measured by every contender in turn, so that all of them see the same
    machine load (this box is shared): end to end, raw COPY, parse only, trectools."""
    topic_ids = dict(task.topics.values_list("number", "id"))
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    times: dict[str, list[float]] = {"e2e": [], "raw": [], "bin": [], "parse": [], "peer": []}
    stages: dict[str, float] = {}
    total = 0
    for path in paths:
        for stage, seconds in stage_breakdown(task, path).items():
            stages[stage] = stages.get(stage, 0.0) + seconds
        elapsed, rows = time_submission(task, path)
        times["e2e"].append(elapsed)
        total += rows
        times["raw"].append(time_raw_copy(task, path, topic_ids))
        times["bin"].append(time_raw_binary_copy(task, path, topic_ids))
        times["parse"].append(time_parse_only(path))
        times["peer"].append(time_trectools(path))
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    peak = traced_peak(task, paths[0])
    e2e, raw, parse, peer = (sum(times[k]) for k in ("e2e", "raw", "parse", "peer"))
    first = times["e2e"][0]
    rate = total / e2e
    print(f"one run ({per_run:,} rows): {first:.3f} s end to end = {per_run / first:,.0f} rows/s")
    print(
        f"{len(paths)} runs ({total:,} rows): {e2e:.2f} s end to end = {rate:,.0f} rows/s; "
        f"per run mean {e2e / len(paths):.3f} s, median {statistics.median(times['e2e']):.3f}, "
        f"min {min(times['e2e']):.3f}, max {max(times['e2e']):.3f}"
    )
    print(f"  parse + validate only (no database): {parse:.2f} s = {total / parse:,.0f} rows/s")
    print(f"  raw COPY + commit of the same rows (limit): {raw:.2f} s = {total / raw:,.0f} rows/s")
    binary = sum(times["bin"])
    print(
        f"  raw binary COPY + commit (the upload's format, context): {binary:.2f} s = "
        f"{total / binary:,.0f} rows/s; end to end / raw binary COPY {e2e / binary:.2f}x"
    )
    print(f"  trectools TrecRun read (peer): {peer:.2f} s = {total / peer:,.0f} rows/s")
    ratios = [a / b for a, b in zip(times["e2e"], times["raw"], strict=True)]
    print(f"  end to end / raw COPY per run: median {statistics.median(ratios):.2f}x")
    staged = sum(stages.values())
    print(
        f"  where the time goes: each stage alone, per run, sum {staged / len(paths) * 1000:.0f} "
        "ms (run_submit parses and builds COPY data while PostgreSQL runs the COPY):"
    )
    for stage, seconds in stages.items():
        print(f"    {stage:<22} {seconds / len(paths) * 1000:7.1f} ms  {seconds / staged:6.1%}")
    print(
        f"peak memory: {peak:,.1f} MB traced for one run; process RSS peak "
        f"{rss_after:,.0f} MB (was {rss_before:,.0f} MB before the submissions)"
    )
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    checks = [
        (">= 500,000 rows/s end to end", rate >= 500_000),
        (f"within 1.5x of raw COPY ({e2e / raw:.2f}x)", e2e <= 1.5 * raw),
        (f"faster than trectools' read ({e2e / peer:.2f}x its time)", e2e < peer),
        (f"parse faster than trectools' read ({parse / peer:.2f}x its time)", parse < peer),
    ]
    for label, ok in checks:
        print(f"  [{'met' if ok else 'MISSED'}] {label}")


if __name__ == "__main__":
    main()
