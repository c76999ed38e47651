"""GET/POST /api/qrels/ (staff) and GET /api/results/ (staff; participants once published)."""

import pytest
from rest_framework.test import APIClient

from evaluation.models import EvaluationJob, QrelsVersion
from evaluation.services import evaluation_job_run, qrels_export, results_publish
from tests.factories import UserFactory
from tests.integration.evaluation_data import judged_answer_task

pytestmark = pytest.mark.django_db


def client_for(*, staff: bool) -> tuple[APIClient, object]:
    client = APIClient()
    user = UserFactory.create(is_staff=staff)
    client.force_authenticate(user)
    return client, user


def test_staff_exports_lists_and_downloads_qrels_when_judged(
    django_assert_max_num_queries: object,
) -> None:
    data = judged_answer_task()
    client, _ = client_for(staff=True)
    created = client.post(
        "/api/qrels/", {"task": data.task.pk, "min_relevant": 3, "use_dual": True}, format="json"
    )
    assert created.status_code == 201, created.content
    assert created.json()["dropped_topics"][0]["topic"] == "A.2"
    with django_assert_max_num_queries(4):  # type: ignore[operator]
        listed = client.get(f"/api/qrels/?task={data.task.pk}")
    assert [v["id"] for v in listed.json()["results"]] == [created.json()["id"]]
    download = client.get(f"/api/qrels/{created.json()['id']}/download/")
    version = QrelsVersion.objects.get()
    assert download.content.decode() == version.content
    assert download["X-Qrels-Checksum"] == version.checksum


def test_export_is_400_with_reason_when_nothing_judged() -> None:
    data = judged_answer_task()
    client, _ = client_for(staff=True)
    response = client.post(
        "/api/qrels/", {"task": data.task.pk, "level": "instance"}, format="json"
    )
    assert response.status_code == 400
    assert "formula task only" in response.json()["detail"]


def test_qrels_endpoints_are_forbidden_when_not_staff() -> None:
    client, _ = client_for(staff=False)
    assert client.get("/api/qrels/").status_code == 403
    assert client.post("/api/qrels/", {}, format="json").status_code == 403


@pytest.mark.parametrize(("published", "expected"), [(False, []), (True, ["beta"])])
def test_participant_results_are_own_runs_only_when_published(
    published: bool, expected: list[str], django_assert_max_num_queries: object
) -> None:
    data = judged_answer_task()
    qrels = qrels_export(task=data.task)
    evaluation_job_run(job=EvaluationJob.objects.create(task=data.task, qrels=qrels))
    if published:
        results_publish(task=data.task, qrels=qrels, by=None)
    client, user = client_for(staff=False)
    data.beta.team.members.add(user)  # type: ignore[arg-type]
    with django_assert_max_num_queries(4):  # type: ignore[operator]
        response = client.get(f"/api/results/?task={data.task.pk}")
    assert [r["tag"] for r in response.json()["results"]] == expected
    staff, _ = client_for(staff=True)
    assert len(staff.get(f"/api/results/?qrels={qrels.pk}").json()["results"]) == 2
