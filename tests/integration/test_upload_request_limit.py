"""A run upload's request is bounded before it is read: over REST and the web forms (runs and
RAG runs), a body past ``RUN_UPLOAD_MAX_BYTES`` is answered 413 naming the limit, without a
byte of it read (so no memory, disk or time spent on it) and nothing stored; a compressed file
under that limit that expands past ``RUN_FILE_MAX_BYTES`` is refused by the reader with the
limit named, and nothing stored.

The oversized bodies are real multipart bodies of the size claimed, handed to the server as
its input stream; the stream counts what is read from it.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest
from django.conf import settings
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart

from collection.models import RetrievalTask
from nuggets.models import RagAnswer
from pooling.models import Run, Team
from pooling.services.runs import token_create
from tests.factories.collection import (
    DocumentCollectionFactory,
    DocumentFactory,
    RetrievalTaskFactory,
    TopicFactory,
    UserFactory,
)
from tests.factories.pooling import TeamFactory

pytestmark = pytest.mark.django_db

CSRF_SECRET = "a" * 32


@pytest.fixture(autouse=True)
def _no_throttle() -> Iterator[None]:
    cache.clear()  # the upload throttle counts in the cache
    yield
    cache.clear()


@pytest.fixture
def tasks() -> dict[str, RetrievalTask]:
    news = DocumentCollectionFactory.create(name="news")
    for n in range(3):
        DocumentFactory.create(collection=news, docno=f"news-{n}")
    document = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.DOCUMENT, collection=news)
    rag = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.RAG, collection=news)
    for task in (document, rag):
        TopicFactory.create(task=task, number="1", title="question 1")
    return {"document": document, "rag": rag}


@pytest.fixture
def member() -> Any:
    user = UserFactory.create(username="alice")
    TeamFactory.create(name="TeamA").members.add(user)
    return user


class CountingInput(io.BytesIO):
    """A request's input stream that remembers how many bytes were read from it."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.bytes_read = 0

    def read(self, size: int | None = -1) -> bytes:
        chunk = super().read(size)
        self.bytes_read += len(chunk)
        return chunk

    def readline(self, size: int | None = -1) -> bytes:
        chunk = super().readline(size)
        self.bytes_read += len(chunk)
        return chunk


def _body(fields: dict[str, Any], file_bytes: bytes, name: str) -> bytes:
    if fields.get("team") == "TeamA":  # the web form names the team by its id
        fields = {**fields, "team": Team.objects.get(name="TeamA").pk}
    return encode_multipart(BOUNDARY, {**fields, "file": SimpleUploadedFile(name, file_bytes)})


class Upload(NamedTuple):
    path: str
    fields: dict[str, Any]
    file_name: str
    auth: str  # "token" (REST) or "session" (a web form, its CSRF check enforced)
    kind: str  # which task of the fixture


RUNS = {"tag": "myrun", "role": "primary"}
UPLOADS = {
    "rest-runs": Upload("/api/runs/", RUNS, "run.txt", "token", "document"),
    "web-runs": Upload("/runs/", {**RUNS, "team": "TeamA"}, "run.txt", "session", "document"),
    "rest-rag": Upload("/api/rag-runs/", {"tag": "rag"}, "rag.jsonl", "token", "rag"),
    "web-rag": Upload("/nuggets/tasks/{task}/runs/", {"tag": "rag"}, "rag.jsonl", "session", "rag"),
}


def _post(
    member: Any, task: RetrievalTask, which: str, body: bytes, **headers: str
) -> tuple[Any, CountingInput]:
    path, auth = UPLOADS[which].path, UPLOADS[which].auth
    # The web forms' CSRF check is enforced: it reads a form's whole body when it runs.
    client = Client(enforce_csrf_checks=True)
    extra: dict[str, Any] = dict(headers)
    if auth == "token":
        extra["HTTP_AUTHORIZATION"] = f"Token {token_create(user=member).key}"
    else:
        client.force_login(member)
        client.cookies["csrftoken"] = CSRF_SECRET  # as the page's form would have set it
        extra["HTTP_X_CSRFTOKEN"] = CSRF_SECRET
    stream = CountingInput(body)
    # The body is the stream's, not the client's copy: the stream counts what is read.
    extra.update(
        {"wsgi.input": stream, "CONTENT_LENGTH": str(len(body)), "CONTENT_TYPE": MULTIPART_CONTENT}
    )
    response = client.generic("POST", path.format(task=task.pk), **extra)
    return response, stream


def _nothing_stored() -> bool:
    return not Run.objects.exists() and not RagAnswer.objects.exists()


@pytest.mark.parametrize("which", list(UPLOADS))
def test_an_upload_past_the_limit_is_refused_413_unread_and_nothing_stored_when_posted(
    tasks: dict[str, RetrievalTask], member: Any, which: str
) -> None:
    fields, name, kind = UPLOADS[which].fields, UPLOADS[which].file_name, UPLOADS[which].kind
    task = tasks[kind]
    limit = settings.RUN_UPLOAD_MAX_BYTES
    assert limit == settings.RUN_FILE_MAX_BYTES + 1024 * 1024  # the documented default
    body = _body({**fields, "task": task.pk}, b"1 Q0 news-0 1 0.9 myrun\n" * (limit // 24), name)
    assert len(body) > limit
    response, stream = _post(member, task, which, body)
    assert response.status_code == 413
    said = response.json()["detail"] if which.startswith("rest") else response.content.decode()
    assert f"this upload is {len(body):,} bytes" in said
    assert f"over the limit of {limit:,} bytes a request (RUN_UPLOAD_MAX_BYTES)" in said
    assert stream.bytes_read == 0
    assert _nothing_stored()


def test_the_runs_pages_script_reads_the_refusal_as_json_when_it_asks_for_json(
    tasks: dict[str, RetrievalTask], member: Any
) -> None:
    body = b"x" * (settings.RUN_UPLOAD_MAX_BYTES + 1)
    response, stream = _post(
        member, tasks["document"], "web-runs", body, HTTP_ACCEPT="application/json"
    )
    assert response.status_code == 413
    assert "RUN_UPLOAD_MAX_BYTES" in response.json()["detail"]
    assert stream.bytes_read == 0
    page = Client()
    page.force_login(member)  # the form tells its script the limit, to say it before sending
    text = page.get("/runs/").content.decode()
    assert f'data-max-bytes="{settings.RUN_UPLOAD_MAX_BYTES}"' in text


def _valid_run(which: str) -> bytes:
    if UPLOADS[which].kind == "document":
        return b"1 Q0 news-0 1 0.9 myrun\n1 Q0 news-1 2 0.8 myrun\n"
    record = {
        "run_id": "rag",
        "topic_id": "1",
        "topic": "question 1",
        "references": ["news-0"],
        "response_length": 2,
        "answer": [{"text": "An answer.", "citations": [0]}],
    }
    return json.dumps(record).encode() + b"\n"


@pytest.mark.parametrize("which", list(UPLOADS))
def test_an_upload_at_the_limit_is_read_and_stored_when_the_limit_is_set(
    tasks: dict[str, RetrievalTask], member: Any, which: str
) -> None:
    fields, name, kind = UPLOADS[which].fields, UPLOADS[which].file_name, UPLOADS[which].kind
    task = tasks[kind]
    body = _body({**fields, "task": task.pk}, _valid_run(which), name)
    with override_settings(RUN_UPLOAD_MAX_BYTES=len(body) - 1):
        refused, unread = _post(member, task, which, body)
        assert refused.status_code == 413
        assert unread.bytes_read == 0
    with override_settings(RUN_UPLOAD_MAX_BYTES=len(body)):
        stored, read = _post(member, task, which, body)
    assert stored.status_code in (201, 302), stored.content[:500]
    assert read.bytes_read == len(body)
    assert Run.objects.filter(task=task).count() == 1


@pytest.mark.parametrize("which", list(UPLOADS))
@override_settings(RUN_FILE_MAX_BYTES=10_000)
def test_a_gzip_bomb_under_the_request_limit_is_refused_naming_the_file_limit_and_not_stored(
    tasks: dict[str, RetrievalTask], member: Any, which: str
) -> None:
    fields, name, kind = UPLOADS[which].fields, UPLOADS[which].file_name, UPLOADS[which].kind
    task = tasks[kind]
    # A valid first line repeated to 2 MB: a few KB compressed, under both limits as sent;
    # the file limit counts it decompressed (a 10,000-byte limit stands for 50 MiB here).
    line = _valid_run(which).splitlines(keepends=True)[0]
    bomb = gzip.compress(line * (2_000_000 // len(line)), compresslevel=9)
    assert len(bomb) < 10_000
    body = _body({**fields, "task": task.pk}, bomb, name + ".gz")
    response, stream = _post(member, task, which, body, HTTP_ACCEPT="application/json")
    assert response.status_code == 400, response.content[:500]
    said = response.content.decode()
    assert "file is larger than the limit of 10,000 bytes" in said
    assert stream.bytes_read == len(body)  # read, as it passed the request's limit
    assert _nothing_stored()
