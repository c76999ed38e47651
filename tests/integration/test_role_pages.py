"""Each role sees its own links, decided by the role rules (assessment/roles.py), never by
``is_staff`` in a template; organizer pages say plainly when there is nothing to do."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

from collection.models import Campaign
from tests.factories import AssignmentFactory, RetrievalTaskFactory, TopicFactory, UserFactory
from tests.factories.pooling import TeamFactory

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def _home_links(user) -> set[str]:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    html = client.get("/").content.decode()
    cards = html[html.index('<div class="cards">') :]
    return set(re.findall(r"<h2>(\w+)</h2>", cards)) | set(re.findall(r">([^<>]+)</a></li>", cards))


def test_home_shows_each_role_only_its_cards_when_organizer_assessor_or_participant() -> None:
    organizer = UserFactory.create(username="org", is_staff=True)
    assessor = UserFactory.create(username="alice")
    participant = UserFactory.create(username="carol")
    TeamFactory.create(name="Lemma").members.add(participant)

    organizer_sees = _home_links(organizer)
    assert {"Assess", "Organize", "Automate", "Dashboard", "Admin"} <= organizer_sees
    assert "Upload and list runs" not in organizer_sees  # not in a team: Runs is under Organize

    assessor_sees = _home_links(assessor)
    assert {"Assess", "Automate", "My assignments"} <= assessor_sees
    assert not {"Organize", "Participate", "Upload and list runs", "Results"} & assessor_sees

    participant_sees = _home_links(participant)
    assert {"Participate", "Upload and list runs", "Results"} <= participant_sees
    assert not {"Organize", "Assess"} & participant_sees


def test_participant_with_assignments_sees_assess_too_when_given_topics() -> None:
    participant = UserFactory.create(username="dave")
    TeamFactory.create(name="Tangent").members.add(participant)
    AssignmentFactory.create(assessor=participant)
    assert {"Assess", "Participate"} <= _home_links(participant)


def test_no_template_asks_is_staff_when_the_role_rules_are_there() -> None:
    asking = [
        str(path.relative_to(TEMPLATES))
        for path in TEMPLATES.rglob("*.html")
        if "is_staff" in path.read_text() or "is_superuser" in path.read_text()
    ]
    assert asking == []


def test_campaign_description_is_rendered_as_markdown_when_organizer_opens_the_dashboard() -> None:
    task = RetrievalTaskFactory.create()
    Campaign.objects.filter(pk=task.campaign_id).update(
        description="Built by `manage.py demo`, see **the README**. <script>x()</script>"
    )
    client = Client()
    client.force_login(UserFactory.create(username="org", is_staff=True))
    html = client.get("/organize/").content.decode()
    assert "<code>manage.py demo</code>" in html
    assert "<strong>the README</strong>" in html
    assert "`manage.py demo`" not in html
    assert "<script>x()</script>" not in html  # raw HTML is text, never markup


def test_assignments_page_says_all_topics_are_assigned_instead_of_empty_forms() -> None:
    task = RetrievalTaskFactory.create()
    alice = UserFactory.create(username="alice")
    for number in ("A.1", "A.2"):
        topic = TopicFactory.create(task=task, number=number)
        AssignmentFactory.create(topic=topic, assessor=alice)
    client = Client()
    client.force_login(UserFactory.create(username="org", is_staff=True))
    html = client.get(f"/organize/task/{task.pk}/assignments/").content.decode()
    assert "Every topic has an official assessor" in html
    assert "Nothing to balance" in html
    assert "Spread the 0" not in html
    assert "(unassigned; Ctrl" not in html  # no empty list of topics to assign
    assert '<button type="submit" class="button-primary">Balance</button>' not in html

    TopicFactory.create(task=task, number="A.3")
    html = client.get(f"/organize/task/{task.pk}/assignments/").content.decode()
    assert "Spread the 1 unassigned topic so" in html
    assert '<button type="submit" class="button-primary">Balance</button>' in html
