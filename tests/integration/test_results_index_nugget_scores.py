"""The results index lists a RAG task for a participant whose team ran it only while its
nugget scores are published, with a link to them (the nuggets app's result source); an
organizer always sees the task with both links; nobody else sees it."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from nuggets.services.publication import nugget_scores_publish, nugget_scores_withdraw
from tests.factories.collection import UserFactory
from tests.factories.pooling import TeamFactory
from tests.integration.nugget_disputes import disputed_task

pytestmark = pytest.mark.django_db


def _client(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_participant_sees_their_rag_task_on_the_results_index_only_while_scores_are_published(
    django_assert_max_num_queries: Any,
) -> None:
    data = disputed_task()
    boss = UserFactory.create(username="boss", is_staff=True)
    carol = UserFactory.create(username="carol")
    data.teams["runB"].members.add(carol)
    dave = UserFactory.create(username="dave")  # a participant whose team did not run the task
    TeamFactory.create(name="team-other").members.add(dave)
    index = reverse("evaluation:index")
    scores = reverse("nuggets:published", args=[data.task.pk])
    results = reverse("evaluation:results", args=[data.task.pk])
    participant, outsider, organizer = _client(carol), _client(dave), _client(boss)

    def listed(client: Client) -> tuple[bool, bool, bool]:
        """(the task is listed, its nugget scores linked, its evaluation results linked)."""
        response = client.get(index)
        assert response.status_code == 200
        text = response.content.decode()
        return data.task in response.context["tasks"], f'href="{scores}"' in text, results in text

    assert listed(participant) == (False, False, False)
    # Organizers publish from the scores page, so they always have the link.
    assert listed(organizer) == (True, True, True)

    nugget_scores_publish(task=data.task, by=boss)
    with django_assert_max_num_queries(4):
        shown = listed(participant)
    # Its evaluation results are not published: no link to a page that would refuse them.
    assert shown == (True, True, False)
    assert participant.get(scores).status_code == 200
    assert listed(outsider) == (False, False, False)

    nugget_scores_withdraw(task=data.task, by=boss)
    assert listed(participant) == (False, False, False)
    assert participant.get(scores).status_code == 403
    with django_assert_max_num_queries(4):
        assert listed(organizer) == (True, True, True)

    nugget_scores_publish(task=data.task, by=boss)  # published again: listed again
    assert listed(participant) == (True, True, False)
