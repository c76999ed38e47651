"""Benchmark: significance tests between runs on nugget scores, 100 runs x 300 topics.

Times what the nugget scores page computes when its figures change (``nugget_run_tests``:
every one of the 4,950 pairs, paired randomization test with 10,000 trials and the t-test,
Holm-corrected) on seeded per-topic scores; a reload of the page with the figures unchanged
(``nugget_significance`` finding its table in the cache: Redis with REDIS_URL, else memory);
and ``manage.py evaluate_nuggets --significance all`` on the files of bench/evaluate_nuggets.py
(reading, scoring and testing, in a child process).

    .venv/bin/python bench/nugget_significance.py [--small] [--runs N] [--topics N] [--trials N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.evaluate_nuggets import write_files  # noqa: E402
from nuggets.core.scores import MEASURES  # noqa: E402
from nuggets.core.significance import nugget_run_tests  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="10 runs x 30 topics")
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--topics", type=int, default=300)
    parser.add_argument("--trials", type=int, default=10_000)
    args = parser.parse_args()
    if args.small:
        args.runs, args.topics = 10, 30
    rng = random.Random(11)
    topics = [str(t) for t in range(1, args.topics + 1)]
    runs = {
        f"run{r:03d}": {
            t: {m: rng.random() for m in MEASURES} for t in topics if rng.random() > 0.02
        }
        for r in range(args.runs)
    }
    start = time.perf_counter()
    tests = nugget_run_tests(runs, topics, measure="all", trials=args.trials)
    seconds = time.perf_counter() - start
    print(
        f"scores page: {len(tests):,} pairs of {args.runs} runs over {args.topics} topics, "
        f"{args.trials:,} trials: {seconds:.2f} s (load {os.getloadavg()[0]:.2f})"
    )
    _cached(runs, topics, args.trials)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        paths = write_files(folder, args.runs, args.topics, 20, seed=7)
        command = [
            sys.executable,
            str(REPO / "manage.py"),
            "evaluate_nuggets",
            "--format",
            "json",
            "--significance",
            "all",
            "--trials",
            str(args.trials),
            "--nuggets",
            str(folder / "nuggets.jsonl"),
            "--assignments",
            *map(str, paths),
        ]
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
        start = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        seconds = time.perf_counter() - start
        pairs = len(json.loads(done.stdout)["significance"]["pairs"])
        print(
            f"evaluate_nuggets --significance all: {seconds:.2f} s wall for {pairs:,} pairs "
            f"(including reading the files and Django start-up; load {os.getloadavg()[0]:.2f})"
        )


def _cached(runs: dict[str, dict[str, dict[str, float]]], topics: list[str], trials: int) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    import django

    django.setup()
    from django.core.cache import cache

    from nuggets.selectors import RunScoreRow, TaskScores
    from nuggets.selectors.significance import nugget_significance

    rows = [
        RunScoreRow(run, "team", {}, per_topic, 0, 0, topics) for run, per_topic in runs.items()
    ]
    task = TaskScores(topics, rows)
    cache.delete_many([])  # connects before timing
    start = time.perf_counter()
    first = nugget_significance(task, measure="all", seed=1, trials=trials)
    computed = time.perf_counter() - start
    start = time.perf_counter()
    again = nugget_significance(task, measure="all", seed=1, trials=trials)
    reload = time.perf_counter() - start
    hit = "cache hit" if again.computed_at == first.computed_at else "MISS (recomputed)"
    print(
        f"scores page significance, first load {computed:.2f} s, reload {reload * 1000:.1f} ms "
        f"({hit}; load {os.getloadavg()[0]:.2f})"
    )


if __name__ == "__main__":
    main()
