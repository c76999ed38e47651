"""Benchmark: 100 runs x 50 topics x 1,000 rows with string docnos, 6 trec_eval measures.

Evaluate the runs of a TREC-style task (docnos such as ``FBIS3-10082``, graded
qrels of a realistic size: ~400 judged documents a topic, a tenth of them relevant) with
``map``, ``P_10``, ``ndcg_cut_10``, ``recip_rank``, ``bpref`` and ``Rprec`` through our
evaluation code (``evaluation.core.runfiles.evaluate_run_files_measures``: read the files, score,
average as trec_eval -c) and, in the same process, through ir_measures 0.4.3 on the same files
(its own readers, ``ir_measures.evaluator`` built once, ``calc_aggregate`` per run); both
numbers must be identical (to 1e-12, far below trec_eval's 4 printed decimals). Goal: ours at
least 2x faster than ir_measures.

    .venv/bin/python bench/evaluate_measures.py [--small] [--runs N] [--topics N] [--rows N]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from evaluation.core.runfiles import evaluate_run_files_measures  # noqa: E402

MEASURES = ["map", "P_10", "ndcg_cut_10", "recip_rank", "bpref", "Rprec"]
IR_NAMES = ["AP", "P@10", "nDCG@10", "RR", "Bpref", "Rprec"]  # the same, as ir_measures names
UNIVERSE = 5_000  # candidate documents a topic
PREFIXES = ("FBIS3", "FT911", "LA0101", "FR940104", "clueweb12-0000tw")
REPEAT = 3  # best of 3: the machine is shared


def docno(rng: random.Random, topic: int, n: int) -> str:
    return f"{PREFIXES[(topic + n) % len(PREFIXES)]}-{topic:03d}{n:05d}"


def write_files(
    folder: Path, runs: int, topics: int, rows: int, judged: int, seed: int
) -> tuple[Path, list[Path]]:
    rng = random.Random(seed)
    pools: dict[int, list[str]] = {}
    with (folder / "qrels.txt").open("w") as qrels:
        for t in range(1, topics + 1):
            pools[t] = [docno(rng, t, n) for n in rng.sample(range(UNIVERSE), judged)]
            for doc in pools[t]:
                grade = rng.choices((0, 1, 2), weights=(90, 7, 3))[0]
                qrels.write(f"{t}\t0\t{doc}\t{grade}\n")
    paths = []
    for r in range(runs):
        path = folder / f"run{r:03d}.txt"
        with path.open("w") as out:
            for t in range(1, topics + 1):
                if r % 10 == 9 and t % 25 == 0:
                    continue  # a few runs miss a topic: trec_eval -c scores it
                picked = set(rng.sample(pools[t], min(judged, rows // 3)))
                while len(picked) < rows:
                    picked.add(docno(rng, t, rng.randrange(UNIVERSE)))
                docs = list(picked)
                rng.shuffle(docs)
                for rank, doc in enumerate(docs, 1):
                    score = round(50.0 - rank / 11.0, 1)  # rounding makes ties
                    out.write(f"{t} Q0 {doc} {rank} {score} team{r}\n")
        paths.append(path)
    return folder / "qrels.txt", paths


class Clock:
    """Wall time and this process's CPU time (CPU time is what other load cannot inflate)."""

    def __enter__(self) -> Clock:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu


def ours(qrels: Path, runs: list[Path]) -> tuple[Clock, dict[str, list[float]]]:
    with Clock() as clock:
        rows = evaluate_run_files_measures(qrels, runs, MEASURES, kind="document")
    found = {str(r["file"]): [r["measures"][m] for m in MEASURES] for r in rows}  # type: ignore[index]
    return clock, found


def theirs(qrels: Path, runs: list[Path]) -> tuple[Clock, dict[str, list[float]]]:
    import ir_measures

    measures = [ir_measures.parse_measure(n) for n in IR_NAMES]
    found: dict[str, list[float]] = {}
    with Clock() as clock:
        evaluator = ir_measures.evaluator(measures, ir_measures.read_trec_qrels(str(qrels)))
        for path in runs:
            agg = evaluator.calc_aggregate(ir_measures.read_trec_run(str(path)))
            found[path.name] = [float(agg[m]) for m in measures]
    return clock, found


def best(run: object, *args: object) -> tuple[Clock, dict[str, list[float]]]:
    timings = [run(*args) for _ in range(REPEAT)]  # type: ignore[operator]
    return min(timings, key=lambda t: t[0].cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="10 runs x 10 topics x 200 rows")
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--judged", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.small:
        args.runs, args.topics, args.rows, args.judged = 10, 10, 200, 80
    with tempfile.TemporaryDirectory() as tmp:
        qrels, runs = write_files(
            Path(tmp), args.runs, args.topics, args.rows, args.judged, args.seed
        )
        print(
            f"evaluate_measures bench: {args.runs} runs x {args.topics} topics x {args.rows} "
            f"rows (string docnos), qrels {args.topics} topics x {args.judged} judged; "
            f"measures {', '.join(MEASURES)}"
        )
        print(f"  load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        our, our_scores = best(ours, qrels, runs)
        their, their_scores = best(theirs, qrels, runs)
        worst = max(
            abs(a - b)
            for name, values in our_scores.items()
            for a, b in zip(values, their_scores[name], strict=True)
        )
        n = args.runs
        print(f"  {'':34} {'wall s':>8} {'CPU s':>7} {'CPU ms/run':>11}")
        for name, clock in (("qrelsmith evaluate --measure", our), ("ir_measures 0.4.3", their)):
            print(f"  {name:34} {clock.wall:8.2f} {clock.cpu:7.2f} {1000 * clock.cpu / n:11.1f}")
        print(
            f"  speed-up vs ir_measures: {their.cpu / our.cpu:.1f}x CPU, "
            f"{their.wall / our.wall:.1f}x wall (goal >= 2x); best of {REPEAT}"
        )
        print(f"  largest difference between the two on any run mean: {worst:.2e}")
        if worst > 1e-12:
            sys.exit("numbers differ from ir_measures")


if __name__ == "__main__":
    main()
