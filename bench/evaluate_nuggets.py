"""Benchmark: nugget scores of 100 runs x 300 topics x 20 nuggets from nuggetizer files.

Writes a nuggets file (300 topics, 20 nuggets each, a third vital) and one assignments file per
run (every topic, a seeded mix of support, partial support and no support), then times
``manage.py evaluate_nuggets --assignments ... --nuggets ... --format json`` in a child process
(reading 100 files of 6,000 labels each, scoring, writing JSON): its wall time and peak memory.
A spot check recomputes one run's figures from the files with the formulas written out here.

    .venv/bin/python bench/evaluate_nuggets.py [--small] [--runs N] [--topics N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LOADAVG = Path("/proc/loadavg")
LABELS = ("support", "partial_support", "not_support")


def write_files(folder: Path, runs: int, topics: int, nuggets: int, seed: int) -> list[Path]:
    rng = random.Random(seed)
    lists = {
        str(t): [
            {"text": f"fact {n} of topic {t}", "importance": "vital" if n % 3 == 0 else "okay"}
            for n in range(nuggets)
        ]
        for t in range(1, topics + 1)
    }
    with (folder / "nuggets.jsonl").open("w") as out:
        for qid, items in lists.items():
            out.write(json.dumps({"qid": qid, "query": f"question {qid}", "nuggets": items}) + "\n")
    paths = []
    for r in range(runs):
        path = folder / f"run{r:03d}.jsonl"
        with path.open("w") as out:
            for qid, items in lists.items():
                labelled = [{**n, "assignment": rng.choice(LABELS)} for n in items]
                record = {"qid": qid, "run_id": f"run{r:03d}", "nuggets": labelled}
                out.write(json.dumps(record) + "\n")
        paths.append(path)
    return paths


def expected(path: Path) -> dict[str, float]:
    """One run's measures from its file, the TREC RAG 2024 formulas written out."""
    full = {"support": 1.0, "partial_support": 0.5, "not_support": 0.0}
    strict = {"support": 1.0, "partial_support": 0.0, "not_support": 0.0}
    sums: dict[str, float] = {}
    count = 0
    for line in path.read_text().splitlines():
        nuggets = json.loads(line)["nuggets"]
        count += 1
        for prefix, s in (("", full), ("strict_", strict)):
            vital = [s[n["assignment"]] for n in nuggets if n["importance"] == "vital"]
            okay = [s[n["assignment"]] for n in nuggets if n["importance"] == "okay"]
            scores = {
                "all": (sum(vital) + sum(okay)) / len(nuggets),
                "vital": sum(vital) / len(vital),
                "weighted": (sum(vital) + 0.5 * sum(okay)) / (len(vital) + 0.5 * len(okay)),
            }
            for name, value in scores.items():
                sums[prefix + name] = sums.get(prefix + name, 0.0) + value
    return {name: value / count for name, value in sums.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="10 runs x 30 topics")
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--topics", type=int, default=300)
    parser.add_argument("--nuggets", type=int, default=20)
    args = parser.parse_args()
    runs, topics = (10, 30) if args.small else (args.runs, args.topics)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        start = time.perf_counter()
        paths = write_files(folder, runs, topics, args.nuggets, seed=7)
        size = sum(p.stat().st_size for p in paths) / 1e6
        print(
            f"files: {runs} runs x {topics} topics x {args.nuggets} nuggets, {size:.1f} MB "
            f"written in {time.perf_counter() - start:.1f} s"
        )
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
        command = [
            sys.executable,
            str(REPO / "manage.py"),
            "evaluate_nuggets",
            "--format",
            "json",
            "--nuggets",
            str(folder / "nuggets.jsonl"),
            "--assignments",
            *map(str, paths),
        ]
        start = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        seconds = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        results = {r["run"]: r["measures"] for r in json.loads(done.stdout)}
        check = expected(paths[0])
        worst = max(abs(results["run000"][m] - v) for m, v in check.items())
        print(
            f"evaluate_nuggets: {seconds:.2f} s wall for {runs * topics * args.nuggets:,} labels "
            f"(including Django start-up), peak {peak:.0f} MB"
        )
        print(f"spot check run000: largest difference from the formulas {worst:.2e}")
        print(f"load: {LOADAVG.read_text().split()[:3]}")
        if worst > 1e-9:
            sys.exit("the scores differ from the formulas")


if __name__ == "__main__":
    main()
