"""Bad parameters get a clear answer naming what is wrong: a 400 naming the parameter in the
API, a 404 for a page whose id is bad, the field named in the judging form."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.integration.parameters.sweep import Campaign

pytestmark = pytest.mark.django_db


def _logged_in(campaign: Campaign, role: str) -> Client:
    client = Client()
    user = campaign.users[role]
    assert user is not None
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("task=%C2%B2", "task"),
        ("qrels=%D9%A3", "qrels"),
        ("limit=99999999999999999999999", "limit"),
        ("limit=1001", "limit"),
        ("limit=0", "limit"),
        ("offset=-1", "offset"),
        ("task=1&task=abc", "task"),
    ],
)
def test_api_answers_400_naming_the_parameter_when_a_value_is_bad(
    campaign: Campaign, query: str, parameter: str
) -> None:
    response = _logged_in(campaign, "organizer").get(f"/api/results/?{query}")
    assert response.status_code == 400
    assert response.json()["parameter"] == parameter
    assert response.json()["detail"].startswith(f"{parameter}: ")


def test_api_pages_within_bounds_when_limit_and_offset_are_good(campaign: Campaign) -> None:
    client = _logged_in(campaign, "organizer")
    body = client.get("/api/results/?limit=1").json()
    assert (body["count"], len(body["results"])) == (2, 1)
    assert client.get(f"/api/results/?offset={2**63 - 1}").json()["results"] == []


@pytest.mark.parametrize(
    "path",
    [
        "/runs/99999999999999999999/",
        "/api/runs/99999999999999999999/",
        f"/api/runs/{2**63}/",
        "/runs/0/",
        "/pools/%C2%B2/",
        "/results/{task}/?qrels=%C2%B2",
        "/results/{task}/download/csv/?qrels=99999999999999999999999",
    ],
)
def test_pages_answer_404_when_an_id_is_bad(campaign: Campaign, path: str) -> None:
    client = _logged_in(campaign, "organizer")
    assert client.get(path.format(task=campaign.ids["task"])).status_code == 404


def test_judging_form_names_the_field_when_a_choice_is_tampered(campaign: Campaign) -> None:
    client = _logged_in(campaign, "assessor")
    hit = campaign.ids["hit"]
    url = f"/assess/{campaign.ids['assignment']}/{campaign.ids['item']}/"
    response = client.post(url, {f"choice-{hit}": "²", "opened_at": "1"})
    assert response.status_code == 400
    assert f"choice-{hit}: must be one of 0, 1, 2, 3, 4" in response.content.decode()


def test_item_list_ignores_a_bad_filter_with_a_message_when_show_is_unknown(
    campaign: Campaign,
) -> None:
    client = _logged_in(campaign, "assessor")
    response = client.get(f"/assess/{campaign.ids['assignment']}/items/?show=%C2%B2")
    assert response.status_code == 200
    assert response.context["show"] == "all"
    assert "Ignored show: must be one of" in response.content.decode()
