"""Benchmark: an LLM judge run over 10,000 pool items against the project's fake judge server.

The server (judges/fake_server.py, a separate process) answers after 10 ms; the endpoint
allows 16 requests at once. Printed: judgments per second, and our overhead per judgment
outside the server's time, two ways: the CPU our process spends per judgment (rendering,
HTTP, parsing, the shared rate-limit script, the database writes), and the wall time per
request slot beyond the server's 10 ms (``wall x 16 / n - 10 ms``: what a slot spends
outside the server). Goal: under 2 ms, so the endpoint is always the bottleneck.
Then the same run with 20% of answers 429 or 500: nothing lost (one judgment per item, equal to
the qrels the server answers from), nothing doubled (no item answered twice).

    .venv/bin/python bench/run_judge.py [--small] [--items N] [--concurrency N]
        [--latency-ms N]

Uses DATABASE_URL (default postgres://postgres@127.0.0.1:5432/qrelsmith) and REDIS_URL, and
creates, then drops, the database ``bench_judge_<name>``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

TOPICS = 100
GOAL_MS = 2.0


def one_run(task: Any, name: str, qrels: Path, args: argparse.Namespace, *faults: str) -> dict:
    from assessment.models import Judgment
    from judges.core.endpoints import EndpointFields
    from judges.fake_server_process import fake_judge_server, fake_judge_stats
    from judges.services.endpoints import endpoint_add
    from judges.services.runs import judge_run_execute, judge_run_prepare

    with fake_judge_server(qrels, "--latency-ms", str(args.latency_ms), *faults) as url:
        server_cpu = fake_judge_stats(url)["cpu_seconds"]
        endpoint = endpoint_add(
            fields=EndpointFields(
                name=name,
                base_url=url,
                model=name,
                concurrency=args.concurrency,
                timeout_seconds=30,
            )
        )
        run = judge_run_prepare(task=task, endpoint=endpoint, judge_name=name)
        cpu, wall = time.process_time(), time.perf_counter()
        run = judge_run_execute(run=run)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        served = fake_judge_stats(url)
        served["cpu_seconds"] -= server_cpu
    rows = list(
        Judgment.objects.filter(assessor_id=run.judge.account_id).values_list(
            "hit__item__topic__number", "hit__item__key", "grade"
        )
    )
    grades = {(t, k): g for t, k, g in rows}
    return {
        "run": run,
        "wall": wall,
        "cpu": cpu,
        "served": served,
        "rows": len(rows),
        "grades": grades,
    }


def report(label: str, result: dict, args: argparse.Namespace, truth: dict) -> bool:
    run, n = result["run"], result["run"].asked
    timing = run.stats
    ask, ask_cpu = timing["ask_seconds"], timing["ask_cpu_seconds"]
    slot_ms = ask * args.concurrency / max(n, 1) * 1000 - args.latency_ms
    served = result["served"]
    lost = sum(1 for key in truth if key not in result["grades"])
    wrong = sum(1 for key, g in result["grades"].items() if truth.get(key) != g)
    doubled = served["answered_more_than_once"]
    print(
        f"{label}: {n:,} questions in {ask:.2f} s = {n / ask:,.0f}/s (the server's bound: "
        f"{args.concurrency / args.latency_ms * 1000:,.0f}/s); overhead per judgment outside "
        f"the server: CPU {ask_cpu / max(n, 1) * 1000:.2f} ms, slot time {slot_ms:.2f} ms "
        f"(goal < {GOAL_MS:g} ms); then storing {result['rows']:,} grades "
        f"{timing['store_seconds']:.2f} s (CPU {timing['store_cpu_seconds'] / max(n, 1) * 1000:.2f}"
        f" ms each); whole run {result['wall']:.2f} s\n"
        f"    the server's own CPU: {served['cpu_seconds'] / max(n, 1) * 1000:.2f} ms a "
        f"judgment (both processes share this machine's {os.cpu_count()} cores); "
        f"requests {served['requests']:,} (status {served['status']}), retries "
        f"{run.retries:,}; lost {lost}, wrong {wrong}, asked twice {doubled}"
    )
    return run.status == "done" and lost == 0 and wrong == 0 and doubled == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="1,000 items")
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency-ms", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    if args.small:
        args.items = 1_000
    setup_test_environment()
    test = settings.DATABASES["default"]["TEST"]
    test["NAME"] = f"bench_judge_{settings.DATABASES['default']['NAME']}"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        ok = run(args)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    if not ok:
        sys.exit("judge run benchmark: something was lost, wrong or doubled")


def run(args: argparse.Namespace) -> bool:
    from bench.judge_data import bulk_document_task

    started = time.perf_counter()
    task, truth = bulk_document_task(args.items, TOPICS, args.seed)
    took = time.perf_counter() - started
    print(f"set-up: {len(truth):,} pool items in {TOPICS} topics, {took:.1f} s")
    with tempfile.TemporaryDirectory() as folder:
        qrels = Path(folder) / "qrels.txt"
        qrels.write_text("".join(f"{t} 0 {d} {g}\n" for (t, d), g in sorted(truth.items())))
        clean = one_run(task, "clean", qrels, args)
        ok = report("no faults", clean, args, truth)
        faults = ["--error-rate-429", "0.1", "--error-rate-500", "0.1", "--seed", "7"]
        faulty = one_run(task, "faulty", qrels, args, *faults)
        ok = report("20% 429/500", faulty, args, truth) and ok
    return ok


if __name__ == "__main__":
    main()
