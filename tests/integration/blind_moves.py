"""Alice's judged topic, moved by the organizer over REST, and what the blind-move tests read
back: her judgments with their history, the pages and API the new assessor reaches, the qrels."""

from __future__ import annotations

import json

from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from assessment.models import Assignment, Judgment
from assessment.services.judging import judgment_submit
from evaluation.core.qrels import QrelsPolicy
from evaluation.services import qrels_export
from tests.factories import UserFactory
from tests.integration.test_judging_pools import Pool, assign

SECRET = "alice-private-comment-7781"
CONTINUE, START_OVER = Assignment.Handover.CONTINUE, Assignment.Handover.START_OVER


def export(pool):  # type: ignore[no-untyped-def]
    """Qrels of whose judgment counts: no topic dropped for too few relevant items, and items
    left unjudged on purpose do not stop the export."""
    return qrels_export(task=pool.topic.task, policy=QrelsPolicy(), allow_incomplete=True)


def judged_by_alice(pool: Pool) -> Assignment:
    """Alice's official assignment: hit 0 graded Low then High, hit 1 flagged."""
    old = assign(pool, "alice")
    alice = old.assessor
    first, second = pool.hits[0][0], pool.hits[1][0]
    judgment_submit(assignment=old, hit=first, assessor=alice, grade=1, comment="first look")
    judgment_submit(assignment=old, hit=first, assessor=alice, grade=3, comment=SECRET)
    judgment_submit(assignment=old, hit=second, assessor=alice, flag="dont_know", comment=SECRET)
    return old


def organizer_api() -> APIClient:
    api = APIClient()
    api.force_authenticate(UserFactory.create(username="boss", is_staff=True))
    return api


def move_over_rest(old: Assignment, handover: str, to: str = "bob") -> dict:
    if not User.objects.filter(username=to).exists():
        UserFactory.create(username=to)
    response = organizer_api().post(
        reverse("assessment_api:organize-assignment-move", args=[old.pk]),
        {"assessor": to, "handover": handover},
        format="json",
    )
    assert response.status_code == 200, response.content
    return response.json()


def logged_in(username: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


def judge_url(assignment_id: int, item_id: int) -> str:
    return reverse("assessment:judge", args=[assignment_id, item_id])


def api_url(assignment_id: int, item_id: int) -> str:
    return reverse("assessment_api:item-judgments", args=[assignment_id, item_id])


def post_json(client: Client, url: str, body: dict):  # type: ignore[no-untyped-def]
    return client.post(url, data=json.dumps(body), content_type="application/json")


def alice_history(old: Assignment) -> list[tuple]:
    """Alice's judgments and every revision, as stored."""
    judgments = Judgment.objects.filter(assignment=old).order_by("hit_id")
    return [
        (
            j.hit_id,
            j.assessor.username,
            j.grade,
            j.flag,
            j.comment,
            j.revision,
            [(r.number, r.changed_by.username, r.grade) for r in j.revisions.all()],
        )
        for j in judgments
    ]


def grade(assignment: Assignment, pool: Pool, index: int, value: int) -> None:
    judgment_submit(
        assignment=assignment, hit=pool.hits[index][0], assessor=assignment.assessor, grade=value
    )


def rows(pool: Pool, version) -> list[tuple[int, int]]:  # type: ignore[no-untyped-def]
    """(item index, grade) of every qrels line."""
    index = {item.key: i for i, item in enumerate(pool.items)}
    lines = [line.split("\t") for line in version.content.splitlines()]
    return sorted((index[key], int(value)) for _topic, _zero, key, value in lines)
