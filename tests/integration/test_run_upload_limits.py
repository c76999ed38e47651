"""Hostile run files cost a worker little: a huge line, a gzip bomb, a big file of unknown ids.

Each is refused through the real upload path (the REST endpoint or run_submit, real
PostgreSQL), with the problem on its line, nothing stored, in bounded time and with memory
that does not grow with the file's size (peak Python allocations, measured by tracemalloc).
The inputs are generated on the fly in the test's own temporary directory.
"""

from __future__ import annotations

import gzip
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from collection.models import RetrievalTask, Topic
from pooling.models import Run, RunRow
from pooling.services.runs import RunValidationError, run_submit, token_create
from tests.factories.collection import (
    DocumentCollectionFactory,
    DocumentFactory,
    RetrievalTaskFactory,
    TopicFactory,
    UserFactory,
)
from tests.factories.pooling import TeamFactory

pytestmark = pytest.mark.django_db

T = TypeVar("T")
MB = 1_000_000
# What reading a refused file may allocate at its peak, whatever the file's size: a few
# blocks of lines and one batch of rows checked against the collection.
FLAT_PEAK_BYTES = 40 * MB


@pytest.fixture(autouse=True)
def _no_throttle() -> Iterator[None]:
    cache.clear()  # the upload throttle counts in the cache: each test starts afresh
    yield
    cache.clear()


@pytest.fixture
def answer_task() -> RetrievalTask:
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.ANSWER)
    TopicFactory.create(task=task, number="A.1")
    return task


@pytest.fixture
def document_task() -> RetrievalTask:
    news = DocumentCollectionFactory.create(name="news")
    for n in range(3):
        DocumentFactory.create(collection=news, docno=f"news-{n}")
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.DOCUMENT, collection=news)
    # Enough topics that no topic passes 1,000 rows: every line looks valid but for its docno.
    Topic.objects.bulk_create(
        [TopicFactory.build(task=task, number=str(n)) for n in range(1, 2501)]
    )
    return task


@pytest.fixture
def member() -> Any:
    user = UserFactory.create(username="alice")
    TeamFactory.create(name="TeamA").members.add(user)
    return user


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=user).key}")
    return client


def upload(client: APIClient, task: RetrievalTask, data: bytes, name: str) -> Any:
    body = {
        "file": SimpleUploadedFile(name, data),
        "task": task.pk,
        "tag": "myrun",
        "role": "primary",
    }
    return client.post("/api/runs/", body, format="multipart")


def timed(call: Callable[[], T]) -> tuple[T, float]:
    """The call's result and the CPU seconds this process spent on it. The request is served
    in this process, so this counts the server's work on the input and not the machine's
    load: a reader that gathered the whole line or inflated the whole bomb would spend seconds
    of CPU, whatever else runs beside the test."""
    start = time.process_time()
    result = call()
    return result, time.process_time() - start


def peak_allocated(call: Callable[[], T]) -> tuple[T, int]:
    """The call's result and the most Python memory allocated at once while it ran."""
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def gzip_bomb(line: bytes, expanded: int) -> bytes:
    """``line`` repeated to ``expanded`` bytes, as gzip members of 1 MB each, one after the
    other (gzip readers read on from one member into the next): a few MB for 2 GB."""
    member = gzip.compress(line * (MB // len(line)), compresslevel=9)
    return member * (expanded // MB)


def warmed(client: APIClient) -> APIClient:
    """The client after one request: a running server has imported its views already, and
    the first request's imports are not what a test of the upload should time."""
    assert client.get("/api/runs/").status_code == 200
    return client


def test_single_line_of_50_mb_is_refused_at_line_1_within_a_second_when_uploaded(
    answer_task, member
) -> None:
    data = b"A.1 " + b"7" * (50 * MB)  # one line, no newline: the reader must not gather it
    client = warmed(client_for(member))
    response, seconds = timed(lambda: upload(client, answer_task, data, "huge.tsv"))
    assert response.status_code == 400, response.content[:300]
    report = response.json()["report"]
    assert [(e["line"], e["field"]) for e in report["errors"]] == [(1, None)]
    assert "line is longer than the limit of 65,536 bytes" in report["errors"][0]["message"]
    assert report["file"] == "huge.tsv"
    assert seconds < 1.0, f"refusing a 50 MB line took {seconds:.2f} s"
    assert not Run.objects.exists()


@pytest.mark.parametrize(
    "line",
    [
        pytest.param(b"A.1 501 1 0.9 myrun\n", id="one-row-repeated"),
        pytest.param(b"\n", id="blank-lines"),
        pytest.param(b"A.1 501 1 0.9 myrun\n" + b"\n" * 5000, id="rows-between-blank-lines"),
    ],
)
def test_gzip_bomb_of_2_gb_is_refused_within_2_s_and_flat_memory_when_uploaded(
    answer_task, member, line
) -> None:
    data = gzip_bomb(line, 2_000 * MB)
    assert len(data) < 10 * MB
    client = warmed(client_for(member))
    response, seconds = timed(lambda: upload(client, answer_task, data, "bomb.tsv.gz"))
    assert response.status_code == 400
    report = response.json()["report"]
    assert report["errors"]
    assert all(e["line"] for e in report["errors"])
    assert seconds < 2.0, f"refusing a gzip bomb took {seconds:.2f} s"
    cache.clear()
    response, peak = peak_allocated(lambda: upload(client, answer_task, data, "bomb.tsv.gz"))
    assert response.status_code == 400
    # The compressed upload itself is held by the test client (and copied by Django's
    # multipart parser): beyond that, reading 2 GB of lines must allocate next to nothing.
    assert peak < 4 * len(data) + FLAT_PEAK_BYTES, f"peak {peak / MB:.0f} MB"
    assert not Run.objects.exists()


def write_unknown_docnos_run(path: Path, size: int) -> int:
    """A TREC run of ``size`` bytes whose every line is valid but names a docno that no
    collection has: each topic gets 1,000 rows, ranked by score. Returns its line count."""
    lines = 0
    with path.open("wb") as out:
        written, topic = 0, 1
        while written < size:
            block = b"".join(
                b"%d Q0 unknown-%d-%d %d %d.5 myrun\n" % (topic, topic, rank, rank, 2000 - rank)
                for rank in range(1, 1001)
            )
            out.write(block)
            written += len(block)
            lines += 1000
            topic += 1
    return lines


def test_100_mb_of_unknown_docnos_is_refused_early_with_flat_memory_when_submitted(
    document_task, member, tmp_path, settings
) -> None:
    settings.RUN_FILE_MAX_BYTES = 200 * 1024 * 1024  # the size limit is not what stops it
    path = tmp_path / "unknown.run"
    lines = write_unknown_docnos_run(path, 100 * MB)
    assert path.stat().st_size >= 100 * MB

    def submit() -> RunValidationError:
        with path.open("rb") as stream, pytest.raises(RunValidationError) as refused:
            run_submit(
                task=document_task,
                team=member.teams.get(),
                tag="myrun",
                role="primary",
                stream=stream,
                file_name=path.name,
                uploaded_by=member,
            )
        return refused.value

    refusal, peak = peak_allocated(submit)
    report = refusal.report
    assert report["errors"][0]["line"] is None
    assert (
        "none of the docnos read is a document of collection news"
        in (report["errors"][0]["message"])
    )
    first_rows = report["errors"][1:4]
    assert [(e["line"], e["field"]) for e in first_rows] == [
        (1, "docno"),
        (2, "docno"),
        (3, "docno"),
    ]
    assert first_rows[0]["message"] == "document 'unknown-1-1' is not in collection news"
    assert report["stopped_at_line"] is not None
    assert report["stopped_at_line"] < lines // 10  # most of the file was never read
    assert peak < FLAT_PEAK_BYTES, f"peak {peak / MB:.0f} MB for a {lines:,}-line file"
    assert not Run.objects.exists()
    assert not RunRow.objects.exists()
