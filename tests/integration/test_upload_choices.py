"""The run upload offers a participant only what they may use, and the server holds to it:
tasks of the campaigns their team takes part in; ARQMath's "Data used" for ARQMath tasks."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from collection.models import RetrievalTask
from pooling.models import Run
from pooling.services.runs import SubmissionRefused, run_submit
from tests.factories.collection import (
    CampaignFactory,
    DocumentCollectionFactory,
    DocumentFactory,
    RetrievalTaskFactory,
    TopicFactory,
    UserFactory,
)
from tests.factories.pooling import TeamFactory

pytestmark = pytest.mark.django_db

ARQMATH_RUN = "A.1 Q0 501 1 0.9 lemma\n"
TREC_RUN = "301 Q0 news-0001 1 0.9 lemma\n"


@pytest.fixture
def scene() -> dict[str, Any]:
    arqmath = CampaignFactory.create(name="ARQMath-2026")
    trec = CampaignFactory.create(name="News-2026")
    answer = RetrievalTaskFactory.create(campaign=arqmath, kind=RetrievalTask.Kind.ANSWER)
    TopicFactory.create(task=answer, number="A.1")
    news = DocumentCollectionFactory.create(name="news")
    DocumentFactory.create(collection=news, docno="news-0001")
    document = RetrievalTaskFactory.create(
        campaign=trec, kind=RetrievalTask.Kind.DOCUMENT, collection=news
    )
    TopicFactory.create(task=document, number="301")
    carol = UserFactory.create(username="carol")
    team = TeamFactory.create(name="Lemma")
    team.members.add(carol)
    team.campaigns.add(arqmath)
    client = Client()
    client.force_login(carol)
    return {"answer": answer, "document": document, "team": team, "client": client}


def _offered_tasks(html: str) -> set[int]:
    select = re.search(r'<select name="task".*?</select>', html, re.S)
    assert select is not None
    return {int(pk) for pk in re.findall(r'<option value="(\d+)"', select.group(0))}


def _post(scene: dict[str, Any], task: RetrievalTask, text: str, data: str) -> Any:
    form = {
        "task": task.pk,
        "team": scene["team"].pk,
        "tag": "lemma",
        "role": "primary",
        "declared_data": data,
        "description": "",
        "file": SimpleUploadedFile("lemma.tsv", text.encode()),
    }
    return scene["client"].post("/runs/", form, HTTP_ACCEPT="application/json")


def test_form_offers_only_the_teams_campaigns_when_a_participant_opens_runs(scene) -> None:
    html = scene["client"].get("/runs/").content.decode()
    assert _offered_tasks(html) == {scene["answer"].pk}


def test_upload_is_refused_when_the_team_is_not_in_the_tasks_campaign(scene) -> None:
    response = _post(scene, scene["document"], TREC_RUN, "both")
    assert response.status_code == 400
    assert not Run.objects.exists()
    with pytest.raises(SubmissionRefused, match="Lemma does not take part in News-2026"):
        run_submit(
            task=scene["document"],
            team=scene["team"],
            tag="lemma",
            role="primary",
            stream=io.BytesIO(TREC_RUN.encode()),
            file_name="lemma.run",
            uploaded_by=None,
        )
    assert not Run.objects.exists()


def test_every_task_is_offered_when_the_team_names_no_campaign(scene) -> None:
    scene["team"].campaigns.clear()
    html = scene["client"].get("/runs/").content.decode()
    assert _offered_tasks(html) == {scene["answer"].pk, scene["document"].pk}


def test_document_run_records_no_data_used_when_a_client_sends_one(scene) -> None:
    scene["team"].campaigns.add(scene["document"].campaign)
    response = _post(scene, scene["document"], TREC_RUN, "math")
    assert response.status_code == 200, response.json()
    run = Run.objects.get(task=scene["document"])
    assert run.declared_data == ""
    page = scene["client"].get(f"/runs/{run.pk}/").content.decode()
    assert "Data used" not in page
    arqmath = _post(scene, scene["answer"], ARQMATH_RUN, "math")
    assert arqmath.status_code == 200, arqmath.json()
    assert Run.objects.get(task=scene["answer"]).declared_data == "math"


def test_form_marks_document_tasks_so_data_used_can_be_hidden(scene) -> None:
    scene["team"].campaigns.add(scene["document"].campaign)
    html = scene["client"].get("/runs/").content.decode()
    assert f'data-document-tasks="{scene["document"].pk}"' in html
    assert "ARQMath tasks only" in html


def test_run_page_labels_the_description_when_one_was_given(scene) -> None:
    run = run_submit(
        task=scene["answer"],
        team=scene["team"],
        tag="lemma",
        role="primary",
        stream=io.BytesIO(ARQMATH_RUN.encode()),
        file_name="lemma.tsv",
        uploaded_by=None,
        description="BM25 then a cross-encoder",
    ).run
    html = scene["client"].get(f"/runs/{run.pk}/").content.decode()
    assert re.search(r"<dt>Description</dt><dd[^>]*>BM25 then a cross-encoder</dd>", html), (
        "the description has its label"
    )
