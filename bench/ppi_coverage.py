"""Simulation: people and machine together on TREC-COVID round 1's 143 real runs.

The round's official qrels stand for the people; a simulated machine judge grades every judged
item through a lenient confusion (``evaluation.core.ppi_simulation.LENIENT_JUDGE``: binary
kappa about 0.5 against the qrels, relevant from grade 1, printed), seeded. People then judge
a stratified sample of 10% of the official judgments (869 items), and every run's
ndcg_cut_10 and P_5 (the round's leaderboard measures) is estimated with a 95% interval
(``evaluation.core.ppi``). Printed per measure: the share of (run, repetition) whose interval
covers the run's value under the full qrels (goal: at least 93%), the mean width, and
Kendall's tau between the estimated and the full-qrels ranking of the runs (goal: 0.9), with
the tau of the interval's unbiased centre and of the machine's grades alone for comparison.
Reads ../shared/data/trec-covid-round1; without it the script says so and stops.

    .venv/bin/python bench/ppi_coverage.py [--repetitions N] [--seed S] [--share F]
        [--probabilities] [--no-support]

``--no-support`` predicts the people's grades from the machine's alone, without the runs'
support of each item (``evaluation.core.ppi.run_support``), for comparison.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from assessment.core.agreement import cohen_kappa_binary  # noqa: E402
from evaluation.core.planner_files import planner_input_read  # noqa: E402
from evaluation.core.ppi import linear_measure  # noqa: E402
from evaluation.core.ppi_simulation import LENIENT_JUDGE, coverage, simulated_judge  # noqa: E402

COVID = REPO.parent / "shared" / "data" / "trec-covid-round1"
MEASURES = ("ndcg_cut_10", "P_5")


def main() -> None:
    import random

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--share", type=float, default=0.1, help="human budget / judgments")
    parser.add_argument("--probabilities", action="store_true", help="judge gives probabilities")
    parser.add_argument(
        "--no-support", action="store_true", help="leave out the runs' support of each item"
    )
    args = parser.parse_args()
    if not COVID.is_dir():
        print(f"skipped: TREC-COVID round 1 files not found at {COVID}")
        return
    started = time.perf_counter()
    runs_paths = sorted((COVID / "runs").glob("*.gz"))
    data = planner_input_read(COVID / "qrels-rnd1.txt", runs_paths, list(MEASURES))
    grades = data.grades
    judgments = sum(len(docs) for docs in grades.values())
    budget = round(judgments * args.share)
    judge = simulated_judge(grades, LENIENT_JUDGE, rng=random.Random(args.seed))
    people = {f"{t}/{d}": g for t, docs in grades.items() for d, g in docs.items()}
    machine = {f"{t}/{d}": j.grade for (t, d), j in judge.items()}
    kappa = cohen_kappa_binary(people, machine, relevant_from=1)
    print(
        f"ppi_coverage: {len(data.runs)} runs, {len(grades)} topics, {judgments:,} judgments, "
        f"human budget {budget:,} ({args.share:.0%}), {args.repetitions} repetitions, "
        f"judge binary kappa {kappa} (relevant from 1), "
        f"{'with' if args.probabilities else 'without'} grade probabilities, "
        f"{'without' if args.no_support else 'with'} the runs' support; "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    measures = [linear_measure(name, name, relevance_level=1) for name in MEASURES]
    rows = coverage(
        grades,
        data.runs,
        measures,
        budget=budget,
        confusion=LENIENT_JUDGE,
        seed=args.seed,
        repetitions=args.repetitions,
        probabilities=args.probabilities,
        support=not args.no_support,
    )
    print(
        f"{'measure':<12} {'coverage':>9} {'width':>7} {'tau mean':>9} {'tau min':>8} "
        f"{'unbiased tau':>13} {'machine tau':>12}"
    )
    for row in rows:
        print(
            f"{row.measure:<12} {row.covered:>9.3f} {row.mean_width:>7.3f} {row.tau_mean:>9.3f} "
            f"{row.tau_min:>8.3f} {row.unbiased_tau:>13.3f} {row.machine_tau:>12.3f}"
        )
    print(f"{time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
