"""Benchmark: Task 3 scoring with Lexical Overlap from files, ``evaluate --task openqa`` on
native run files (one generated answer per topic) with an answer map and a teams file.

Full size: 100 runs of 20 teams x 100 topics, answers of 180 words (about 1,000 characters;
the Task 3 format allows 1,200, as ARQMath-3 did; it had 26 Task 3 runs and 78 topics).
Every run's answer to a topic is a reference of the other teams' runs when it is relevant (a
third are), so LO compares about 30 reference answers per topic for each run.
Target: under 10 s, peak memory under 300 MB.

    .venv/bin/python bench/lexical_overlap.py [--small] [--runs N] [--topics N] [--words N]
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from evaluation.core.runfiles import evaluate_run_files  # noqa: E402

VOCABULARY = [f"w{i}" for i in range(3000)] + list("$^_{}+-=()") + ["\\frac", "\\sum", "x", "n"]
TEAM_SIZE = 5


def write_files(folder: Path, runs: int, topics: int, words: int, seed: int) -> dict[str, Path]:
    rng = random.Random(seed)
    topic_words = {t: rng.sample(VOCABULARY, 400) for t in range(1, topics + 1)}
    with (
        (folder / "qrels.tsv").open("w") as qrels,
        (folder / "map.tsv").open("w") as mapping,
        (folder / "teams.tsv").open("w") as teams,
    ):
        for r in range(runs):
            tag = f"qa{r:03d}"
            teams.write(f"{tag}\tteam{r // TEAM_SIZE}\n")
            with (folder / f"{tag}.tsv").open("w") as out:
                for t in range(1, topics + 1):
                    # Answers share the topic's words, so overlaps are realistic (0.2-0.5).
                    text = " ".join(rng.choices(topic_words[t], k=words))
                    out.write(f"A.{t}\t1\t1.0\t{tag}\t\t{text}\n")
                    mapping.write(f"{tag}\tA.{t}\td_{r}_{t}\n")
                    grade = rng.choices((0, 1, 2, 3), weights=(40, 27, 18, 15))[0]
                    qrels.write(f"A.{t}\t0\td_{r}_{t}\t{grade}\n")
    return {"folder": folder}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--runs", type=int)
    parser.add_argument("--topics", type=int)
    parser.add_argument("--words", type=int, default=180)
    args, _ = parser.parse_known_args()
    runs = args.runs or (20 if args.small else 100)
    topics = args.topics or (20 if args.small else 100)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        started = time.perf_counter()
        write_files(folder, runs, topics, args.words, seed=7)
        print(
            f"files: {runs} runs x {topics} topics, {args.words} words per answer "
            f"({time.perf_counter() - started:.1f} s to write)"
        )
        paths = sorted(folder.glob("qa*.tsv"))
        teams = dict(line.split("\t") for line in (folder / "teams.tsv").read_text().splitlines())
        started = time.perf_counter()
        rows = evaluate_run_files(
            folder / "qrels.tsv",
            paths,
            kind="openqa",
            answer_map=folder / "map.tsv",
            teams=teams,
        )
        elapsed = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    values = sorted(float(r["lo"]) for r in rows)  # type: ignore[arg-type]
    print(
        f"AR, P@1 and LO of {len(rows)} runs: {elapsed:.2f} s (target < 10 s), "
        f"peak memory {peak:.0f} MB (target < 300 MB)"
    )
    print(f"LO from {values[0]:.3f} to {values[-1]:.3f}, median {values[len(values) // 2]:.3f}")


if __name__ == "__main__":
    main()
