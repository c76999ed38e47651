"""Synthetic participant runs for the answer and formula tasks.

Every synthetic answer and formula instance has a hidden relevance to each topic (its thread's
subject, the topic's formulas it uses, the answer's quality). A run ranks candidates by that
relevance plus noise whose spread depends on the system's quality, so runs overlap a lot, better
systems put relevant results higher, and baselines sit in the middle, as ARQMath's did.
Files are ARQMath TSV: Task 1 ``topic post rank score run``, Task 2
``topic formula_id post rank score run``.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from demo.synthetic.threads import ThreadRecord
from demo.synthetic.topics import TopicRecord
from demo.synthetic.vocabulary import SHAPES

_SHAPE = {shape.visual_id: shape for shape in SHAPES}
CANDIDATES_PER_TOPIC = 600  # bounded: memory stays flat whatever the collection size


@dataclass(frozen=True)
class SystemSpec:
    team: str
    tag: str
    role: str  # primary | alternate
    quality: float  # 0 (random) .. 1 (ranks by true relevance)
    baseline: bool = False
    skip_rate: float = 0.0  # share of topics the run has no results for


@dataclass(frozen=True)
class RunFile:
    team: str
    tag: str
    task_kind: str  # answer | formula
    role: str
    baseline: bool
    path: Path
    rows: int


TEAMS: tuple[SystemSpec, ...] = (
    SystemSpec("Lemma", "lemma-fusion", "primary", 0.85),
    SystemSpec("Lemma", "lemma-dense", "alternate", 0.75),
    SystemSpec("Lemma", "lemma-bm25-rerank", "alternate", 0.6),
    SystemSpec("Tangent", "tangent-cft", "primary", 0.7, skip_rate=0.1),
    SystemSpec("Tangent", "tangent-slt", "alternate", 0.65),
    SystemSpec("Proofsearch", "proofsearch-main", "primary", 0.55),
    SystemSpec("Proofsearch", "proofsearch-tfidf", "alternate", 0.4, skip_rate=0.2),
    SystemSpec("Organizers", "baseline-bm25", "primary", 0.45, baseline=True),
    SystemSpec("Organizers", "baseline-linked-mse", "alternate", 0.5, baseline=True),
)


@dataclass
class _Candidates:
    """The best candidates of one topic seen so far: (prior, id, post id, relevance)."""

    heap: list[tuple[float, int, int, float]]

    def offer(self, prior: float, item: tuple[int, int, float]) -> None:
        entry = (prior, *item)
        if len(self.heap) < CANDIDATES_PER_TOPIC:
            heapq.heappush(self.heap, entry)
        elif entry > self.heap[0]:
            heapq.heapreplace(self.heap, entry)


def answer_relevance(
    topic: TopicRecord, thread: ThreadRecord, post_shapes: frozenset[int], quality: float
) -> float:
    """Hidden relevance of an answer: same subject, shares the topic's formulas, is good."""
    subject = 1.0 if thread.subject == topic.subject else 0.0
    overlap = min(len(post_shapes & topic.key_visual_ids), 2)
    return (subject + overlap) * (0.4 + quality)


def formula_relevance(topic: TopicRecord, visual_id: int) -> float:
    """Hidden relevance of a formula instance: same formula, near miss, or same subject."""
    if visual_id == topic.query_visual_id:
        return 3.0
    shape = _SHAPE[visual_id]
    if shape.family == topic.query_family:
        return 2.0
    if visual_id in topic.key_visual_ids:
        return 1.5
    return 0.5 if shape.subject == topic.subject else 0.0


def collect_candidates(
    threads: Iterable[ThreadRecord], topics: list[TopicRecord], seed: int
) -> tuple[dict[int, list[tuple[int, int, float]]], dict[int, list[tuple[int, int, float]]]]:
    """Per topic number: answer candidates and formula candidates (id, post id, relevance)."""
    rng = random.Random(f"{seed}:candidates")
    answers = {t.number: _Candidates([]) for t in topics}
    formulas = {t.number: _Candidates([]) for t in topics}
    for thread in threads:
        quality = {post.id: post.quality for post in thread.answers}
        for topic in topics:
            for post in thread.answers:
                rel = answer_relevance(topic, thread, post.shapes, post.quality)
                # A little junk reaches every candidate list, as lexical matches do.
                answers[topic.number].offer(rel + rng.random(), (post.id, post.id, rel))
            for formula in thread.formulas:
                if formula.post_id not in quality or formula.comment_id is not None:
                    continue  # ARQMath formula runs return answers' formulas
                rel = formula_relevance(topic, formula.visual_id)
                candidate = (formula.formula_id, formula.post_id, rel)
                formulas[topic.number].offer(rel + rng.random(), candidate)
    return (
        {n: [entry[1:] for entry in c.heap] for n, c in answers.items()},
        {n: [entry[1:] for entry in c.heap] for n, c in formulas.items()},
    )


def _ranked(
    rng: random.Random, system: SystemSpec, candidates: list[tuple[int, int, float]], depth: int
) -> list[tuple[int, int, float]]:
    spread = 0.2 + 3.0 * (1.0 - system.quality)
    scored = [(rel + rng.gauss(0.0, spread), item, post) for item, post, rel in candidates]
    scored.sort(key=lambda row: (-row[0], -row[1]))
    return [(item, post, score) for score, item, post in scored[:depth]]


def write_runs(
    folder: Path,
    topics: list[TopicRecord],
    candidates: tuple[dict[int, list[tuple[int, int, float]]], ...],
    *,
    seed: int,
    depth: int = 100,
) -> list[RunFile]:
    """One file per system and task under ``folder/task1`` and ``folder/task2``."""
    files: list[RunFile] = []
    for kind, prefix, per_topic in (
        ("answer", "A", candidates[0]),
        ("formula", "B", candidates[1]),
    ):
        (folder / f"task{1 if kind == 'answer' else 2}").mkdir(parents=True, exist_ok=True)
        for system in TEAMS:
            files.append(_write_run(folder, kind, prefix, system, topics, per_topic, seed, depth))
    return files


def _write_run(
    folder: Path,
    kind: str,
    prefix: str,
    system: SystemSpec,
    topics: list[TopicRecord],
    per_topic: dict[int, list[tuple[int, int, float]]],
    seed: int,
    depth: int,
) -> RunFile:
    rng = random.Random(f"{seed}:{kind}:{system.tag}")
    path = folder / f"task{1 if kind == 'answer' else 2}" / f"{system.team}-{system.tag}.tsv"
    rows = 0
    with path.open("w", encoding="utf-8", newline="\n") as out:
        for topic in topics:
            if rng.random() < system.skip_rate:
                continue
            ranked = _ranked(rng, system, per_topic[topic.number], depth)
            for rank, (item, post, score) in enumerate(ranked, start=1):
                middle = f"{post}" if kind == "answer" else f"{item}\t{post}"
                out.write(f"{prefix}.{topic.number}\t{middle}\t{rank}\t{score:.4f}\t{system.tag}\n")
                rows += 1
    return RunFile(system.team, system.tag, kind, system.role, system.baseline, path, rows)
