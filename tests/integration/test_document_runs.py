"""TREC runs of document tasks: validated against the task's collection and topics,
every problem on its line, stored with their docnos only when the whole file is valid; through
import_run, import_runs, the REST upload and the web form."""

from __future__ import annotations

import gzip
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client
from rest_framework.test import APIClient

from collection.models import Document, RetrievalTask
from pooling.models import Run, RunRow
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

GOOD = (
    "301 Q0 news-0003 1 12.5 bm25\n"
    "301 Q0 news-0001 2 11.0 bm25\n"
    "301 Q0 back\\slash 3 10.0 bm25\n"
    "302 Q0 news-0001 1 9.0 bm25\n"
)
# One line per error kind; the line number and field each must be reported with.
BAD_LINES = [
    ("301 Q0 news-0001 1 2.0 bm25", None, None),
    ("301 Q0 news-0001 2 1.0 bm25", "doc", "document news-0001 repeated for topic 301"),
    ("301 Q0 LA-0101 3 1.0 bm25", "docno", "document 'LA-0101' is not in collection news"),
    ("399 Q0 news-0002 1 1.0 bm25", "topic", "topic '399' is not a topic of this task"),
    ("302 Q0 news-0002 first 1.0 bm25", "rank", "rank 'first' is not an integer"),
    ("302 Q0 news-0003 1001 1.0 bm25", "rank", "rank 1001 is outside 0..1000"),
    ("302 Q0 news-0004 3 high bm25", "score", "score 'high' is not a number"),
    ("302 Q0 news-0005 4 1.0 other", "run", "run tag 'other' is not 'bm25'"),
    ("302 Q0 news-0006 5 1.0", None, "5 columns where trec has 6"),
    ("302 Q0 " + "x" * 201 + " 6 1.0 bm25", "docno", "has 201 characters (at most 200)"),
]
BAD = "".join(line + "\n" for line, _field, _message in BAD_LINES)


@pytest.fixture
def task() -> RetrievalTask:
    news = DocumentCollectionFactory.create(name="news")
    for n in range(10):
        DocumentFactory.create(collection=news, docno=f"news-{n:04d}")
    DocumentFactory.create(collection=news, docno="back\\slash")
    DocumentFactory.create(collection=DocumentCollectionFactory(name="web"), docno="LA-0101")
    task = RetrievalTaskFactory.create(
        campaign__name="News-2026", kind=RetrievalTask.Kind.DOCUMENT, collection=news
    )
    TopicFactory.create(task=task, number="301")
    TopicFactory.create(task=task, number="302")
    return task


def stored_rows(run: Run) -> list[tuple[str, str, int, float, Any, Any]]:
    rows = RunRow.objects.filter(run=run).order_by("topic__number", "rank")
    return [(r.topic.number, r.docno, r.rank, r.score, r.post_id, r.formula_id) for r in rows]


def expected_problems() -> list[tuple[int, str | None, str]]:
    return [
        (line, field, message)
        for line, (_text, field, message) in enumerate(BAD_LINES, 1)
        if message is not None
    ]


def assert_every_problem_reported(report: dict[str, Any]) -> None:
    found = [(p["line"], p["field"], p["message"]) for p in report["errors"]]
    assert len(found) == len(BAD_LINES) - 1 == report["error_count"]
    for (line, field, message), (got_line, got_field, got_message) in zip(
        expected_problems(), found, strict=True
    ):
        assert (got_line, got_field) == (line, field)
        assert message in got_message


def import_run(path: Path) -> tuple[str, str, CommandError | None]:
    """The command's output, its error output and the error it ended with (if any)."""
    out, err = StringIO(), StringIO()
    args = ["--campaign=News-2026", "--task=document", "--team=Waterloo", "--tag=bm25"]
    try:
        call_command("import_run", str(path), *args, "--role=primary", stdout=out, stderr=err)
    except CommandError as error:
        return out.getvalue(), err.getvalue(), error
    return out.getvalue(), err.getvalue(), None


def test_import_run_stores_docnos_when_the_run_is_valid(task, tmp_path) -> None:
    path = tmp_path / "bm25.run.gz"
    path.write_bytes(gzip.compress(GOOD.encode()))
    output, _errors, failure = import_run(path)
    assert failure is None
    assert "imported Waterloo/bm25 as primary, 4 rows (trec" in output
    run = Run.objects.get(task=task)
    assert (run.file_format, run.row_count) == ("trec", 4)
    assert stored_rows(run) == [
        ("301", "news-0003", 1, 12.5, None, None),
        ("301", "news-0001", 2, 11.0, None, None),
        ("301", "back\\slash", 3, 10.0, None, None),
        ("302", "news-0001", 1, 9.0, None, None),
    ]


def test_import_run_reports_every_problem_on_its_line_and_stores_nothing(task, tmp_path) -> None:
    path = tmp_path / "bad.run"
    path.write_text(BAD)
    _output, printed, failure = import_run(path)
    assert str(failure) == "bad.run was not stored"
    for line, _field, message in expected_problems():
        assert f"line {line}: " in printed
        assert message in printed
    assert not Run.objects.exists()
    assert not RunRow.objects.exists()


def test_import_runs_takes_document_runs_named_like_arqmath_files(task, tmp_path) -> None:
    (tmp_path / "Waterloo-document-bm25-auto-both-P.tsv").write_text(GOOD)
    (tmp_path / "Waterloo-task1-other-auto-both-A.tsv").write_text(GOOD)
    out = StringIO()
    call_command(
        "import_runs", str(tmp_path), "--campaign=News-2026", "--task=document", stdout=out
    )
    assert "1 run(s) stored, 0 not stored" in out.getvalue()
    assert Run.objects.get().tag == "bm25"


def test_docnos_are_checked_in_chunks_when_a_run_names_more_than_one_chunk(task) -> None:
    """25,000 distinct docnos: the lookup's second chunk finds the one unknown docno."""
    news = task.collection
    Document.objects.bulk_create(
        Document(collection=news, docno=f"big-{n:05d}", checksum="0" * 32) for n in range(24_999)
    )
    lines = [
        f"{300 + t // 1000 + 1} Q0 big-{t:05d} {t % 1000 + 1} {1000 - t % 1000} big"
        for t in range(25_000)
    ]
    topics = {line.split()[0] for line in lines}
    for number in topics - {"301", "302"}:
        TopicFactory.create(task=task, number=number)
    upload = "\n".join(lines).encode()
    client = APIClient()
    organizer = UserFactory.create(username="org", is_staff=True)
    team = TeamFactory.create(name="Big")
    team.members.add(organizer)
    client.force_authenticate(organizer)
    body = {"file": SimpleUploadedFile("big.run", upload), "task": task.pk, "tag": "big"}
    response = client.post("/api/runs/", {**body, "role": "primary"}, format="multipart")
    assert response.status_code == 400
    report = response.json()["report"]
    assert [(p["line"], p["message"]) for p in report["errors"]] == [
        (25_000, "document 'big-24999' is not in collection news")
    ]
    Document.objects.create(collection=news, docno="big-24999", checksum="0" * 32)
    body["file"] = SimpleUploadedFile("big.run", upload)
    response = client.post("/api/runs/", {**body, "role": "primary"}, format="multipart")
    assert response.status_code == 201, response.json()
    assert RunRow.objects.filter(run__tag="big").count() == 25_000


@pytest.fixture
def member() -> Any:
    user = UserFactory.create(username="alice")
    team = TeamFactory.create(name="Waterloo")
    team.members.add(user)
    return user


def api_upload(user: Any, task: RetrievalTask, text: str) -> Any:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=user).key}")
    body = {
        "file": SimpleUploadedFile("bm25.run", text.encode()),
        "task": task.pk,
        "tag": "bm25",
        "role": "primary",
    }
    return client.post("/api/runs/", body, format="multipart")


def test_rest_upload_stores_a_valid_document_run(task, member) -> None:
    response = api_upload(member, task, GOOD)
    assert response.status_code == 201, response.json()
    assert response.json()["run"]["task_kind"] == "document"
    run = Run.objects.get(pk=response.json()["run"]["id"])
    assert [row[:3] for row in stored_rows(run)][:2] == [
        ("301", "news-0003", 1),
        ("301", "news-0001", 2),
    ]


def test_rest_upload_reports_every_error_kind_by_line_and_stores_nothing(task, member) -> None:
    response = api_upload(member, task, BAD)
    assert response.status_code == 400
    assert_every_problem_reported(response.json()["report"])
    assert not Run.objects.exists()
    assert not RunRow.objects.exists()


def test_web_form_reports_problems_and_stores_a_valid_run(task, member) -> None:
    client = Client()
    client.force_login(member)
    team = member.teams.get()

    def post(text: str) -> Any:
        form = {
            "task": task.pk,
            "team": team.pk,
            "tag": "bm25",
            "role": "primary",
            "declared_data": "both",
            "description": "",
            "file": SimpleUploadedFile("bm25.run", text.encode()),
        }
        return client.post("/runs/", form, HTTP_ACCEPT="application/json")

    refused = post(BAD)
    assert refused.status_code == 400
    assert_every_problem_reported(refused.json()["report"])
    assert not Run.objects.exists()
    accepted = post(GOOD)
    assert accepted.status_code == 200, accepted.json()
    assert Run.objects.get().row_count == 4
