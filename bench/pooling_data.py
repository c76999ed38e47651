"""Synthetic pooling data for the benchmarks: runs that overlap near the top the way real
systems do, the campaign, collection and run rows they need, loaded with COPY.

``bench/pooling.py``, ``bench/pooling_documents.py`` and the campaign benchmark share them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

UNIVERSE = 3_000  # candidate posts (formulas) per topic
RUNS_PER_TEAM = 5  # one primary and four alternates, as ARQMath allowed
INSTANCES_PER_VISUAL_ID = 4


def rankings(topics: int, runs: int, rows: int, seed: int) -> dict[int, dict[int, list[int]]]:
    """run -> topic -> item indexes (0..UNIVERSE) by rank: noisy orders of a shared popularity,
    so that runs overlap near the top the way real systems do."""
    rng = np.random.default_rng(seed)
    result: dict[int, dict[int, list[int]]] = {}
    for run in range(runs):
        spread = 300 + 100 * (run % 7)
        result[run] = {
            topic: noisy_order(rng, UNIVERSE, rows, spread).tolist() for topic in range(topics)
        }
    return result


def noisy_order(rng: np.random.Generator, universe: int, rows: int, spread: float) -> np.ndarray:
    """The first ``rows`` of ``0 .. universe - 1`` (a shared popularity order) once each is
    displaced by up to ``spread`` places at random: one run's ranking of one topic."""
    return np.argsort(np.arange(universe, dtype=np.float64) + rng.random(universe) * spread)[:rows]


def post_of(topic: int, index: int) -> int:
    return 1_000_000 + topic * 10_000 + index


def formula_of(topic: int, index: int) -> int:
    return 5_000_000 + topic * 10_000 + index


def setup_campaign(topics: int, runs: int) -> tuple[Any, Any, list[Any], list[Any], list[Any]]:
    from django.utils import timezone

    from collection.models import Campaign, RetrievalTask, Topic
    from pooling.models import Run, Team

    campaign = Campaign.objects.create(name="Pool-Bench")
    answer = RetrievalTask.objects.create(campaign=campaign, kind="answer", name="answer")
    formula = RetrievalTask.objects.create(campaign=campaign, kind="formula", name="formula")
    answer_topics = Topic.objects.bulk_create(
        Topic(task=answer, number=f"A.{t + 1}", title="t", question="q") for t in range(topics)
    )
    formula_topics = Topic.objects.bulk_create(
        Topic(task=formula, number=f"B.{t + 1}", title="t", question="q") for t in range(topics)
    )
    teams = [Team.objects.create(name=f"team{i}") for i in range(-(-runs // RUNS_PER_TEAM))]
    made: dict[str, list[Any]] = {"answer": [], "formula": []}
    for task in (answer, formula):
        for r in range(runs):
            made[task.kind].append(
                Run.objects.create(
                    task=task,
                    team=teams[r // RUNS_PER_TEAM],
                    tag=f"run{r}",
                    role="primary" if r % RUNS_PER_TEAM == 0 else "alternate",
                    uploaded_at=timezone.now(),
                )
            )
    return answer, formula, answer_topics, formula_topics, made["answer"] + made["formula"]


def load_collection(topics: int) -> None:
    """Posts, threads and formula instances whose visual ids repeat (4 instances each)."""
    from collection.models import Formula, Post, Thread
    from kernel.bulkload import bulk_insert

    posts = [formula_of(t, i) // 2 for t in range(topics) for i in range(0, UNIVERSE, 2)]
    bulk_insert(
        Thread, ("id", "title", "tags"), ((t, "t", "[]") for t in sorted({p // 3 for p in posts}))
    )
    bulk_insert(
        Post, ("id", "thread_id", "kind", "body", "score"), ((p, p // 3, 2, "b", 0) for p in posts)
    )
    fields = ["formula_id", "post_id", "thread_id", "location", "visual_id", "latex"]
    fields += ["old_visual_id", "issue"]
    bulk_insert(
        Formula,
        fields,
        (
            (f, f // 2, f // 6, "answer", str(f // INSTANCES_PER_VISUAL_ID), "x", "", "")
            for t in range(topics)
            for f in (formula_of(t, i) for i in range(UNIVERSE))
        ),
    )


def load_runs(runs: list[Any], topic_ids: list[int], ranked: dict, kind: str) -> int:
    from kernel.bulkload import bulk_insert
    from pooling.models import RunRow

    fields = ("run_id", "topic_id", "post_id", "formula_id", "rank", "score", "answer", "sources")

    def rows():  # type: ignore[no-untyped-def]
        for r, run in enumerate(runs):
            for t, topic_id in enumerate(topic_ids):
                for rank, index in enumerate(ranked[r][t], start=1):
                    if kind == "answer":
                        yield (
                            run.pk,
                            topic_id,
                            post_of(t, index),
                            None,
                            rank,
                            2000.0 - rank,
                            "",
                            "",
                        )
                    else:
                        fid = formula_of(t, index)
                        yield (run.pk, topic_id, fid // 2, fid, rank, 2000.0 - rank, "", "")

    return bulk_insert(RunRow, fields, rows())
