"""The organizers' uploads are bounded before they are read, as run uploads are: a qrels file
(the qrels page's import, the pool planner's prior on its page and over REST, a training
round's gold qrels), a training archive's topic and qrels files, a machine judge's grades (its
page and REST). A body past the view's limit is answered 413 naming the limit and its setting,
without a byte of it read, and nothing is stored; a body at the limit is read.

The oversized bodies are real multipart bodies of the size claimed (up to the 513 MiB of a
machine judge's default limit), produced as they are read rather than held in memory; the
stream counts what is read from it. Every URL whose view takes a file is checked to name its
limit, so a new upload cannot be added without one.
"""

from __future__ import annotations

import gzip
import inspect
import io
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import pytest
from django.conf import settings
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.parsers import FileUploadParser, MultiPartParser

from assessment.models import MachineJudge, TrainingRound
from collection.models import RetrievalTask
from evaluation.models import PoolPlanJob, QrelsVersion
from kernel.request_limits import ATTRIBUTE
from pooling.services.runs import token_create
from tests.factories.collection import (
    DocumentCollectionFactory,
    RetrievalTaskFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

CSRF_SECRET = "a" * 32
QRELS_LINE = b"1\t0\tdoc-1\t1\n"
NOT_QRELS = b"no qrels line\n"


class GrownBody(io.RawIOBase):
    """A multipart body of ``len(self)`` bytes: the form's fields, then one file of
    ``repeats`` copies of ``line``, made as it is read; ``bytes_read`` counts what was."""

    def __init__(self, fields: dict[str, Any], file_field: str, line: bytes, repeats: int):
        super().__init__()
        closing = f"--{BOUNDARY}--\r\n".encode()
        head = encode_multipart(BOUNDARY, fields).removesuffix(closing)
        head += (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{file_field}"; '
            f'filename="grades.tsv"\r\nContent-Type: application/octet-stream\r\n\r\n'
        ).encode()
        self.head, self.line, self.repeats, self.tail = head, line, repeats, b"\r\n" + closing
        self.size = len(head) + len(line) * repeats + len(self.tail)
        self.position = 0
        self.bytes_read = 0

    def __len__(self) -> int:
        return self.size

    def _at(self, start: int, size: int) -> bytes:
        """The body's bytes from ``start``, at most ``size`` of them."""
        head_end = len(self.head)
        file_end = head_end + len(self.line) * self.repeats
        if start < head_end:
            return self.head[start : start + size]
        if start < file_end:
            offset = (start - head_end) % len(self.line)
            lines = self.line * (size // len(self.line) + 2)
            return lines[offset : offset + min(size, file_end - start)]
        return self.tail[start - file_end : start - file_end + size]

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        size = self.size - self.position if size is None or size < 0 else size
        chunks = []
        while size > 0 and self.position < self.size:
            chunk = self._at(self.position, min(size, 1 << 20))
            self.position += len(chunk)
            size -= len(chunk)
            chunks.append(chunk)
        data = b"".join(chunks)
        self.bytes_read += len(data)
        return data

    def readline(self, size: int | None = -1) -> bytes:
        data = self._at(self.position, 1 << 16 if size is None or size < 0 else size)
        data = data[: data.find(b"\n") + 1 or len(data)]
        self.position += len(data)
        self.bytes_read += len(data)
        return data


class Upload(NamedTuple):
    url: str  # formatted with the task's id
    setting: str
    fields: dict[str, Any]
    file_field: str
    rest: bool  # a token over REST, or a session with its CSRF check enforced


UPLOADS = {
    "web-qrels": Upload(
        "/results/{task}/qrels/", "QRELS_UPLOAD_MAX_BYTES", {"action": "import"}, "file", False
    ),
    "web-planner": Upload(
        "/results/{task}/pool-planner/",
        "QRELS_UPLOAD_MAX_BYTES",
        {"source": "qrels"},
        "prior",
        False,
    ),
    "rest-planner": Upload(
        "/api/tasks/{task}/pool-plans/",
        "QRELS_UPLOAD_MAX_BYTES",
        {"source": "qrels"},
        "prior",
        True,
    ),
    "web-training": Upload(
        "/organize/task/{task}/training/",
        "QRELS_UPLOAD_MAX_BYTES",
        {"name": "r1"},
        "qrels",
        False,
    ),
    "web-training-archive": Upload(
        "/organize/task/{task}/training/archive/",
        "TRAINING_ARCHIVE_UPLOAD_MAX_BYTES",
        {"name": "r1"},
        "qrels",
        False,
    ),
    "web-machine-judge": Upload(
        "/organize/task/{task}/machine-judges/",
        "MACHINE_JUDGE_UPLOAD_MAX_BYTES",
        {"name": "llm"},
        "file",
        False,
    ),
    "rest-machine-judge": Upload(
        "/api/organize/tasks/{task}/machine-judges/",
        "MACHINE_JUDGE_UPLOAD_MAX_BYTES",
        {"name": "llm"},
        "file",
        True,
    ),
}


@pytest.fixture(autouse=True)
def _no_throttle() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def task() -> RetrievalTask:
    task = RetrievalTaskFactory.create(
        kind=RetrievalTask.Kind.DOCUMENT, collection=DocumentCollectionFactory.create()
    )
    TopicFactory.create(task=task, number="1")
    return task


@pytest.fixture
def organizer() -> Any:
    return UserFactory.create(username="organizer", is_staff=True)


def _post(organizer: Any, task: RetrievalTask, which: str, body: GrownBody) -> Any:
    upload = UPLOADS[which]
    client = Client(enforce_csrf_checks=True)
    extra: dict[str, Any] = {}
    if upload.rest:
        extra["HTTP_AUTHORIZATION"] = f"Token {token_create(user=organizer).key}"
    else:
        client.force_login(organizer)
        client.cookies["csrftoken"] = CSRF_SECRET  # as the page's form would have set it
        extra["HTTP_X_CSRFTOKEN"] = CSRF_SECRET
    extra.update(
        {"wsgi.input": body, "CONTENT_LENGTH": str(len(body)), "CONTENT_TYPE": MULTIPART_CONTENT}
    )
    return client.generic("POST", upload.url.format(task=task.pk), **extra)


def _body_past(limit: int, which: str, task: RetrievalTask) -> GrownBody:
    upload = UPLOADS[which]
    fields = {**upload.fields, "task": task.pk}
    empty = GrownBody(fields, upload.file_field, QRELS_LINE, 0)
    return GrownBody(
        fields, upload.file_field, QRELS_LINE, (limit - len(empty)) // len(QRELS_LINE) + 1
    )


def _nothing_stored() -> bool:
    return not any(
        model.objects.exists() for model in (QrelsVersion, PoolPlanJob, TrainingRound, MachineJudge)
    )


@pytest.mark.parametrize("which", list(UPLOADS))
def test_an_organizer_upload_past_its_limit_is_refused_413_unread_when_posted(
    task: RetrievalTask, organizer: Any, which: str
) -> None:
    setting = UPLOADS[which].setting
    limit: int = getattr(settings, setting)
    body = _body_past(limit, which, task)
    assert limit < len(body) <= limit + len(QRELS_LINE)
    response = _post(organizer, task, which, body)
    assert response.status_code == 413
    said = response.json()["detail"] if UPLOADS[which].rest else response.content.decode()
    assert f"this upload is {len(body):,} bytes" in said
    assert f"over the limit of {limit:,} bytes a request ({setting})" in said
    if not UPLOADS[which].rest:  # the page says what to do, not a run file's advice
        assert "Check that this is the file you meant to send" in said
        assert "RUN_FILE_MAX_BYTES" not in said
    assert body.bytes_read == 0
    assert _nothing_stored()


def test_the_default_limits_follow_the_largest_files_they_carry_when_unset() -> None:
    mib, qrels = 1024 * 1024, settings.QRELS_FILE_MAX_BYTES
    limits = {name: getattr(settings, name) for name in {u.setting for u in UPLOADS.values()}}
    assert limits == {
        "QRELS_UPLOAD_MAX_BYTES": qrels + mib,
        "TRAINING_ARCHIVE_UPLOAD_MAX_BYTES": 2 * qrels + mib,
        "MACHINE_JUDGE_UPLOAD_MAX_BYTES": settings.MACHINE_JUDGE_FILE_MAX_BYTES + mib,
    }


@pytest.mark.parametrize("which", list(UPLOADS))
def test_an_organizer_upload_at_its_limit_is_read_when_the_limit_is_set(
    task: RetrievalTask, organizer: Any, which: str
) -> None:
    upload = UPLOADS[which]
    fields = {**upload.fields, "task": task.pk}
    body = GrownBody(fields, upload.file_field, NOT_QRELS, 3)
    with override_settings(**{upload.setting: len(body) - 1}):
        assert _post(organizer, task, which, body).status_code == 413
        assert body.bytes_read == 0
    body = GrownBody(fields, upload.file_field, NOT_QRELS, 3)
    with override_settings(**{upload.setting: len(body)}):
        response = _post(organizer, task, which, body)
    # Read and judged by the view (a file no parser takes: nothing is stored).
    assert response.status_code != 413
    assert body.bytes_read == len(body)
    assert _nothing_stored()


def test_a_qrels_file_at_the_limit_is_imported_whole_when_posted_on_the_qrels_page(
    organizer: Any,
) -> None:
    task = RetrievalTaskFactory.create(
        kind=RetrievalTask.Kind.DOCUMENT, collection=DocumentCollectionFactory.create()
    )
    TopicFactory.create(task=task, number="1")
    fields = {"action": "import", "label": "official"}
    body = GrownBody(fields, "file", QRELS_LINE, 1)
    with override_settings(QRELS_UPLOAD_MAX_BYTES=len(body)):
        response = _post(organizer, task, "web-qrels", body)
    assert response.status_code == 302, response.content[:500]
    assert QrelsVersion.objects.get(task=task).content == QRELS_LINE.decode()


def _patterns(resolver: URLResolver, prefix: str = "") -> Iterator[tuple[str, Callable[..., Any]]]:
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            if entry.app_name != "admin":  # Django's admin takes no upload of ours
                yield from _patterns(entry, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry.callback


def _declared_parsers(view_class: type) -> list[type]:
    """The parsers a REST view names itself (DRF's default list takes multipart too, but such
    a view has no file field and is bounded by REQUEST_MAX_BYTES)."""
    for klass in view_class.__mro__:
        if klass.__module__.startswith("rest_framework"):
            return []
        if "parser_classes" in vars(klass):
            return list(vars(klass)["parser_classes"])
    return []


def _takes_files(view: Callable[..., Any]) -> bool:
    view_class = getattr(view, "view_class", None) or getattr(view, "cls", None)
    if view_class is not None:
        parsers = _declared_parsers(view_class)
        if any(issubclass(p, (MultiPartParser, FileUploadParser)) for p in parsers):
            return True
        return "request.FILES" in inspect.getsource(view_class)
    return "request.FILES" in inspect.getsource(inspect.unwrap(view))


def _limit_of(view: Callable[..., Any]) -> str | None:
    view_class = getattr(view, "view_class", None) or getattr(view, "cls", None)
    return getattr(view, ATTRIBUTE, None) or getattr(view_class, ATTRIBUTE, None)


def test_every_view_that_takes_a_file_names_its_body_limit_when_routed() -> None:
    taking = {route: view for route, view in _patterns(get_resolver()) if _takes_files(view)}
    assert len(taking) >= 11, sorted(taking)  # runs and RAG runs (page, REST), the seven above
    unbounded = [route for route, view in taking.items() if _limit_of(view) is None]
    assert not unbounded, unbounded


def test_a_file_sent_to_a_page_that_takes_none_is_refused_413_unread_when_anonymous() -> None:
    # The login page's CSRF check would parse a multipart body, its file streamed to disk.
    limit = settings.REQUEST_MAX_BYTES
    assert limit == settings.DATA_UPLOAD_MAX_MEMORY_SIZE  # the documented default
    body = GrownBody({"username": "x", "password": "y"}, "file", QRELS_LINE, limit // 12 + 1)
    extra: dict[str, Any] = {
        "wsgi.input": body,
        "CONTENT_LENGTH": str(len(body)),
        "CONTENT_TYPE": MULTIPART_CONTENT,
    }
    response = Client(enforce_csrf_checks=True).generic("POST", "/accounts/login/", **extra)
    assert response.status_code == 413
    assert f"over the limit of {limit:,} bytes a request (REQUEST_MAX_BYTES)" in (
        response.content.decode()
    )
    assert body.bytes_read == 0


def test_a_qrels_file_of_one_huge_line_is_refused_by_its_number_and_not_quoted_when_imported(
    organizer: Any, task: RetrievalTask
) -> None:
    # 20 MB with no line end, under the request limit: the page names the line, quotes none
    # of it, and stores nothing.
    body = GrownBody({"action": "import"}, "file", b"9" * 1_000_000, 20)
    response = _post(organizer, task, "web-qrels", body)
    assert response.status_code == 200
    page = response.content.decode()
    assert "line 1: longer than 4,096 characters" in page
    assert len(page) < 200_000
    assert not QrelsVersion.objects.exists()


@override_settings(MACHINE_JUDGE_FILE_MAX_BYTES=100_000)
def test_a_gzip_bomb_under_the_request_limit_is_refused_naming_the_file_limit_when_a_judge(
    organizer: Any, task: RetrievalTask
) -> None:
    # 20 MB of grades lines packed into a few KB: counted unpacked against the file limit (a
    # 100,000-byte limit stands for 512 MiB here), unpacked no further than it.
    bomb = gzip.compress(QRELS_LINE * (20_000_000 // len(QRELS_LINE)), compresslevel=9)
    assert len(bomb) < 100_000
    client = Client()
    client.force_login(organizer)
    response = client.post(
        f"/api/organize/tasks/{task.pk}/machine-judges/",
        {"name": "llm", "file": SimpleUploadedFile("grades.tsv.gz", bomb)},
    )
    assert response.status_code == 400, response.content[:500]
    assert response.json()["problems"] == ["grades.tsv.gz, file: larger than 100,000 bytes"]
    assert not MachineJudge.objects.exists()
