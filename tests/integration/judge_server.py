"""The project's fake judge server (judges/fake_server.py) as a separate process, for tests
that talk to a judge over HTTP, and a document task whose pool the judge grades."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from collection.models import RetrievalTask
from tests.integration.document_pool import document_pool, document_task, document_topic
from tests.integration.workers import REPO, free_port, kill, wait_for


@contextmanager
def judge_server(qrels: Path, *options: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """The server's base URL (``http://127.0.0.1:PORT/v1``) while it runs."""
    port = free_port()
    command = [sys.executable, "-m", "judges.fake_server", "--qrels", str(qrels)]
    command += ["--port", str(port), *options]
    import os

    process = subprocess.Popen(  # noqa: S603
        command,
        cwd=REPO,
        env={**os.environ, **(env or {})},
        start_new_session=True,
        stdout=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: _answers(url), 20, "the fake judge server to start")
        yield f"{url}/v1"
    finally:
        kill(process)


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/stats", timeout=1) as response:  # noqa: S310
            return response.status == 200
    except OSError:
        return False


def server_stats(base_url: str) -> dict:
    with urllib.request.urlopen(base_url.removesuffix("/v1") + "/stats", timeout=5) as response:  # noqa: S310
        return json.loads(response.read())


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
