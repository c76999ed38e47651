"""The judges' REST endpoints and pages: organizers only; hostile fields answer 400 naming the
field, never a 500, and nothing is stored."""

from __future__ import annotations

import pytest
from django.test import Client

from judges.models import JudgeEndpoint, JudgePrompt, JudgeRun
from tests.factories.collection import UserFactory
from tests.integration.judge_server import judged_document_task

pytestmark = pytest.mark.django_db

GOOD = {"name": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m"}


def _client(staff: bool = True) -> Client:
    client = Client()
    client.force_login(UserFactory.create(is_staff=staff))
    return client


def test_endpoints_are_created_listed_and_removed_over_rest_by_organizers_only() -> None:
    assert _client(staff=False).get("/api/judges/endpoints/").status_code == 403
    client = _client()
    made = client.post(
        "/api/judges/endpoints/", {**GOOD, "api_key_env": "MY_KEY"}, "application/json"
    )
    assert made.status_code == 201
    assert made.json()["api_key_env"] == "MY_KEY"
    assert [e["name"] for e in client.get("/api/judges/endpoints/").json()] == ["local"]
    again = client.post("/api/judges/endpoints/", GOOD, "application/json")
    assert again.status_code == 400
    assert "exists" in again.json()["problems"][0]
    assert client.delete(f"/api/judges/endpoints/{made.json()['id']}/").status_code == 204
    assert not JudgeEndpoint.objects.exists()


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("base_url", "javascript:alert(1)", "base URL"),
        ("base_url", "http://me:sk-123@host/v1", "no user or password"),
        ("base_url", "http://ho st/v1", "base URL"),
        ("api_key_env", "sk-live-abcdef0123", "API key variable"),
        ("name", "../../etc", "name"),
        ("model", "m\x00", "model"),
        ("concurrency", 0, "concurrency"),
        ("timeout_seconds", -1, "timeout_seconds"),
    ],
)
def test_a_hostile_endpoint_field_is_refused_by_name_and_nothing_stored(
    field: str, value: object, says: str
) -> None:
    answer = _client().post("/api/judges/endpoints/", {**GOOD, field: value}, "application/json")
    assert answer.status_code == 400
    assert says in " ".join(answer.json()["problems"])
    assert "sk-" not in answer.content.decode()  # a key pasted by mistake is not echoed
    assert not JudgeEndpoint.objects.exists()


def test_a_run_names_its_problems_when_started_with_bad_settings() -> None:
    task, _ = judged_document_task(topics=1, items=2)
    client = _client()
    client.post("/api/judges/endpoints/", GOOD, "application/json")
    url = f"/api/judges/tasks/{task.pk}/runs/"
    unknown = client.post(url, {"endpoint": "nope", "judge": "j"}, "application/json")
    assert unknown.status_code == 400
    version = client.post(
        url, {"endpoint": "local", "judge": "j", "prompt_version": 7}, "application/json"
    )
    assert "no version 7" in " ".join(version.json()["problems"])
    name = client.post(url, {"endpoint": "local", "judge": "x\x01"}, "application/json")
    assert name.status_code == 400
    assert not JudgeRun.objects.exists()


def test_the_prompt_page_versions_a_changed_prompt_and_refuses_unknown_placeholders() -> None:
    task, _ = judged_document_task(topics=1, items=1)
    client = _client()
    url = f"/organize/task/{task.pk}/judge-runs/"
    bad = client.post(url, {"action": "prompt", "template": "Judge {doc}"})
    assert bad.status_code == 400
    assert "{doc}" in bad.content.decode()
    ok = client.post(
        url, {"action": "prompt", "template": "T {title}\n{item}\nGrade: N", "note": "short"}
    )
    assert ok.status_code == 302
    client.post(url, {"action": "prompt", "template": "T {title}\n{item}\nGrade: N"})  # same again
    assert list(JudgePrompt.objects.values_list("version", flat=True)) == [1]
    assert (
        client.post(
            url, {"action": "probe", "topic": "99999999999999999999", "kind": "stuffed"}
        ).status_code
        == 404
    )


def test_a_queued_run_is_cancelled_over_rest_and_says_so() -> None:
    from config.celery import app as celery_app

    task, _ = judged_document_task(topics=1, items=2)
    client = _client()
    client.post("/api/judges/endpoints/", GOOD, "application/json")
    started = client.post(
        f"/api/judges/tasks/{task.pk}/runs/",
        {"endpoint": "local", "judge": "j"},
        "application/json",
    )
    assert started.status_code == 202
    assert started.json()["status"] == "pending"  # no worker listens here
    cancelled = client.delete(f"/api/judges/runs/{started.json()['id']}/")
    celery_app.control.purge()
    assert cancelled.json()["status"] == "failed"
    assert cancelled.json()["error"].startswith("Cancelled")
