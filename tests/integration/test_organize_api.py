"""The organizer REST endpoints: staff only, same rules and errors as the pages."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from assessment.models import Assignment
from tests.factories import (
    AssignmentFactory,
    HitFactory,
    JudgmentFactory,
    PoolItemFactory,
    RetrievalTaskFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def api() -> APIClient:
    client = APIClient()
    client.force_authenticate(UserFactory.create(username="boss", is_staff=True))
    return client


def test_assign_then_list_when_organizer_posts_topics_by_number(api) -> None:
    task = RetrievalTaskFactory.create()
    topics = [TopicFactory.create(task=task) for _ in range(2)]
    ann = UserFactory.create(username="ann")
    url = reverse("assessment_api:organize-assignments", args=[task.pk])
    response = api.post(
        url,
        {"action": "assign", "topics": [t.number for t in topics], "assessor": "ann"},
        format="json",
    )
    assert response.status_code == 201
    assert [a["assessor"] for a in response.json()] == ["ann", "ann"]
    listed = api.get(url).json()
    assert sorted(a["topic"] for a in listed) == sorted(t.number for t in topics)
    assert Assignment.objects.filter(assessor=ann).count() == 2


@pytest.mark.parametrize(
    ("payload", "problem"),
    [
        ({"action": "assign", "topics": ["A.999"], "assessor": "ann"}, "no such topic"),
        ({"action": "assign", "topics": [], "assessor": "ann"}, "needs topics"),
        ({"action": "balance", "assessors": ["nobody"]}, "no such user: nobody"),
        ({"action": "dual", "assessors": ["ann"]}, "choose topics or a sample size"),
    ],
)
def test_post_answers_400_with_problems_when_request_breaks_a_rule(api, payload, problem) -> None:
    task = RetrievalTaskFactory.create()
    UserFactory.create(username="ann")
    url = reverse("assessment_api:organize-assignments", args=[task.pk])
    response = api.post(url, payload, format="json")
    assert response.status_code == 400
    assert any(problem in p for p in response.json()["problems"])
    assert not Assignment.objects.exists()


def test_move_and_revoke_keep_judgments_when_called_over_rest(api) -> None:
    judgment = JudgmentFactory.create()
    UserFactory.create(username="zoe")
    assignment, judged_by = judgment.assignment, judgment.assessor_id
    moved = api.post(
        reverse("assessment_api:organize-assignment-move", args=[assignment.pk]),
        {"assessor": "zoe"},
        format="json",
    )
    assert moved.status_code == 200
    assert moved.json()["assessor"] == "zoe"
    # The move answers with the new assignment; revoke that one.
    assert moved.json()["replaces"] == assignment.pk
    new_id = moved.json()["id"]
    revoked = api.post(reverse("assessment_api:organize-assignment-revoke", args=[new_id]))
    assert revoked.json()["revoked_at"] is not None
    judgment.refresh_from_db()
    assert judgment.assessor_id == judged_by


def test_agreement_lists_pairs_with_reasons_when_kappa_is_undefined(api) -> None:
    topic = TopicFactory.create()
    official = AssignmentFactory.create(topic=topic)
    dual = AssignmentFactory.create(topic=topic, purpose=Assignment.Purpose.DUAL)
    for grade in (2, 2, 2):
        hit = HitFactory.create(item=PoolItemFactory.create(topic=topic))
        JudgmentFactory.create(assignment=official, hit=hit, grade=grade)
        JudgmentFactory.create(assignment=dual, hit=hit, grade=grade)
    body = api.get(reverse("assessment_api:organize-agreement", args=[topic.task.pk])).json()
    [pair] = body["pairs"]
    assert pair["shared_hits"] == 3
    assert pair["kappa"] == {"value": None, "n": 3, "reason": "no variation"}
    assert pair["percentage"]["value"] == 1.0


@pytest.mark.parametrize("staff", [False, None])
def test_endpoints_refuse_when_caller_is_not_an_organizer(staff) -> None:
    task = RetrievalTaskFactory.create()
    client = APIClient()
    if staff is not None:
        client.force_authenticate(UserFactory.create())
    for url in (
        reverse("assessment_api:organize-agreement", args=[task.pk]),
        reverse("assessment_api:organize-assignments", args=[task.pk]),
    ):
        assert client.get(url).status_code in {401, 403}
    assert client.post(
        reverse("assessment_api:organize-assignments", args=[task.pk]), {"action": "balance"}
    ).status_code in {401, 403}
