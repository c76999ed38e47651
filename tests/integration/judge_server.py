"""The project's fake judge server (judges/fake_server.py) as a separate process, for tests
that talk to a judge over HTTP, and a document task whose pool the judge grades."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from collection.models import RetrievalTask
from judges.fake_server_process import fake_judge_server, fake_judge_stats
from tests.integration.document_pool import document_pool, document_task, document_topic


def judge_server(qrels: Path, *options: str, env: dict[str, str] | None = None) -> Any:
    """The server's base URL (``http://127.0.0.1:PORT/v1``) while it runs."""
    return fake_judge_server(qrels, *options, env=env)


def server_stats(base_url: str) -> dict:
    return fake_judge_stats(base_url)


def judged_document_task(
    topics: int, items: int, seed: int = 1
) -> tuple[RetrievalTask, dict[tuple[str, str], int]]:
    """A document task of ``topics`` topics x ``items`` pooled documents, and qrels for them:
    (topic number, docno) -> a grade drawn at random (0-2, the document scale)."""
    task = document_task()
    rng = random.Random(seed)
    truth: dict[tuple[str, str], int] = {}
    for t in range(topics):
        topic = document_topic(task, number=str(301 + t))
        pool = document_pool(items=items, topic=topic, docno_prefix=f"D{seed}")
        for item in pool.items:
            truth[(topic.number, item.key)] = rng.choice([0, 0, 1, 2])
    return task, truth


def write_qrels(path: Path, truth: dict[tuple[str, str], int]) -> Path:
    path.write_text("".join(f"{t} 0 {d} {g}\n" for (t, d), g in sorted(truth.items())))
    return path
