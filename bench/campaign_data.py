"""The files of the campaign rehearsal (bench/campaign.py): collection, topics and runs.

- The collection is bench/collection_dump.py's dump (Posts.xml, Comments.xml, an ARQMath v3
  formula index and its SLT TSV), streamed to disk: every row is a function of its id, so the
  runs below can name real answer posts and formula instances without reading it back.
- Topics are demo/synthetic's ARQMath topic files (Task 1 and Task 2 forms and the topic
  formula TSV); Task 3 answers Task 1's topics, as in ARQMath-3.
- Runs: each topic has a universe of candidates in a shared popularity order (answer posts;
  formula instances grouped by visual id, 1 to 8 instances each); a run ranks the first
  ``rows`` of that order after displacing each candidate at random (bench/pooling.py's
  ``noisy_order``), so runs overlap near the top as real systems do, about as much as
  ARQMath's runs did (see ``_spread``). Task 3 runs give one answer per topic; runs often
  give the same text (judged once, as one pool item).

Run files are written one at a time and never held in memory.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bench.collection_dump import QUESTION_EVERY, formula_post, formula_visual_id, is_answer
from bench.pooling_data import noisy_order
from demo.synthetic.topics import make_topic, write_topics
from demo.synthetic.vocabulary import ANSWER_MIDDLES, ANSWER_OPENERS, SHAPES

RUNS_PER_TEAM = 5  # one primary and four alternates, ARQMath's limits
UNIVERSE_PER_ROW = 3  # candidates per topic: three times a run's rows
SCAN_FORMULAS = 1_000_000  # formula ids scanned: about 170 instances of each visual id
GROUP_SIZES = (1, 1, 1, 2, 2, 3, 4, 5, 8)  # instances per visual id in a topic's universe
SHARED_ANSWERS = 3  # Task 3 texts per topic that several runs give


@dataclass(frozen=True)
class RunFile:
    task: str  # answer | formula | openqa
    team: str
    tag: str
    role: str
    path: Path
    rows: int


@dataclass
class CampaignFiles:
    topics: dict[str, Path]
    runs: list[RunFile] = field(default_factory=list)
    # Task 3: (topic number, answer text) -> tags of the runs giving it (for the qrels check).
    answers: dict[tuple[str, str], list[str]] = field(default_factory=dict)


def write_topic_files(folder: Path, *, topics: int, seed: int) -> dict[str, Path]:
    """task1-topics.xml, task2-topics.xml and topic-formulas-latex.tsv of ``topics`` topics."""
    return write_topics(folder, [make_topic(seed, n) for n in range(1, topics + 1)])


def _team(run: int) -> tuple[str, str]:
    return f"Team{run // RUNS_PER_TEAM + 1:02d}", "primary" if run % RUNS_PER_TEAM == 0 else (
        "alternate"
    )


def _answer_universe(rng: np.random.Generator, posts: int, size: int) -> np.ndarray:
    """``size`` distinct answer post ids of the dump (three answers follow each question)."""
    answers = (posts // QUESTION_EVERY) * (QUESTION_EVERY - 1)
    picks = rng.choice(answers, size=min(size, answers), replace=False)
    ids = (picks // 3) * QUESTION_EVERY + 2 + picks % 3
    assert all(is_answer(int(p)) for p in ids[:10])
    return ids


class FormulaInstances:
    """Formula ids of the dump by visual id, from a scan of its first formula ids (numpy):
    instances in answer and question posts only, with a visual id the index states."""

    def __init__(self, formulas: int) -> None:
        ids = np.arange(1, min(formulas, SCAN_FORMULAS) + 1, dtype=np.int32)
        visual = (ids % 6) * 10_000 + ((ids // 7) % 30) * 100 + (ids // 211) % 30
        keep = (ids % 20 != 0) & (ids % 50 != 7) & (visual != 0)
        ids, visual = ids[keep], visual[keep]
        order = np.argsort(visual, kind="stable")
        self.ids, self.visual = ids[order], visual[order]
        self.visual_ids, self.starts = np.unique(self.visual, return_index=True)
        self.ends = np.append(self.starts[1:], len(self.ids))
        check = int(self.ids[0])
        assert formula_visual_id(check) == int(self.visual[0])

    def universe(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """``size`` formula ids in popularity order, each visual id's instances together."""
        chosen: list[np.ndarray] = []
        total = 0
        order = rng.permutation(len(self.visual_ids))
        for index in order:
            if total >= size:
                break
            start, end = self.starts[index], self.ends[index]
            count = min(int(rng.choice(GROUP_SIZES)), end - start, size - total)
            chosen.append(rng.choice(self.ids[start:end], size=count, replace=False))
            total += count
        return np.concatenate(chosen)


def _spread(universe: int, run: int) -> float:
    """How far a run displaces candidates: wide enough that at full size a topic's pool holds
    about 450 answer posts and 140 visually distinct formulae, as ARQMath-3's did."""
    return universe * (1.5 + 0.3 * (run % 7))


def write_ranked_runs(
    folder: Path,
    *,
    task: str,
    topics: int,
    runs: int,
    rows: int,
    posts: int,
    formulas: int,
    seed: int,
) -> list[RunFile]:
    """Task 1 (``topic post rank score run``) or Task 2 (``topic formula_id post rank score
    run``) files, one per run, ``rows`` rows per topic."""
    rng = np.random.default_rng([seed, 1 if task == "answer" else 2])
    size = rows * UNIVERSE_PER_ROW
    if task == "answer":
        universes = [_answer_universe(rng, posts, size) for _ in range(topics)]
    else:
        instances = FormulaInstances(formulas)
        universes = [instances.universe(rng, size) for _ in range(topics)]
    prefix = "A" if task == "answer" else "B"
    made = []
    folder.mkdir(parents=True, exist_ok=True)
    for run in range(runs):
        team, role = _team(run)
        tag = f"{prefix.lower()}run{run + 1:02d}"
        path = folder / f"{team}-{tag}.tsv"
        written = 0
        with path.open("w", encoding="utf-8", newline="\n") as out:
            for topic, universe in enumerate(universes, start=1):
                depth = min(rows, len(universe))
                order = noisy_order(rng, len(universe), depth, _spread(len(universe), run))
                lines = []
                for rank, index in enumerate(order.tolist(), start=1):
                    item = int(universe[index])
                    score = f"{depth - rank + 1:.4f}"
                    if task == "answer":
                        lines.append(f"{prefix}.{topic}\t{item}\t{rank}\t{score}\t{tag}\n")
                    else:
                        post = formula_post(item, posts)
                        lines.append(f"{prefix}.{topic}\t{item}\t{post}\t{rank}\t{score}\t{tag}\n")
                out.writelines(lines)
                written += len(lines)
        made.append(RunFile(task, team, tag, role, path, written))
    return made


def _answer_text(rng: random.Random, topic: int, variant: str) -> str:
    """A short generated answer with one formula (no tab or newline: it is the last column)."""
    shape = SHAPES[(topic * 7 + len(variant)) % len(SHAPES)]
    return (
        f"{rng.choice(ANSWER_OPENERS)} ${shape.spellings[0]}$ for topic {topic}. "
        f"{rng.choice(ANSWER_MIDDLES)} the claim holds ({variant})."
    )


def write_openqa_runs(
    folder: Path, *, topics: int, runs: int, seed: int
) -> tuple[list[RunFile], dict[tuple[str, str], list[str]]]:
    """Task 3 files (``topic rank score run sources answer``): one answer per topic at rank 1.
    Half the time a run gives one of the topic's few shared texts, else its own."""
    rng = random.Random(f"{seed}:openqa")
    answers: dict[tuple[str, str], list[str]] = defaultdict(list)
    made = []
    folder.mkdir(parents=True, exist_ok=True)
    for run in range(runs):
        team, role = _team(run)
        tag = f"crun{run + 1:02d}"
        path = folder / f"{team}-{tag}.tsv"
        with path.open("w", encoding="utf-8", newline="\n") as out:
            for topic in range(1, topics + 1):
                shared = rng.random() < 0.5
                variant = f"shared {rng.randrange(SHARED_ANSWERS)}" if shared else f"run {tag}"
                text = _answer_text(random.Random(f"{seed}:{topic}:{variant}"), topic, variant)
                sources = f"{rng.randrange(2, 1000)},{rng.randrange(2, 1000)}"
                out.write(f"A.{topic}\t1\t{rng.uniform(1, 10):.4f}\t{tag}\t{sources}\t{text}\n")
                answers[(f"A.{topic}", text)].append(tag)
        made.append(RunFile("openqa", team, tag, role, path, topics))
    return made, dict(answers)


def write_campaign_files(
    folder: Path,
    *,
    topics: int,
    runs: int,
    rows: int,
    openqa_runs: int,
    posts: int,
    formulas: int,
    seed: int,
) -> CampaignFiles:
    """Topic files and the run files of the three tasks under ``folder``."""
    files = CampaignFiles(write_topic_files(folder / "topics", topics=topics, seed=seed))
    for task in ("answer", "formula"):
        files.runs += write_ranked_runs(
            folder / task,
            task=task,
            topics=topics,
            runs=runs,
            rows=rows,
            posts=posts,
            formulas=formulas,
            seed=seed,
        )
    openqa, files.answers = write_openqa_runs(
        folder / "openqa", topics=topics, runs=openqa_runs, seed=seed
    )
    files.runs += openqa
    return files
