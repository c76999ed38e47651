"""/api/runs/: upload every format, the permission matrix, atomicity, deadline, throttling."""

from __future__ import annotations

import gzip
from datetime import timedelta
from typing import Any

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from collection.models import RetrievalTask
from pooling.models import Run, RunRow
from pooling.services.runs import token_create
from tests.factories.collection import (
    FormulaFactory,
    PostFactory,
    RetrievalTaskFactory,
    TopicFactory,
    UserFactory,
)
from tests.factories.pooling import RunFactory, RunRowFactory, TeamFactory

pytestmark = pytest.mark.django_db

TASK1 = "A.1\t501\t1\t0.9\tmyrun\nA.1\t502\t2\t0.5\tmyrun\nA.2\t501\t1\t0.7\tmyrun\n"


@pytest.fixture
def task() -> RetrievalTask:
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.ANSWER)
    TopicFactory.create(task=task, number="A.1")
    TopicFactory.create(task=task, number="A.2")
    return task


@pytest.fixture
def teams() -> dict[str, Any]:
    alice, bob = UserFactory.create(username="alice"), UserFactory.create(username="bob")
    team_a, team_b = TeamFactory.create(name="TeamA"), TeamFactory.create(name="TeamB")
    team_a.members.add(alice)
    team_b.members.add(bob)
    return {"alice": alice, "bob": bob, "A": team_a, "B": team_b}


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=user).key}")
    return client


def upload(client: APIClient, task: RetrievalTask, text: str | bytes, **fields: Any) -> Any:
    data = text.encode() if isinstance(text, str) else text
    body = {
        "file": SimpleUploadedFile(fields.pop("name", "run.tsv"), data),
        "task": task.pk,
        "tag": "myrun",
        "role": "primary",
        **fields,
    }
    return client.post("/api/runs/", body, format="multipart")


def test_upload_stores_run_and_rows_when_file_is_valid(task, teams) -> None:
    response = upload(client_for(teams["alice"]), task, TASK1)
    assert response.status_code == 201, response.json()
    body = response.json()
    run = Run.objects.get(pk=body["run"]["id"])
    assert (run.team, run.tag, run.row_count, run.version) == (teams["A"], "myrun", 3, 1)
    assert run.file_format == "arqmath-answer"
    assert len(run.checksum) == 64
    assert run.uploaded_by == teams["alice"]
    rows = list(RunRow.objects.filter(run=run).order_by("topic__number", "rank"))
    assert [(r.topic.number, r.post_id, r.rank, r.score) for r in rows] == [
        ("A.1", 501, 1, 0.9),
        ("A.1", 502, 2, 0.5),
        ("A.2", 501, 1, 0.7),
    ]
    assert body["created"] is True


@pytest.mark.parametrize(
    ("kind", "text", "expected"),
    [
        ("answer", "A.1 Q0 501 1 0.9 myrun\r\n", (501, None, "")),
        ("formula", "B.1\t77\t501\t1\t0.9\tmyrun\n", (501, 77, "")),
        ("formula", "B.1\tQ0\t77\t1\t0.9\tmyrun\n", (501, 77, "")),
        ("openqa", "A.1\t1\t0.9\tmyrun\t501\tTry $x=1$.\tThen done.\n", (None, None, "Try")),
    ],
)
def test_every_format_is_accepted_when_uploaded_over_rest(teams, kind, text, expected) -> None:
    task = RetrievalTaskFactory.create(kind=kind)
    TopicFactory.create(task=task, number="B.1" if kind == "formula" else "A.1")
    post = PostFactory.create(id=501)
    FormulaFactory.create(formula_id=77, post=post)
    data = gzip.compress(text.encode()) if kind == "formula" else text
    response = upload(client_for(teams["alice"]), task, data)
    assert response.status_code == 201, response.json()
    row = RunRow.objects.get(run_id=response.json()["run"]["id"])
    assert (row.post_id, row.formula_id, row.answer[:3]) == expected


def test_every_problem_is_reported_by_line_and_nothing_stored_when_file_is_bad(task, teams) -> None:
    bad = "A.1\t501\t1\t0.9\tmyrun\nA.1\t502\tx\t0.5\tmyrun\nA.9\t503\t3\tnan\tmyrun\n"
    response = upload(client_for(teams["alice"]), task, bad)
    assert response.status_code == 400
    errors = response.json()["report"]["errors"]
    assert [(e["line"], e["field"]) for e in errors] == [(2, "rank"), (3, "score")]
    assert not Run.objects.exists()
    assert not RunRow.objects.exists()


def test_failed_replacement_leaves_the_previous_run_as_it_was(task, teams) -> None:
    client = client_for(teams["alice"])
    assert upload(client, task, TASK1).status_code == 201
    run = Run.objects.get()
    before = list(RunRow.objects.filter(run=run).values_list("post_id", "rank", "score"))
    response = upload(client, task, "A.1\t999\t1\t0.9\tmyrun\nA.1\t999\t2\t0.8\tmyrun\n")
    assert response.status_code == 400
    run.refresh_from_db()
    assert run.version == 1
    after = list(RunRow.objects.filter(run=run).values_list("post_id", "rank", "score"))
    assert after == before


def test_reupload_replaces_rows_and_bumps_version_when_before_deadline(task, teams) -> None:
    client = client_for(teams["alice"])
    upload(client, task, TASK1)
    response = upload(client, task, "A.2\t777\t1\t3.5\tmyrun\n", description="v2")
    assert response.status_code == 201
    assert response.json()["created"] is False
    run = Run.objects.get()
    assert (run.version, run.row_count, run.description) == (2, 1, "v2")
    assert list(RunRow.objects.filter(run=run).values_list("post_id", flat=True)) == [777]


def test_upload_is_refused_with_a_clear_message_when_deadline_passed(task, teams) -> None:
    task.campaign.submission_deadline = timezone.now() - timedelta(hours=1)
    task.campaign.save()
    response = upload(client_for(teams["alice"]), task, TASK1)
    assert response.status_code == 400
    assert "deadline" in response.json()["detail"]
    assert not Run.objects.exists()


def test_second_primary_run_is_refused_when_campaign_allows_one(task, teams) -> None:
    client = client_for(teams["alice"])
    assert upload(client, task, TASK1).status_code == 201
    response = upload(client, task, TASK1.replace("myrun", "other"), tag="other")
    assert response.status_code == 400
    assert "limit is 1" in response.json()["detail"]
    assert (
        upload(client, task, TASK1.replace("myrun", "alt"), tag="alt", role="alternate").status_code
        == 201
    )


@pytest.mark.parametrize("tag", ["has space", "x" * 41, "ümlaut", "semi;colon"])
def test_bad_tag_is_refused_when_uploading(task, teams, tag) -> None:
    response = upload(client_for(teams["alice"]), task, TASK1, tag=tag)
    assert response.status_code == 400
    assert not Run.objects.exists()


# --- Permission matrix --------------------------------------------------------------------


def test_anonymous_gets_401_when_listing_reading_or_uploading(task, teams) -> None:
    run = RunFactory.create(task=task, team=teams["A"])
    client = APIClient()
    assert client.get("/api/runs/").status_code == 401
    assert client.get(f"/api/runs/{run.pk}/").status_code == 401
    assert upload(client, task, TASK1).status_code == 401
    assert Run.objects.count() == 1


def test_participant_lists_only_own_team_runs_when_other_teams_have_runs(
    task, teams, django_assert_max_num_queries
) -> None:
    mine = [RunFactory.create(task=task, team=teams["A"]) for _ in range(3)]
    RunFactory.create(task=task, team=teams["B"])
    client = client_for(teams["alice"])
    with django_assert_max_num_queries(6):
        response = client.get("/api/runs/")
    assert response.status_code == 200
    assert sorted(r["id"] for r in response.json()["results"]) == sorted(r.pk for r in mine)


def test_participant_cannot_read_another_teams_run_when_asking_by_id(task, teams) -> None:
    theirs = RunFactory.create(task=task, team=teams["B"], report={"warnings": []})
    assert client_for(teams["alice"]).get(f"/api/runs/{theirs.pk}/").status_code == 404
    response = client_for(teams["bob"]).get(f"/api/runs/{theirs.pk}/")
    assert response.status_code == 200
    assert response.json()["report"] == {"warnings": []}


def test_participant_cannot_replace_another_teams_run_when_naming_their_team(task, teams) -> None:
    theirs = RunFactory.create(task=task, team=teams["B"], tag="myrun")
    RunRowFactory.create(run=theirs, topic=task.topics.first(), post_id=1)
    response = upload(client_for(teams["alice"]), task, TASK1, team="TeamB")
    assert response.status_code == 400
    assert "not a member" in response.json()["detail"]
    theirs.refresh_from_db()
    assert theirs.version == 1
    assert list(theirs.rows.values_list("post_id", flat=True)) == [1]


@pytest.mark.parametrize(
    "field", [{"is_baseline": "true"}, {"pool_as_primary": "true"}, {"depth_override": "10"}]
)
def test_participant_cannot_set_organizer_only_fields(task, teams, field) -> None:
    response = upload(client_for(teams["alice"]), task, TASK1, **field)
    assert response.status_code == 400
    assert set(field) <= set(response.json())
    assert not Run.objects.exists()


def test_staff_sees_every_run_and_sets_organizer_fields_for_any_team(task, teams) -> None:
    staff = UserFactory.create(username="organizer", is_staff=True)
    RunFactory.create(task=task, team=teams["B"])
    client = client_for(staff)
    response = upload(
        client,
        task,
        TASK1,
        team="TeamA",
        is_baseline="true",
        pool_as_primary="true",
        depth_override="30",
    )
    assert response.status_code == 201, response.json()
    run = Run.objects.get(pk=response.json()["run"]["id"])
    assert (run.team, run.is_baseline, run.pool_as_primary, run.depth_override) == (
        teams["A"],
        True,
        True,
        30,
    )
    assert client.get("/api/runs/").json()["count"] == 2


def test_session_login_works_when_no_token(task, teams) -> None:
    client = APIClient()
    client.force_login(teams["alice"])
    assert client.get("/api/runs/").status_code == 200


def test_uploads_are_throttled_when_rate_is_exceeded(task, teams, monkeypatch) -> None:
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"run_upload": "2/hour"})
    cache.clear()
    client = client_for(teams["alice"])
    codes = [upload(client, task, "garbage").status_code for _ in range(3)]
    assert codes == [400, 400, 429]
    assert client.get("/api/runs/").status_code == 200  # reading is not throttled
    cache.clear()


def test_schema_lists_the_runs_endpoints_when_requested(teams) -> None:
    client = client_for(teams["alice"])
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    assert {"/api/runs/", "/api/runs/{id}/"} <= set(schema["paths"])
    assert "post" in schema["paths"]["/api/runs/"]


def test_upload_is_refused_when_the_tasks_own_deadline_passed(task, teams) -> None:
    task.campaign.submission_deadline = timezone.now() + timedelta(days=1)
    task.campaign.save()
    task.submission_deadline = timezone.now() - timedelta(minutes=1)
    task.save()
    response = upload(client_for(teams["alice"]), task, TASK1)
    assert response.status_code == 400
    assert "deadline" in response.json()["detail"]


def test_file_over_the_size_setting_is_refused_by_line_when_uploaded(task, teams, settings) -> None:
    settings.RUN_FILE_MAX_BYTES = 40
    response = upload(client_for(teams["alice"]), task, TASK1)
    assert response.status_code == 400
    (error,) = response.json()["report"]["errors"]
    assert error["message"] == "file is larger than the limit of 40 bytes"
    assert error["line"] == 3  # lines 1-2 are exactly 40 bytes
    assert not Run.objects.exists()


def test_member_of_two_teams_must_name_one_when_uploading(task, teams) -> None:
    teams["B"].members.add(teams["alice"])
    client = client_for(teams["alice"])
    response = upload(client, task, TASK1)
    assert response.status_code == 400
    assert "name your team" in response.json()["detail"]
    assert upload(client, task, TASK1, team="TeamB").status_code == 201
    assert Run.objects.get().team == teams["B"]


def test_openqa_answers_take_the_answer_tasks_topics_when_the_task_has_none(teams) -> None:
    answer_task = RetrievalTaskFactory.create(kind="answer")
    TopicFactory.create(task=answer_task, number="A.301")
    openqa = RetrievalTaskFactory.create(
        kind="openqa", campaign=answer_task.campaign, answer_task=answer_task
    )
    text = "A.301\t1\t0.8\tmyrun\tgpt\tUse $e^{i\\pi}=-1$ here.\n"
    response = upload(client_for(teams["alice"]), openqa, text)
    assert response.status_code == 201, response.json()
    row = RunRow.objects.get()
    assert (row.topic.number, row.answer, row.sources) == (
        "A.301",
        "Use $e^{i\\pi}=-1$ here.",
        "gpt",
    )
