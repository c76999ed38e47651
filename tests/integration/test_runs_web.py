"""/runs/: participants list their team's runs, upload one and read every problem by line."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from collection.models import RetrievalTask
from pooling.models import Run, RunRow
from tests.factories.collection import RetrievalTaskFactory, TopicFactory, UserFactory
from tests.factories.pooling import RunFactory, TeamFactory

pytestmark = pytest.mark.django_db

GOOD = "A.1 Q0 501 1 0.9 web\nA.1 Q0 502 2 0.5 web\n"
BAD = "A.1 Q0 501 1 0.9 web\nA.1 Q0 501 2 0.5 web\nA.1 Q0 503 zero 0.5 web\n"


@pytest.fixture
def setup() -> dict[str, Any]:
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.ANSWER)
    TopicFactory.create(task=task, number="A.1")
    alice = UserFactory.create(username="alice")
    team = TeamFactory.create(name="TeamA")
    team.members.add(alice)
    other = TeamFactory.create(name="TeamB")
    client = Client()
    client.force_login(alice)
    return {"task": task, "team": team, "other": other, "client": client}


def post(setup: dict[str, Any], text: str, **headers: Any) -> Any:
    form = {
        "task": setup["task"].pk,
        "team": setup["team"].pk,
        "tag": "web",
        "role": "primary",
        "declared_data": "both",
        "description": "",
        "file": SimpleUploadedFile("web.tsv", text.encode()),
    }
    return setup["client"].post("/runs/", form, **headers)


def test_page_lists_only_own_team_runs_when_others_exist(
    setup, django_assert_max_num_queries
) -> None:
    for n in range(5):
        RunFactory.create(task=setup["task"], team=setup["team"], tag=f"mine{n}")
    RunFactory.create(task=setup["task"], team=setup["other"], tag="theirs")
    with django_assert_max_num_queries(10):
        response = setup["client"].get("/runs/")
    html = response.content.decode()
    assert response.status_code == 200
    assert all(f"mine{n}" in html for n in range(5))
    assert "theirs" not in html
    assert 'id="upload-form"' in html


def test_upload_redirects_to_the_run_report_when_valid_without_javascript(setup) -> None:
    response = post(setup, GOOD)
    run = Run.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/runs/{run.pk}/"
    page = setup["client"].get(response["Location"])
    assert "Accepted." in page.content.decode()
    assert RunRow.objects.filter(run=run).count() == 2


def test_every_problem_is_shown_by_line_when_upload_is_invalid(setup) -> None:
    response = post(setup, BAD)
    html = response.content.decode()
    assert response.status_code == 400
    assert "Not stored" in html
    assert "document 501 repeated for topic A.1" in html
    assert "rank &#x27;zero&#x27; is not an integer" in html
    assert '<td class="num">2</td>' in html
    assert '<td class="num">3</td>' in html
    assert not Run.objects.exists()


def test_json_answer_is_given_when_the_upload_script_asks_for_it(setup) -> None:
    bad = post(setup, BAD, HTTP_ACCEPT="application/json")
    assert bad.status_code == 400
    assert [e["line"] for e in bad.json()["report"]["errors"]] == [2, 3]
    good = post(setup, GOOD, HTTP_ACCEPT="application/json")
    assert good.status_code == 200
    assert good.json()["redirect"] == f"/runs/{Run.objects.get().pk}/"


def test_participant_cannot_upload_for_another_team_when_posting_its_id(setup) -> None:
    setup["team"] = setup["other"]
    response = post(setup, GOOD)
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    assert not Run.objects.exists()


def test_run_report_is_hidden_when_the_run_is_another_teams(setup) -> None:
    theirs = RunFactory.create(task=setup["task"], team=setup["other"])
    assert setup["client"].get(f"/runs/{theirs.pk}/").status_code == 404


def test_page_sends_to_login_when_anonymous() -> None:
    response = Client().get("/runs/")
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]
