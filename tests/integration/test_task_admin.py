"""A task created in the admin starts with its kind's defaults, except what the organizer set."""

import pytest
from django.test import Client
from django.urls import reverse

from collection.models import RetrievalTask
from tests.factories import UserFactory
from tests.factories.collection import CampaignFactory

pytestmark = pytest.mark.django_db


def _add_form(client: Client) -> dict[str, str]:
    """The admin's add form as offered: every field with the value it shows."""
    response = client.get(reverse("admin:collection_retrievaltask_add"))
    form = response.context["adminform"].form
    return {
        name: "" if value is None else str(value)
        for name, value in ((n, form[n].value()) for n in form.fields)
        if not (isinstance(value, bool) and not value)
    }


def test_a_task_added_in_the_admin_takes_its_kind_defaults_but_keeps_what_was_typed() -> None:
    client = Client()
    client.force_login(UserFactory.create(is_staff=True, is_superuser=True))
    campaign = CampaignFactory.create()
    data = _add_form(client)
    data.update(campaign=str(campaign.pk), name="task1", kind="answer", alternate_depth="30")
    response = client.post(reverse("admin:collection_retrievaltask_add"), data, follow=True)
    assert response.status_code == 200, response.content[:500]
    task = RetrievalTask.objects.get(campaign=campaign)
    assert (task.primary_depth, task.alternate_depth, task.min_relevant) == (45, 30, 2)
    assert "starts with its kind&#x27;s defaults" in response.content.decode()


def test_an_openqa_task_added_in_the_admin_keeps_every_topic() -> None:
    client = Client()
    client.force_login(UserFactory.create(is_staff=True, is_superuser=True))
    campaign = CampaignFactory.create()
    data = _add_form(client)
    data.update(campaign=str(campaign.pk), name="task3", kind="openqa")
    client.post(reverse("admin:collection_retrievaltask_add"), data)
    assert RetrievalTask.objects.get(campaign=campaign).min_relevant == 0
