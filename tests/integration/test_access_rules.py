"""The access rules of kernel.access as a table (role, object → allowed), and the pages and
REST endpoints checked against the same table, so that a copy drifting away fails here.

Roles: an anonymous visitor, a participant (team Alpha, run "alpha"), an assessor (the task's
official assessor, no team), an organizer (active staff) and a deactivated organizer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.http import Http404
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from assessment.access import assessor_candidates
from assessment.models import Assignment
from collection.access import task_for
from evaluation.access import results_open_to, results_visible_to
from evaluation.models import EvaluationJob, TaskPublication
from evaluation.services import (
    evaluation_job_run,
    qrels_export,
    results_publish,
    results_withdraw,
)
from kernel.access import is_organizer
from kernel.params import BadParameter
from pooling.access import runs_visible_to, teams_of
from pooling.models import Team
from tests.factories import RetrievalTaskFactory, RunFactory, UserFactory
from tests.integration.evaluation_data import JudgedTask, judged_answer_task

pytestmark = pytest.mark.django_db

ROLES = ["anonymous", "participant", "assessor", "organizer", "inactive_organizer"]


@dataclass
class World:
    data: JudgedTask
    users: dict[str, Any]

    def publish(self, published: bool) -> None:
        """Publish the task with its evaluated qrels, or withdraw it."""
        task, organizer = self.data.task, self.users["organizer"]
        if published:
            qrels = EvaluationJob.objects.get(task=task).qrels
            results_publish(task=task, qrels=qrels, by=organizer)
        elif TaskPublication.objects.filter(task=task, published=True).exists():
            results_withdraw(task=task, by=organizer)


@pytest.fixture
def world() -> World:
    data = judged_answer_task()
    evaluation_job_run(
        job=EvaluationJob.objects.create(task=data.task, qrels=qrels_export(task=data.task))
    )
    participant = UserFactory.create(username="pat")
    data.alpha.team.members.add(participant)
    official = Assignment.objects.filter(purpose="official").first()
    assert official is not None
    return World(
        data,
        {
            "anonymous": AnonymousUser(),
            "participant": participant,
            "assessor": official.assessor,
            "organizer": UserFactory.create(username="olga", is_staff=True),
            "inactive_organizer": UserFactory.create(
                username="ivan", is_staff=True, is_active=False
            ),
        },
    )


def _tags(queryset: Any, field: str = "tag") -> set[str]:
    return set(queryset.values_list(field, flat=True))


IS_ORGANIZER = {
    "anonymous": False,
    "participant": False,
    "assessor": False,
    "organizer": True,
    "inactive_organizer": False,
}
RUNS = {
    "anonymous": set(),
    "participant": {"alpha"},
    "assessor": set(),
    "organizer": {"alpha", "beta"},
    "inactive_organizer": set(),
}
# (results published?) → the run tags whose results each role sees
RESULTS = {
    False: {
        "anonymous": set(),
        "participant": set(),
        "assessor": set(),
        "organizer": {"alpha", "beta"},
        "inactive_organizer": set(),
    },
    True: {
        "anonymous": set(),
        "participant": {"alpha"},
        "assessor": set(),
        "organizer": {"alpha", "beta"},
        "inactive_organizer": set(),
    },
}
RESULTS_OPEN = {
    False: {"participant": False, "assessor": False, "organizer": True},
    True: {"participant": True, "assessor": True, "organizer": True},
}
TEAMS = {
    "anonymous": set(),
    "participant": {"Alpha"},
    "assessor": set(),
    "organizer": {"Alpha", "Beta"},
    "inactive_organizer": set(),
}
ASSESSOR_CANDIDATE = {
    "participant": False,  # a participant must not judge pools their runs fed
    "assessor": True,
    "organizer": False,
    "inactive_organizer": False,
}


@pytest.mark.parametrize("role", ROLES)
def test_rules_answer_as_the_table_says_when_asked_for_each_role(world: World, role: str) -> None:
    user = world.users[role]
    assert is_organizer(user) is IS_ORGANIZER[role]
    assert _tags(runs_visible_to(user)) == RUNS[role]
    assert _tags(runs_visible_to(user, RetrievalTaskFactory.create())) == set()
    assert _tags(teams_of(user), "name") == TEAMS[role]
    for published in (False, True):
        world.publish(published)
        seen = _tags(results_visible_to(user, world.data.task), "run__tag")
        assert seen == RESULTS[published][role], f"published={published}"
        assert _tags(results_visible_to(user), "run__tag") == RESULTS[published][role]
        if role in RESULTS_OPEN[published]:
            assert results_open_to(user, world.data.task) is RESULTS_OPEN[published][role]
    if role in ASSESSOR_CANDIDATE:
        assert assessor_candidates().filter(pk=user.pk).exists() is ASSESSOR_CANDIDATE[role]


@pytest.mark.parametrize(
    ("role", "raw", "found"),
    [
        ("organizer", "{task}", True),
        ("participant", "{task}", True),  # tasks are not secret to people who log in
        ("anonymous", "{task}", False),
        ("organizer", "9223372036854775807", False),
        ("organizer", "²", False),
        ("organizer", "0", False),
    ],
)
def test_task_lookup_finds_the_task_or_answers_404_when_asked(
    world: World, role: str, raw: str, found: bool
) -> None:
    raw = raw.format(task=world.data.task.pk)
    if found:
        task = task_for(world.users[role], raw)
        assert task == world.data.task
        assert task.campaign.name  # loaded with the task
    else:
        with pytest.raises(Http404):
            task_for(world.users[role], raw)


def test_bad_task_id_names_the_parameter_when_not_a_number(world: World) -> None:
    with pytest.raises(BadParameter, match="task: must be a whole number"):
        task_for(world.users["organizer"], "٣")


def _client(world: World, role: str) -> Client:
    client = Client()
    if role != "anonymous":
        client.force_login(world.users[role])
    return client


ORGANIZER_PAGES = [
    ("assessment:organize", False),
    ("assessment:organize_task", True),
    ("pooling:pools", False),
    ("pooling:pool", True),
    ("evaluation:qrels", True),
]
PAGE_STATUS = {"anonymous": 302, "participant": 403, "assessor": 403, "organizer": 200}


@pytest.mark.parametrize("role", PAGE_STATUS)
@pytest.mark.parametrize(("name", "with_task"), ORGANIZER_PAGES)
def test_organizer_pages_share_one_gate_when_each_role_asks(
    world: World, role: str, name: str, with_task: bool
) -> None:
    args = [world.data.task.pk] if with_task else []
    response = _client(world, role).get(reverse(name, args=args))
    assert response.status_code == PAGE_STATUS[role]
    if role == "anonymous":
        assert response["Location"].startswith(reverse("login"))


ORGANIZER_ENDPOINTS = [
    "pooling_api:pool-stats",
    "assessment_api:organize-agreement",
    "assessment_api:organize-assignments",
    "evaluation_api:qrels-list",
]


@pytest.mark.parametrize("role", ["participant", "assessor", "organizer", "inactive_organizer"])
@pytest.mark.parametrize("name", ORGANIZER_ENDPOINTS)
def test_organizer_endpoints_share_the_pages_rule_when_each_role_asks(
    world: World, role: str, name: str
) -> None:
    client = APIClient()
    client.force_authenticate(world.users[role])
    args = [] if name == "evaluation_api:qrels-list" else [world.data.task.pk]
    status = client.get(reverse(name, args=args)).status_code
    assert (status == 200) is IS_ORGANIZER[role]
    assert status in (200, 403)


@pytest.mark.parametrize("published", [False, True])
@pytest.mark.parametrize("role", ["participant", "assessor", "organizer"])
def test_pages_and_api_show_the_runs_and_results_of_the_table_when_each_role_asks(
    world: World, role: str, published: bool
) -> None:
    world.publish(published)
    client = _client(world, role)
    api = APIClient()
    api.force_authenticate(world.users[role])
    assert {run["tag"] for run in api.get("/api/runs/").json()["results"]} == RUNS[role]
    assert {run.tag for run in client.get(reverse("pooling:runs")).context["runs"]} == RUNS[role]
    results = api.get(reverse("evaluation_api:results-list")).json()["results"]
    assert {r["tag"] for r in results} == RESULTS[published][role]
    page = client.get(reverse("evaluation:results", args=[world.data.task.pk]))
    assert page.status_code == (200 if RESULTS_OPEN[published][role] else 403)
    if page.status_code == 200:
        assert {row["tag"] for row in page.context["rows"]} == RESULTS[published][role]
    index = client.get(reverse("evaluation:index")).context["tasks"]
    assert (world.data.task in index) is bool(RESULTS[published][role])


def test_api_refuses_to_give_topics_to_a_participant_when_the_pages_would_too(
    world: World,
) -> None:
    api = APIClient()
    api.force_authenticate(world.users["organizer"])
    url = reverse("assessment_api:organize-assignments", args=[world.data.task.pk])
    body = {"action": "balance", "assessors": ["pat"]}
    response = api.post(url, body, format="json")
    assert response.status_code == 400
    assert response.json()["problems"] == [
        "pat cannot be given topics (an organizer, a team member or inactive)"
    ]
    page = _client(world, "organizer").get(
        reverse("assessment:organize_assignments", args=[world.data.task.pk])
    )
    assert "pat" not in {user.username for user in page.context["assessors"]}


def test_upload_form_offers_only_own_teams_when_participant_opens_it(world: World) -> None:
    RunFactory.create(team=Team.objects.create(name="Gamma"))
    form = _client(world, "participant").get(reverse("pooling:runs")).context["form"]
    assert {team.name for team in form.fields["team"].queryset} == {"Alpha"}
    assert isinstance(world.users["participant"], User)
