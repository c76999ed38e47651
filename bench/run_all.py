"""Run every benchmark in turn: ``.venv/bin/python bench/run_all.py [--small] [--only NAME ...]
[--skip NAME ...]``.

Every other argument (``--small``) goes to each benchmark. NAME is a script's name with or
without ``.py`` (``campaign``, ``pooling``, ...). The campaign rehearsal runs last: at full
size it takes the longest (25 minutes is its goal) and needs tens of GB of disk for its files
and database; ``make bench BENCH_ARGS="--skip campaign"`` leaves it out, ``BENCH_ARGS="--only
campaign"`` runs it alone.
"""

import argparse
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
SCRIPTS = [
    "import_collection.py",
    "import_documents.py",
    "ingest_runs.py",
    "hostile_runs.py",
    "evaluate.py",
    "evaluate_measures.py",
    "lexical_overlap.py",
    "evaluation_jobs.py",
    "evaluate_nuggets.py",
    "nugget_significance.py",
    "judging_load.py",
    "judging_first_load.py",
    "nugget_labelling_load.py",
    "pooling.py",
    "pooling_documents.py",
    "simulate_pools.py",
    "priority_judging.py",
    "agreement.py",
    "organizer_dashboard.py",
    "run_judge.py",
    "campaign.py",
]


def _names(values: list[str]) -> set[str]:
    names = {v if v.endswith(".py") else f"{v}.py" for v in values}
    unknown = names - set(SCRIPTS)
    if unknown:
        sys.exit(f"unknown benchmark: {', '.join(sorted(unknown))} (known: {', '.join(SCRIPTS)})")
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", default=[], metavar="NAME")
    parser.add_argument("--skip", nargs="+", default=[], metavar="NAME")
    args, extra = parser.parse_known_args()
    only, skip = _names(args.only), _names(args.skip)
    failed = []
    for script in SCRIPTS:
        if (only and script not in only) or script in skip:
            continue
        print(f"== {script}", flush=True)
        if subprocess.run([sys.executable, str(BENCH / script), *extra], check=False).returncode:
            failed.append(script)
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
