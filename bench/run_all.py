"""Run every benchmark in turn: ``.venv/bin/python bench/run_all.py [--small]``."""

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
SCRIPTS = [
    "import_collection.py",
    "import_documents.py",
    "ingest_runs.py",
    "evaluate.py",
    "judging_load.py",
    "judging_first_load.py",
    "pooling.py",
    "agreement.py",
]


def main() -> None:
    extra = sys.argv[1:]
    failed = []
    for script in SCRIPTS:
        print(f"== {script}", flush=True)
        if subprocess.run([sys.executable, str(BENCH / script), *extra], check=False).returncode:
            failed.append(script)
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
