"""Benchmark: ``evaluate`` on 40 runs x 100 topics x 1,000 rows against 100 topics x 450 judged.

Writes synthetic files to a temp dir, times our evaluation (in-process and the real
``manage.py evaluate`` command end to end), times ir_measures on the same files for
nDCG(judged_only=True), AP(rel=2, judged_only=True), P(rel=2, judged_only=True)@10, and checks
both give the same numbers. Target: faster than ir_measures, under 5 s for the 40 runs.

    .venv/bin/python bench/evaluate.py [--small] [--runs N] [--topics N] [--rows N] [--judged N]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from evaluation.core.runfiles import evaluate_run_files  # noqa: E402

UNIVERSE = 20_000  # candidate post ids per topic


def write_files(
    folder: Path, runs: int, topics: int, rows: int, judged: int, seed: int
) -> tuple[Path, list[Path]]:
    rng = random.Random(seed)
    pools = {}
    with (folder / "qrels.tsv").open("w") as qrels:
        for t in range(1, topics + 1):
            docs = rng.sample(range(1, UNIVERSE), judged)
            pools[t] = docs
            for doc in docs:
                grade = rng.choices((0, 1, 2, 3), weights=(70, 15, 9, 6))[0]
                qrels.write(f"A.{t}\t0\t{doc}\t{grade}\r\n")
    paths = []
    for r in range(runs):
        path = folder / f"run{r:02d}.tsv"
        with path.open("w") as out:
            for t in range(1, topics + 1):
                # About a third of each run's rows are judged, the rest left the pool.
                picked = set(rng.sample(pools[t], min(judged, rows // 3)))
                while len(picked) < rows:
                    picked.add(rng.randrange(1, UNIVERSE))
                docs = list(picked)
                rng.shuffle(docs)
                for rank, doc in enumerate(docs, 1):
                    score = round(100.0 - rank / 7.0, 1)  # rounding makes ties
                    out.write(f"A.{t}\tQ0\t{doc}\t{rank}\t{score}\tteam{r}\n")
        paths.append(path)
    return folder / "qrels.tsv", paths


class Clock:
    """Wall time and this process's CPU time (CPU time is what other load cannot inflate)."""

    def __enter__(self) -> Clock:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu


def ours(qrels: Path, runs: list[Path]) -> tuple[Clock, dict[str, tuple[float, ...]]]:
    with Clock() as clock:
        results = evaluate_run_files(qrels, runs)
    return clock, {
        str(r["file"]): (r["ndcg_prime"], r["map_prime"], r["p10_prime"])  # type: ignore[misc]
        for r in results
    }


def cli(qrels: Path, runs: list[Path]) -> tuple[float, float]:
    """Wall and CPU seconds of `manage.py evaluate` in its own process, start-up included."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    command = [sys.executable, str(REPO / "manage.py"), "evaluate", "--qrels", str(qrels)]
    subprocess.run(
        [*command, "--format", "json", *map(str, runs)],
        check=True,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def theirs(qrels: Path, runs: list[Path]) -> tuple[Clock, dict[str, tuple[float, ...]]]:
    import ir_measures
    from ir_measures import AP, P, nDCG

    measures = [
        nDCG(judged_only=True),
        AP(rel=2, judged_only=True),
        P(rel=2, judged_only=True) @ 10,
    ]
    with Clock() as clock:
        found: dict[str, tuple[float, ...]] = {}
        qrels_rows = list(ir_measures.read_trec_qrels(str(qrels)))
        for path in runs:
            agg = ir_measures.calc_aggregate(
                measures, qrels_rows, ir_measures.read_trec_run(str(path))
            )
            found[path.name] = tuple(float(agg[m]) for m in measures)
    return clock, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="5 runs x 20 topics x 200 rows")
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--judged", type=int, default=450)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.small:
        args.runs, args.topics, args.rows, args.judged = 5, 20, 200, 90
    with tempfile.TemporaryDirectory() as tmp:
        qrels, runs = write_files(
            Path(tmp), args.runs, args.topics, args.rows, args.judged, args.seed
        )
        print(
            f"evaluate bench: {args.runs} runs x {args.topics} topics x {args.rows} rows, "
            f"qrels {args.topics} topics x {args.judged} judged"
        )
        print(f"  load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        our, our_scores = ours(qrels, runs)
        cli_wall, cli_cpu = cli(qrels, runs)
        their, their_scores = theirs(qrels, runs)
        worst = max(
            abs(a - b)
            for name in our_scores
            for a, b in zip(our_scores[name], their_scores[name], strict=True)
        )
        n = args.runs
        print(f"  {'':32} {'wall s':>8} {'CPU s':>7} {'CPU ms/run':>11}")
        for name, wall, cpu in (
            ("qrelsmith evaluate (in-process)", our.wall, our.cpu),
            ("qrelsmith manage.py evaluate", cli_wall, cli_cpu),
            ("ir_measures 0.4.3", their.wall, their.cpu),
        ):
            print(f"  {name:32} {wall:8.2f} {cpu:7.2f} {1000 * cpu / n:11.1f}")
        print(
            f"  speed-up vs ir_measures (CPU): {their.cpu / our.cpu:.1f}x in-process, "
            f"{their.cpu / cli_cpu:.1f}x for the whole command (start-up included)"
        )
        print(f"  largest difference between the two on any run mean: {worst:.2e}")
        if worst > 1e-9:
            sys.exit("numbers differ from ir_measures")


if __name__ == "__main__":
    main()
