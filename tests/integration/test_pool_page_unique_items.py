"""The pool page's "unique items per team" says what happened: nothing built yet, or a build
whose every item came from the runs of two teams or more (runs that overlap fully)."""

from __future__ import annotations

from django.test import Client
from django.urls import reverse

from pooling.models import PoolItem
from pooling.services.pools import pool_build
from tests.factories.collection import UserFactory
from tests.integration.test_priority_pools import document_task, shuffled_runs


def unique_items_note(client: Client, task_id: int) -> str:
    page = client.get(reverse("pooling:pool", args=[task_id])).content.decode()
    return page.split('id="no-unique-items">', 1)[1].split("</p>", 1)[0]


def test_pool_page_says_every_item_came_from_two_teams_when_runs_overlap_fully(db) -> None:
    # The same seed: both teams' runs rank the same documents (only their tags differ).
    task = document_task("Overlap", shuffled_runs({"first": 5, "second": 5}))
    organizer = Client()
    organizer.force_login(UserFactory.create(username="org", is_staff=True))
    assert unique_items_note(organizer, task.pk) == "Nothing pooled yet."

    pool_build(task=task)

    items = PoolItem.objects.filter(topic__task=task).count()
    assert items > 0
    assert unique_items_note(organizer, task.pk) == (
        f"No team pooled an item of its own: each of the {items} pool items came from the "
        "runs of two teams or more."
    )
