"""Benchmark: budgeted pools judged in priority order, 30 topics x 60 runs x 1,000 rows.

The size of TREC-COVID round 1's pooled runs (56 runs, 30 topics, 1,000 rows each). Loads a
synthetic document collection and runs into a scratch PostgreSQL database, then prints:
- a build with a static strategy (``rrf``, per-topic budget) and with an adaptive one
  (``mm-ns``, or ``--adaptive NAME``: ``hybrid`` reads whole runs during its fused start,
  the others each run's first judgments + 1 rows), each the service's own time;
- judging in priority order: an official assessor per topic asks for the next item (the
  server replays the strategy over the topic's judgments so far, under the topic's pool lock,
  and adds the item) and judges it through the judging service, ``--judge`` times a topic; the
  time of each ask (median, 95th percentile, largest), how long it held the pool lock (which
  every other ask and submit of the topic waits for), and the time of each submit;
- after each submit, the time of asking whether more comes (``grows_on_demand``: what the
  judging page and API ask to offer a next item; under a task budget, the same share rule as
  the next item, reading every topic's judgments).

With ``--scope task`` the budget (``--budget`` times the topics) is the task's, shared by the
topics (docs/pooling.md, "Budgeted pools in the app").

    .venv/bin/python bench/priority_judging.py [--small] [--topics N] [--runs N] [--rows N]
        [--scope topic|task] [--adaptive NAME]

The scratch database is ``<DATABASE_URL's name>_prioritybench`` (created and dropped here).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.pooling import report  # noqa: E402
from bench.pooling_data import rankings  # noqa: E402
from bench.pooling_documents import setup_task, store_runs  # noqa: E402
from bench.scratch import scratch_django  # noqa: E402


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


class LockClock:
    """When an ask first took a pool lock (``pooling.locks``: the advisory lock statement),
    so the bench can tell how long the ask held it: until the ask returns, its transaction
    committed."""

    def __init__(self) -> None:
        self.locked_at: float | None = None

    def __call__(self, execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        if self.locked_at is None and "pg_advisory_xact_lock" in sql:
            self.locked_at = time.perf_counter()
        return execute(sql, params, many, context)


def judge_in_priority_order(
    task: object, judgments: int
) -> tuple[list[float], list[float], list[float], list[float]]:
    """Each topic's official assessor asks for the next item and grades it, ``judgments``
    times; the seconds of each ask, of each submit and of each "more to come?" after it, and
    how long each ask held the topic's pool lock."""
    from django.contrib.auth.models import User
    from django.db import connection

    from assessment.models import Assignment
    from assessment.selectors.priority import grows_on_demand
    from assessment.services.judging import HitVerdict, item_submit
    from assessment.services.priority import priority_next_item
    from pooling.models import Hit, PoolItem

    asks, submits, more, held = [], [], [], []
    assessor = User.objects.create_user("bench-assessor", password="x")  # noqa: S106
    for topic in task.topics.order_by("id"):  # type: ignore[attr-defined]
        assignment = Assignment.objects.create(
            topic=topic, assessor=assessor, purpose=Assignment.Purpose.OFFICIAL
        )
        assignment = Assignment.objects.select_related("topic__task").get(pk=assignment.pk)
        for step in range(judgments):
            clock = LockClock()
            start = time.perf_counter()
            with connection.execute_wrapper(clock):
                item_id = priority_next_item(assignment=assignment)
            done = time.perf_counter()
            asks.append(done - start)
            if clock.locked_at is not None:
                held.append(done - clock.locked_at)
            if item_id is None:
                break
            key = PoolItem.objects.get(pk=item_id).key
            hit = Hit.objects.get(item_id=item_id)
            # Every fifth position relevant: the strategy's runs disagree on what to pull next.
            grade = 2 if (int(key.rsplit("-", 1)[1]) + step) % 5 == 0 else 0
            start = time.perf_counter()
            item_submit(
                assignment=assignment,
                item=PoolItem(pk=item_id, topic_id=topic.pk),
                assessor=assessor,
                verdicts=[HitVerdict(hit_id=hit.pk, grade=grade)],
            )
            submits.append(time.perf_counter() - start)
            start = time.perf_counter()
            grows_on_demand(assignment)
            more.append(time.perf_counter() - start)
    return asks, submits, more, held


def run_benchmark(args: argparse.Namespace) -> None:
    from django.db import connection

    from pooling.core.algorithms.strategies.priority import pool_strategy
    from pooling.models import PoolItem
    from pooling.services.pools import pool_build

    print(
        f"priority judging: {args.topics} topics x {args.runs} runs x {args.rows} rows, string "
        f"docnos, PostgreSQL, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    task, topics, runs = setup_task(args.topics, args.runs)
    stored = store_runs(runs, topics, rankings(args.topics, args.runs, args.rows, args.seed))
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(f"{'setup: rows stored':<46} {stored:>8,}")
    start = time.perf_counter()
    pool_build(task=task, strategy=pool_strategy("rrf", args.budget, "topic", 1))
    items = PoolItem.objects.filter(topic__task=task).count()
    report("build, rrf, per-topic budget", time.perf_counter() - start, f"{items:,} items")
    start = time.perf_counter()
    budget = args.budget * (args.topics if args.scope == "task" else 1)
    pool_build(task=task, strategy=pool_strategy(args.adaptive, budget, args.scope, 1))
    items = PoolItem.objects.filter(topic__task=task).count()
    report(
        f"build, {args.adaptive}, {budget} a {args.scope} (first items)",
        time.perf_counter() - start,
        f"{items} items",
    )
    asks, submits, more, held = judge_in_priority_order(task, args.judge)
    report(
        "ask for the next item (median)",
        statistics.median(asks),
        f"p95 {percentile(asks, 0.95) * 1000:.0f} ms, max {max(asks) * 1000:.0f} ms, "
        f"{len(asks)} asks",
    )
    report(
        "pool lock held by an ask (median)",
        statistics.median(held),
        f"p95 {percentile(held, 0.95) * 1000:.0f} ms, max {max(held) * 1000:.0f} ms",
    )
    report("submit a judgment (median)", statistics.median(submits), f"{len(submits)} submits")
    report(
        "more to come? after a submit (median)",
        statistics.median(more),
        f"p95 {percentile(more, 0.95) * 1000:.0f} ms, max {max(more) * 1000:.0f} ms",
    )
    print(f"{'load average at the end':<46} {os.getloadavg()[0]:8.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=30)
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--rows", type=int, default=1_000)
    parser.add_argument("--budget", type=int, default=100, help="judgments per topic")
    parser.add_argument(
        "--scope", choices=("topic", "task"), default="topic", help="whose budget (task: shared)"
    )
    parser.add_argument("--judge", type=int, default=20, help="judgments made per topic")
    parser.add_argument("--small", action="store_true", help="5 topics x 10 runs x 200 rows")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--adaptive", default="mm-ns", help="the adaptive strategy judged")
    args = parser.parse_args()
    if args.small:
        args.topics, args.runs, args.rows, args.judge = 5, 10, 200, 5
    with scratch_django("prioritybench"):
        run_benchmark(args)


if __name__ == "__main__":
    main()
